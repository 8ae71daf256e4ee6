//! Who a request is: the bearer token in its one `Authorization` header,
//! checked against the store's tokens, decides the [`Principal`]: the
//! token's label and the access it grants. Nothing else in the request
//! (no other header, parameter, path or session id) has a say. Without
//! tokens, a server for one user ([`Admission::Local`]) takes only the token
//! it printed when it started, and every request it admits is that user;
//! one told `--no-auth` ([`Admission::Open`]) takes every request. Once any
//! token exists in the store, made before or while the server runs, a
//! server started without tokens admits nothing more (it fails closed:
//! restart it to serve the tokens).

use std::collections::HashMap;

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

use axum::http::{HeaderMap, header};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::tokens::{self, Access, Refusal, TokenStore};

/// The caller of one request.
#[derive(Clone, Debug)]
pub struct Principal {
    /// The token's id ("local" without tokens): the rate limit's key.
    pub id: String,
    /// The token's label, for the log.
    pub label: String,
    pub access: Access,
}

/// Why a request was turned away before it reached any store.
#[derive(Debug, PartialEq, Eq)]
pub enum Denial {
    /// No usable credential: 401 with `WWW-Authenticate: Bearer`.
    Unauthorized(&'static str),
    /// Over the token's rate: 429 with `Retry-After` (whole seconds).
    TooFast(u64),
    /// The token store failed: 503.
    Unavailable,
}

/// How often a token's last use is written down, at most.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// How long a server started without tokens trusts its last look at the
/// store's tokens (none yet): a token made while it runs locks it within
/// this.
const TOKENS_LOOK_EVERY: Duration = Duration::from_secs(1);

/// Who may come in.
pub enum Admission {
    /// A bearer token of the store's, which decides the access.
    Tokens(Arc<dyn TokenStore>),
    /// The one local user, who shows the token the server printed when it
    /// started; the store's tokens are watched, none being expected.
    Local {
        token: String,
        tokens: Arc<dyn TokenStore>,
    },
    /// Everyone (`--no-auth`: the operator said so); the store's tokens are
    /// watched, none being expected.
    Open(Arc<dyn TokenStore>),
}

/// Checks requests: tokens (or the one local user) and rate limits.
pub struct Gate {
    admission: Admission,
    /// When the store was last seen holding no token.
    no_tokens_seen: Mutex<Option<Instant>>,
    local: Access,
    limiter: DefaultKeyedRateLimiter<String>,
    /// Request bytes (KiB) per token, when limited: large writes cost more
    /// than small calls.
    bytes: Option<DefaultKeyedRateLimiter<String>>,
    touched: Mutex<HashMap<String, Instant>>,
}

impl Gate {
    /// Admitting as `admission` says; a request admitted without a token
    /// of the store's is the local user with `local` access. `per_second`
    /// calls per token, in bursts of up to `burst`.
    pub fn new(
        admission: Admission,
        local: Access,
        per_second: NonZeroU32,
        burst: NonZeroU32,
    ) -> Self {
        Self {
            admission,
            no_tokens_seen: Mutex::new(None),
            local,
            limiter: RateLimiter::keyed(Quota::per_second(per_second).allow_burst(burst)),
            bytes: None,
            touched: Mutex::new(HashMap::new()),
        }
    }

    /// Whether requests need a token of the store's.
    /// Limits the request bytes each token may send: `kib_per_second`
    /// sustained, in bursts up to `burst_kib` (at least the largest request,
    /// or that request could never pass).
    pub fn with_byte_limit(mut self, kib_per_second: NonZeroU32, burst_kib: NonZeroU32) -> Self {
        let burst = burst_kib.max(kib_per_second);
        self.bytes = Some(RateLimiter::keyed(
            Quota::per_second(kib_per_second).allow_burst(burst),
        ));
        self
    }

