//! Bearer tokens for a team server: each token names the one namespace it
//! reaches, the shared namespaces it may also reach, and whether it may
//! write. A token is shown once when made; the store keeps its SHA-256
//! only, and a presented token is compared with that in constant time.
//!
//! Tokens live with the store: [`directory`] keeps them in one 0600 file
//! beside the namespaces, [`database`] in a table of their own.

mod record;

use std::time::{SystemTime, UNIX_EPOCH};

use memcap_core::vocab::precondition::hex;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

pub use record::{Access, SharedAccess, TokenRecord};

/// What every token starts with, so a leaked one is recognisable.
const PREFIX: &str = "memcap_";
/// Bytes of the public id (shown by `token list`, taken by `token revoke`).
const ID_BYTES: usize = 6;
/// Bytes of the secret: 256 bits.
const SECRET_BYTES: usize = 32;

/// Where tokens are kept: a directory store's file or a database's table.
pub trait TokenStore: Send + Sync {
    /// Keeps a new record.
    fn add(&self, record: &TokenRecord) -> Result<(), TokenError>;
    /// Every record, revoked ones included, oldest first.
    fn all(&self) -> Result<Vec<TokenRecord>, TokenError>;
    /// The record with this id.
    fn find(&self, id: &str) -> Result<Option<TokenRecord>, TokenError>;
    /// Marks the token revoked at `at`; false when there is no such id.
    fn revoke(&self, id: &str, at: i64) -> Result<bool, TokenError>;
    /// Notes that the token was used at `at`.
    fn touch(&self, id: &str, at: i64) -> Result<(), TokenError>;
    /// Whether any token was ever made here: then a server asks for one.
    fn configured(&self) -> Result<bool, TokenError>;
}

/// Why a token store failed (for the person running memcap).
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("could not {doing} the token file {path}: {cause}")]
    File {
        doing: &'static str,
        path: std::path::PathBuf,
        cause: std::io::Error,
    },
    #[error("the token file {0} is damaged; restore it or move it away and create tokens anew")]
    Damaged(std::path::PathBuf),
    #[error(
        "{} {why}, so memcap does not trust the tokens in it: make it the user memcap runs as's, writable by that user only (chown, then chmod 0700 for the directory, 0600 for the file)",
        path.display()
    )]
    Unsafe {
        path: std::path::PathBuf,
        why: &'static str,
    },
    #[error(
        "the token file {} holds the id {id} twice, so which record counts (revoked or not) would depend on their order: remove one (memcap token list, then revoke and create anew)",
        path.display()
    )]
    DuplicateId {
        path: std::path::PathBuf,
        id: String,
    },
    #[error("the memory database refused a token query: {0}")]
    Database(String),
    #[error("no random bytes from the operating system: {0}")]
    Random(String),
}

/// Why a presented token was not accepted. Never shown to the client in
/// more detail than "invalid token".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not in memcap's token format.
    Malformed,
    /// No token has this id, or the secret does not match.
    Unknown,
    Revoked,
    Expired,
    /// Its record grants a namespace or shared name that is not a plain
    /// name (written into the store by hand): nothing is opened with it.
    InvalidGrant,
}

impl Refusal {
    /// The word logged for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Malformed => "malformed-token",
            Refusal::Unknown => "unknown-token",
            Refusal::Revoked => "revoked-token",
            Refusal::Expired => "expired-token",
            Refusal::InvalidGrant => "invalid-grant",
        }
    }
}

