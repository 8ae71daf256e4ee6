//! Who is signed in to the page: sessions kept in memory, found by a random
//! id in an HttpOnly cookie, each with its own CSRF secret; and `memcap
//! ui`'s one-time sign-in code. Nothing here is written anywhere: a restart
//! signs everyone out.
//!
//! The cookie is `__Host-` prefixed: the browser keeps it to the one host
//! name that set it (no `Domain`, `Path=/`, `Secure`), so a sibling name
//! can neither read nor plant one, and the page answers only on a name of
//! its own (see `checks`), never on one every local server shares. A
//! request that shows two session cookies is refused, never resolved.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use subtle::ConstantTimeEq;

use crate::server::Principal;

/// The cookie's name.
pub const COOKIE: &str = "__Host-memcap_ui";
/// How long a session lasts, used or not.
pub const LIFETIME: Duration = Duration::from_secs(12 * 3600);
/// How long the printed sign-in code works.
pub const CODE_LIFETIME: Duration = Duration::from_secs(5 * 60);
/// The most sessions at once; a new one past it ends the oldest session of
/// whoever holds the most.
const MAX_SESSIONS: usize = 1024;
/// Sessions one holder (a token, the owner) keeps when none is given.
const PER_HOLDER: usize = 32;

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
    /// Whose share it counts against: the token's id, or the owner.
    pub key: String,
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
pub struct Sessions {
    open: Mutex<HashMap<String, Session>>,
    code: Mutex<Option<(String, Instant, Principal)>>,
    /// The most sessions one holder keeps: its next one ends its oldest.
    per_holder: usize,
}

impl Default for Sessions {
    fn default() -> Self {
        Self::new(PER_HOLDER)
    }
}

/// 32 random bytes in hex.
pub fn secret() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS gives random bytes");
    memcap_core::vocab::precondition::hex(&bytes)
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

    /// Sessions that keep at most `per_holder` for one holder.
    pub fn new(per_holder: usize) -> Self {
        Self {
            open: Mutex::default(),
            code: Mutex::default(),
            per_holder: per_holder.max(1),
        }
    }

    /// Opens a session for `holder`, counted against `key`'s share;
    /// returns its id (the cookie's value). A holder at its share ends its
    /// own oldest session; a full server ends the oldest of whoever holds
    /// the most, so no holder can sign others out.
    pub fn open(&self, holder: Holder, key: &str) -> String {
        let id = secret();
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|_, s| s.started.elapsed() < LIFETIME);
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for s in open.values() {
            *counts.entry(s.key.as_str()).or_default() += 1;
        }
        let mine = counts.get(key).copied().unwrap_or(0);
        let evict_from = if mine >= self.per_holder {
            Some(key.to_owned())
        } else if open.len() >= MAX_SESSIONS {
            counts
                .iter()
                .max_by_key(|(_, n)| **n)
                .map(|(k, _)| (*k).to_owned())
        } else {
            None
        };
        if let Some(from) = evict_from
            && let Some(oldest) = open
                .iter()
                .filter(|(_, s)| s.key == from)
                .min_by_key(|(_, s)| s.started)
                .map(|(id, _)| id.clone())
        {
            open.remove(&oldest);
        }
        open.insert(
            id.clone(),
            Session {
                holder,
                key: key.to_owned(),
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

/// The session cookies a request shows.
#[derive(Debug, PartialEq, Eq)]
pub enum Shown {
    None,
    One(String),
    /// More than one: one of them is not the browser's own (planted by
    /// another site, or sent twice on purpose). Refused, never resolved.
    Several,
}

/// The session id a request's `Cookie` headers carry: exactly one cookie
/// of the page's name, in the id's shape; any other shape counts too, so
/// a planted value beside the real one is seen.
pub fn cookie(headers: &axum::http::HeaderMap) -> Shown {
    let mut found = headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value);
    match (found.next(), found.next()) {
        (None, _) => Shown::None,
        (Some(_), Some(_)) => Shown::Several,
        (Some(v), None) if v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Shown::One(v.to_owned())
        }
        (Some(_), None) => Shown::None,
    }
}

/// The `Set-Cookie` value for session `id`. `Secure` always: browsers keep
/// it over https and on `localhost` names, the only places the page signs
/// anyone in.
pub fn set_cookie(id: &str) -> String {
    format!(
        "{COOKIE}={id}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age={}",
        LIFETIME.as_secs()
    )
}

/// The `Set-Cookie` value that ends the cookie.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0")
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
        let id = sessions.open(Holder::Owner(owner()), "owner");
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(
            axum::http::header::COOKIE,
            format!("memcap_ui={}; {COOKIE}={id}", "0".repeat(64))
                .parse()
                .unwrap(),
        );
        let Shown::One(found) = cookie(&headers) else {
            panic!("one session cookie")
        };
        assert!(sessions.get(&found).is_some());
        sessions.close(&found);
        assert!(sessions.get(&found).is_none());
    }

    #[test]
    fn a_second_session_cookie_is_refused_never_preferred() {
        let sessions = Sessions::default();
        let id = sessions.open(Holder::Owner(owner()), "owner");
        for planted in [
            format!("{COOKIE}={}; {COOKIE}={id}", "a".repeat(64)),
            format!("{COOKIE}={id}; {COOKIE}=x"),
        ] {
            let mut headers = axum::http::HeaderMap::new();
            headers.insert(axum::http::header::COOKIE, planted.parse().unwrap());
            assert_eq!(cookie(&headers), Shown::Several, "{planted}");
        }
        let mut headers = axum::http::HeaderMap::new();
        headers.append(
            axum::http::header::COOKIE,
            format!("{COOKIE}={id}").parse().unwrap(),
        );
        headers.append(
            axum::http::header::COOKIE,
            format!("{COOKIE}={id}").parse().unwrap(),
        );
        assert_eq!(cookie(&headers), Shown::Several);
    }

    #[test]
    fn one_holder_never_signs_another_out() {
        let sessions = Sessions::new(3);
        let alice = sessions.open(Holder::Token("a".into()), "alice");
        for _ in 0..MAX_SESSIONS * 2 {
            sessions.open(Holder::Token("m".into()), "mallory");
        }
        assert!(
            sessions.get(&alice).is_some(),
            "mallory's sessions end mallory's"
        );
        let open = sessions.open.lock().unwrap();
        assert_eq!(open.values().filter(|s| s.key == "mallory").count(), 3);
    }

    #[test]
    fn a_full_server_ends_a_session_of_whoever_holds_the_most() {
        let sessions = Sessions::new(MAX_SESSIONS);
        let alice = sessions.open(Holder::Token("a".into()), "alice");
        for _ in 0..MAX_SESSIONS {
            sessions.open(Holder::Token("m".into()), "mallory");
        }
        let bob = sessions.open(Holder::Token("b".into()), "bob");
        assert!(sessions.get(&alice).is_some() && sessions.get(&bob).is_some());
        assert!(sessions.open.lock().unwrap().len() <= MAX_SESSIONS);
    }
}