    /// Charges `bytes` of a request to `id`: `Err(seconds)` to wait when
    /// the token is over its byte rate.
    pub fn charge(&self, id: &str, bytes: usize) -> Result<(), u64> {
        let Some(limiter) = &self.bytes else {
            return Ok(());
        };
        let kib = u32::try_from(bytes.div_ceil(1024)).unwrap_or(u32::MAX);
        let Some(kib) = NonZeroU32::new(kib) else {
            return Ok(());
        };
        match limiter.check_key_n(&id.to_owned(), kib) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(not_until)) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                Err(wait.as_secs_f64().ceil().max(1.0) as u64)
            }
            // More than a whole burst: refused for good; the body bound is
            // what keeps requests below it.
            Err(_) => Err(60),
        }
    }

    pub fn needs_tokens(&self) -> bool {
        matches!(self.admission, Admission::Tokens(_))
    }

    /// The local user, once the store is known to hold no token still.
    fn local_user(&self, tokens: &dyn TokenStore) -> Result<Principal, Denial> {
        let mut seen = self
            .no_tokens_seen
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if seen.is_none_or(|at| at.elapsed() >= TOKENS_LOOK_EVERY) {
            match tokens.configured() {
                Ok(false) => *seen = Some(Instant::now()),
                Ok(true) => {
                    *seen = None;
                    return Err(Denial::Unauthorized("tokens-made-since-start"));
                }
                Err(e) => {
                    eprintln!("memcap: {e}");
                    *seen = None;
                    return Err(Denial::Unavailable);
                }
            }
        }
        Ok(Principal {
            id: "local".into(),
            label: "local".into(),
            access: self.local.clone(),
        })
    }

    /// The principal of a request with these headers (blocking: it may
    /// read the token store).
    pub fn admit(&self, headers: &HeaderMap) -> Result<Principal, Denial> {
        let principal = match &self.admission {
            Admission::Open(tokens) => self.local_user(tokens.as_ref())?,
            Admission::Local { token, tokens } => {
                let shown = bearer(headers).map_err(Denial::Unauthorized)?;
                if !bool::from(shown.as_bytes().ct_eq(token.as_bytes())) {
                    return Err(Denial::Unauthorized(Refusal::Unknown.as_str()));
                }
                self.local_user(tokens.as_ref())?
            }
            Admission::Tokens(store) => {
                let token = bearer(headers).map_err(Denial::Unauthorized)?;
                let record = match tokens::verify(store.as_ref(), token) {
                    Ok(Ok(record)) => record,
                    Ok(Err(refusal)) => return Err(Denial::Unauthorized(refusal.as_str())),
                    Err(e) => {
                        eprintln!("memcap: {e}");
                        return Err(Denial::Unavailable);
                    }
                };
                self.touch(store.as_ref(), &record.id);
                Principal {
                    id: record.id,
                    label: record.label,
                    access: record.access,
                }
            }
        };
        if let Err(not_until) = self.limiter.check_key(&principal.id) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            return Err(Denial::TooFast(wait.as_secs_f64().ceil().max(1.0) as u64));
        }
        Ok(principal)
    }

    /// Writes down that the token was used, at most once per [`TOUCH_EVERY`].
    fn touch(&self, store: &dyn TokenStore, id: &str) {
        {
            let mut touched = self.touched.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            if touched
                .get(id)
                .is_some_and(|at| now.duration_since(*at) < TOUCH_EVERY)
            {
                return;
            }
            touched.insert(id.to_owned(), now);
        }
        if let Err(e) = store.touch(id, tokens::now()) {
            eprintln!("memcap: could not note a token's last use: {e}");
        }
    }

    /// Forgets rate-limit state of tokens that have been quiet.
    /// Whether the token store answers (for `/readyz`): `Err` with a word for
    /// the operator, never the store's address or its error text.
    pub fn ready(&self) -> Result<(), &'static str> {
        let tokens = match &self.admission {
            Admission::Tokens(store) | Admission::Open(store) => store,
            Admission::Local { tokens, .. } => tokens,
        };
        // Read whole, as a request's check reads it: a file that may not be
        // trusted, or a database that does not answer, is not ready.
        tokens.all().map(|_| ()).map_err(|e| {
            eprintln!("memcap: readiness: {e}");
            "the token store does not answer"
        })
    }

    /// Those of `ids` that no longer open anything: revoked, expired or
    /// gone from the store (one read of it). A store that cannot be read
    /// names none: every request is checked anyway, and a passing fault must
    /// not end everyone's sessions.
    pub fn no_longer_valid(&self, ids: Vec<String>) -> Vec<String> {
        let Admission::Tokens(store) = &self.admission else {
            return Vec::new();
        };
        let Ok(records) = store.all() else {
            return Vec::new();
        };
        let now = tokens::now();
        let valid: std::collections::HashSet<&str> = records
            .iter()
            .filter(|r| r.revoked.is_none() && r.expires.is_none_or(|at| at > now))
            .map(|r| r.id.as_str())
            .collect();
        ids.into_iter()
            .filter(|id| !valid.contains(id.as_str()))
            .collect()
    }

    pub fn forget_quiet(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
        if let Some(bytes) = &self.bytes {
            bytes.retain_recent();
            bytes.shrink_to_fit();
        }
    }
}

/// The token of the one `Authorization: Bearer TOKEN` header. Two such
/// headers, another scheme or anything around the token is refused (the
/// scheme's case is free, as RFC 9110 says).
fn bearer(headers: &HeaderMap) -> Result<&str, &'static str> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let value = values.next().ok_or("no-token")?;
    if values.next().is_some() {
        return Err("several-authorization-headers");
    }
    let value = value.to_str().map_err(|_| Refusal::Malformed.as_str())?;
    let (scheme, token) = value.split_once(' ').ok_or(Refusal::Malformed.as_str())?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err("not-a-bearer-token");
    }
    let token = token.trim_matches(' ');
    if token.is_empty() || token.contains(' ') {
        return Err(Refusal::Malformed.as_str());
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    #[test]
    fn one_bearer_header_names_the_token_and_nothing_else_does() {
        assert_eq!(bearer(&headers(&["Bearer abc"])), Ok("abc"));
        assert_eq!(bearer(&headers(&["bearer  abc "])), Ok("abc"));
        assert_eq!(bearer(&headers(&[])), Err("no-token"));
        assert_eq!(
            bearer(&headers(&["Bearer abc", "Bearer def"])),
            Err("several-authorization-headers")
        );
        assert_eq!(bearer(&headers(&["Basic abc"])), Err("not-a-bearer-token"));
        assert!(bearer(&headers(&["Bearer"])).is_err());
        assert!(bearer(&headers(&["Bearer a b"])).is_err());
    }
}