/// A new token for `access`: the record to keep and the token to show once.
pub fn mint(
    access: Access,
    label: String,
    expires: Option<i64>,
) -> Result<(TokenRecord, String), TokenError> {
    let mut bytes = [0u8; ID_BYTES + SECRET_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
    let id = hex(&bytes[..ID_BYTES]);
    let token = format!("{PREFIX}{id}_{}", hex(&bytes[ID_BYTES..]));
    let record = TokenRecord {
        id,
        label,
        access,
        created: now(),
        last_used: None,
        expires,
        revoked: None,
        hash: hash(&token),
    };
    Ok((record, token))
}

/// A token for a server started without tokens to print once: whoever
/// shows it is the one local user. Never stored.
pub fn local_token() -> Result<String, TokenError> {
    let mut bytes = [0u8; SECRET_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
    Ok(format!("{PREFIX}local_{}", hex(&bytes)))
}

/// The id a token names, if it is in memcap's format.
pub fn id_of(token: &str) -> Option<&str> {
    let rest = token.strip_prefix(PREFIX)?;
    let (id, secret) = rest.split_once('_')?;
    let hexes = |s: &str, n: usize| s.len() == n * 2 && s.bytes().all(|b| b.is_ascii_hexdigit());
    (hexes(id, ID_BYTES) && hexes(secret, SECRET_BYTES)).then_some(id)
}

/// Checks `token` against the store: the record it opens, or why not.
pub fn verify(
    store: &dyn TokenStore,
    token: &str,
) -> Result<Result<TokenRecord, Refusal>, TokenError> {
    let Some(id) = id_of(token) else {
        return Ok(Err(Refusal::Malformed));
    };
    let Some(record) = store.find(id)? else {
        return Ok(Err(Refusal::Unknown));
    };
    if !bool::from(hash(token).as_bytes().ct_eq(record.hash.as_bytes())) {
        return Ok(Err(Refusal::Unknown));
    }
    if record.revoked.is_some() {
        return Ok(Err(Refusal::Revoked));
    }
    if record.expires.is_some_and(|at| at <= now()) {
        return Ok(Err(Refusal::Expired));
    }
    // Checked again when served: a record changed by hand may name
    // anything (`../bob`, `/etc`), and nothing may be opened with it.
    if let Err(e) = record.access.check() {
        eprintln!("memcap: the token {} is refused: {e}", record.id);
        return Ok(Err(Refusal::InvalidGrant));
    }
    Ok(Ok(record))
}

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Parses a lifetime such as `90d`, `12h`, `30m` or `45s` into seconds.
pub fn parse_lifetime(text: &str) -> Result<i64, String> {
    let bad = || format!("expected a lifetime like 90d, 12h, 30m or 45s, got {text:?}");
    let split = text.len().checked_sub(1).ok_or_else(bad)?;
    let (number, unit) = text.split_at(split);
    let number: i64 = number.parse().map_err(|_| bad())?;
    let unit = match unit {
        "d" => 86_400,
        "h" => 3_600,
        "m" => 60,
        "s" => 1,
        _ => return Err(bad()),
    };
    match number.checked_mul(unit) {
        Some(secs) if secs > 0 && secs <= 100 * 365 * 86_400 => Ok(secs),
        _ => Err(format!("a lifetime is from 1s to 100 years, got {text:?}")),
    }
}

fn hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minted_token_is_256_random_bits_behind_a_public_id() {
        let access = Access::new("alice", vec![], false);
        let (record, token) = mint(access.clone(), "laptop".into(), None).unwrap();
        assert_eq!(id_of(&token), Some(record.id.as_str()));
        assert_eq!(token.len(), PREFIX.len() + 12 + 1 + 64);
        assert!(!record.hash.contains(&token[PREFIX.len() + 13..]));
        let (_, other) = mint(access, "laptop".into(), None).unwrap();
        assert_ne!(token, other);
    }

    #[test]
    fn only_the_exact_token_format_names_an_id() {
        let good = format!("memcap_{}_{}", "a".repeat(12), "0".repeat(64));
        assert!(id_of(&good).is_some());
        for bad in [
            String::new(),
            good.to_uppercase(),
            format!("{good} "),
            format!("{good}0"),
            good.replacen('_', "-", 1),
            format!("memcap_{}_{}", "g".repeat(12), "0".repeat(64)),
        ] {
            assert_eq!(id_of(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn lifetimes_take_one_unit_and_stay_in_range() {
        assert_eq!(parse_lifetime("90d"), Ok(90 * 86_400));
        assert_eq!(parse_lifetime("12h"), Ok(12 * 3_600));
        for bad in ["", "d", "90", "-1d", "0s", "1y", "99999999999d"] {
            assert!(parse_lifetime(bad).is_err(), "{bad}");
        }
    }
}
