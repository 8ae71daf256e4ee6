//! How people read a version's actor, change and number, worded once for
//! the CLI and the page alike.

use crate::bindings::{Change, HistoryVersion, LineOwner};

/// An actor as people see it: a token's id beside its label, so a token
/// is never taken for a CLI name or a client's.
fn who(actor: &str, id: Option<&str>) -> String {
    match id {
        Some(id) => format!("{actor} ({id})"),
        None => actor.to_owned(),
    }
}

impl Change {
    /// The word listings use.
    pub fn as_str(&self) -> &'static str {
        match self {
            Change::Created => "created",
            Change::Modified => "modified",
            Change::Deleted => "deleted",
            Change::Renamed => "renamed",
            Change::Restored => "restored",
        }
    }
}

impl HistoryVersion {
    /// Who made it, as listings show it.
    pub fn who(&self) -> String {
        who(&self.actor, self.actor_id.as_deref())
    }
}

impl LineOwner {
    /// Who wrote the lines, as blame shows it.
    pub fn who(&self) -> String {
        who(&self.actor, self.actor_id.as_deref())
    }

    /// The version as blame shows it: `~N` when the lines may be older,
    /// `-` for a change not recorded yet.
    pub fn version_label(&self) -> String {
        match (self.version, self.exact) {
            (Some(v), true) => v.to_string(),
            (Some(v), false) => format!("~{v}"),
            (None, _) => "-".to_owned(),
        }
    }
}
