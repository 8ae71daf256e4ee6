//! What a token opens ([`Access`]) and what the store keeps of a token
//! ([`TokenRecord`]): never the token itself, only its hash.

use serde::{Deserialize, Serialize};

/// The memory one token reaches: its namespace, the shared namespaces it
/// may also reach (each at `/memories/shared/NAME`), and whether it may
/// change its namespace. Nothing else is reachable with it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Access {
    pub namespace: String,
    #[serde(default)]
    pub shared: Vec<SharedAccess>,
    #[serde(default)]
    pub read_only: bool,
}

/// One shared namespace a token may reach.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SharedAccess {
    /// Its name under `/memories/shared/`.
    pub name: String,
    /// The namespace it is.
    pub target: String,
    #[serde(default)]
    pub read_only: bool,
}

impl Access {
    pub fn new(namespace: impl Into<String>, shared: Vec<SharedAccess>, read_only: bool) -> Self {
        Self {
            namespace: namespace.into(),
            shared,
            read_only,
        }
    }

    /// Whether every name it grants is a plain one (see
    /// [`crate::namespace::check`]): its namespace, and each shared name and
    /// the namespace it is. `memcap token create` never writes another, so
    /// a record that fails was changed by hand.
    pub fn check(&self) -> Result<(), crate::error::OpenError> {
        crate::namespace::check("namespace", &self.namespace)?;
        for shared in &self.shared {
            crate::namespace::check("shared name", &shared.name)?;
            crate::namespace::check("namespace", &shared.target)?;
        }
        Ok(())
    }

    /// How `token list` shows the grants: `alice (ro) + shared team:ro`.
    pub fn describe(&self) -> String {
        let mut out = self.namespace.clone();
        if self.read_only {
            out.push_str(" (ro)");
        }
        for shared in &self.shared {
            out.push_str(" + shared ");
            out.push_str(&shared.name);
            if shared.target != shared.name {
                out.push('=');
                out.push_str(&shared.target);
            }
            if shared.read_only {
                out.push_str(":ro");
            }
        }
        out
    }
}

/// What the store keeps of one token. Times are seconds since the epoch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    pub id: String,
    pub label: String,
    pub access: Access,
    pub created: i64,
    pub last_used: Option<i64>,
    pub expires: Option<i64>,
    pub revoked: Option<i64>,
    /// SHA-256 of the token, in hex.
    pub hash: String,
}
