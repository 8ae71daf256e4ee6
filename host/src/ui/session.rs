//! Who is signed in to the page: sessions kept in memory, found by a random
//! id in an HttpOnly cookie, each with its own CSRF secret; and `memcap
//! ui`'s one-time sign-in code. Nothing here is written anywhere: a restart
//! signs everyone out.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use subtle::ConstantTimeEq;

use crate::server::Principal;

/// The cookie's name.
pub const COOKIE: &str = "memcap_ui";
/// How long a session lasts, used or not.
pub const LIFETIME: Duration = Duration::from_secs(12 * 3600);
/// How long the printed sign-in code works.
pub const CODE_LIFETIME: Duration = Duration::from_secs(5 * 60);
/// The most sessions at once; a new one past it ends the oldest.
const MAX_SESSIONS: usize = 1024;

/// How a session was opened, which decides how each request is checked.
#[derive(Clone)]
pub enum Holder {
    /// The person who started `memcap ui`, by its printed code.
    Owner(Principal),
    /// A token, shown again to the gate on every request, so a revoked or
    /// expired token ends the session at once. Kept in memory only.
    Token(String),
}

/// One signed-in browser.
#[derive(Clone)]
pub struct Session {
    pub holder: Holder,
    /// The secret every form of this session carries back.
    pub csrf: String,
    started: Instant,
}

impl Session {
    /// Whether `shown` is this session's CSRF secret.
    pub fn csrf_ok(&self, shown: &str) -> bool {
        same_secret(shown, &self.csrf)
    }
}

/// Whether `shown` is `secret`, compared in constant time.
pub fn same_secret(shown: &str, secret: &str) -> bool {
    bool::from(shown.as_bytes().ct_eq(secret.as_bytes()))
}

/// The sessions, and `memcap ui`'s code until it is used.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, Session>>,
    code: Mutex<Option<(String, Instant, Principal)>>,
}

/// 32 random bytes in hex.
pub fn secret() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS gives random bytes");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Sessions {
    /// Makes the one sign-in code, for `principal`; it replaces any earlier.
    pub fn issue_code(&self, principal: Principal) -> String {
        let code = secret();
        *self.code.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((code.clone(), Instant::now(), principal));
        code
    }

    /// The code's principal if `shown` is the code and it has not expired;
    /// the code works once. A wrong guess leaves it (256 random bits are
    /// not guessed, and failed sign-ins are limited per peer), so nobody
    /// else on the machine can spend the owner's code by guessing.
    pub fn redeem(&self, shown: &str) -> Option<Principal> {
        let mut code = self.code.lock().unwrap_or_else(|p| p.into_inner());
        let (right, made, _) = code.as_ref()?;
        if !same_secret(shown, right) {
            return None;
        }
        let fresh = made.elapsed() < CODE_LIFETIME;
        let (_, _, principal) = code.take()?;
        fresh.then_some(principal)
    }

    /// Opens a session for `holder`; returns its id (the cookie's value).
    pub fn open(&self, holder: Holder) -> String {
        let id = secret();
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|_, s| s.started.elapsed() < LIFETIME);
        if open.len() >= MAX_SESSIONS
            && let Some(oldest) = open
                .iter()
                .min_by_key(|(_, s)| s.started)
                .map(|(id, _)| id.clone())
        {
            open.remove(&oldest);
        }
        open.insert(
            id.clone(),
            Session {
                holder,
                csrf: secret(),
                started: Instant::now(),
            },
        );
        id
    }

    /// The session `id` names, while it lasts.
    pub fn get(&self, id: &str) -> Option<Session> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let session = open.get(id)?;
        if session.started.elapsed() >= LIFETIME {
            open.remove(id);
            return None;
        }
        Some(session.clone())
    }

    /// Ends the session `id`.
    pub fn close(&self, id: &str) {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }
}

/// The session id a request's `Cookie` headers carry, if any.
pub fn cookie(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_owned())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The `Set-Cookie` value for session `id` (`Secure` when the page was
/// reached over TLS, as a proxy in front says).
pub fn set_cookie(id: &str, secure: bool) -> String {
    format!(
        "{COOKIE}={id}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age={}{}",
        LIFETIME.as_secs(),
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that ends the cookie.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Access;

    fn owner() -> Principal {
        Principal {
            id: "local".into(),
            label: "ui".into(),
            access: Access::new("local", Vec::new(), false),
        }
    }

    #[test]
    fn the_code_works_once_and_a_wrong_guess_opens_nothing() {
        let sessions = Sessions::default();
        let code = sessions.issue_code(owner());
        assert!(sessions.redeem(&code).is_some());
        assert!(sessions.redeem(&code).is_none());
        let code = sessions.issue_code(owner());
        assert!(sessions.redeem("0000").is_none());
        assert!(
            sessions.redeem(&code).is_some(),
            "a wrong guess leaves the code"
        );
    }

    #[test]
    fn a_cookie_names_a_session_and_a_closed_one_is_gone() {
        let sessions = Sessions::default();
        let id = sessions.open(Holder::Owner(owner()));
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(
            axum::http::header::COOKIE,
            format!("other=1; {COOKIE}={id}").parse().unwrap(),
        );
        let found = cookie(&headers).unwrap();
        assert!(sessions.get(&found).is_some());
        sessions.close(&found);
        assert!(sessions.get(&found).is_none());
    }
}
