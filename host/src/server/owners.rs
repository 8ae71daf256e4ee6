//! Which token opened each MCP session, and when each was last used: a
//! session answers only the token that opened it, and a token that opens
//! more than its share makes room by closing its own least recently used
//! session, never anyone else's.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Instant;

struct Owned {
    owner: String,
    last_used: Instant,
}

/// Sessions this process made, by id.
#[derive(Default)]
pub struct Owners {
    map: Mutex<HashMap<String, Owned>>,
}

impl Owners {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Owned>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The token that opened `session`, marking it used now.
    pub fn used(&self, session: &str) -> Option<String> {
        let mut map = self.map();
        let owned = map.get_mut(session)?;
        owned.last_used = Instant::now();
        Some(owned.owner.clone())
    }

    /// Records that `owner` opened `session`.
    pub fn own(&self, session: String, owner: String) {
        let last_used = Instant::now();
        self.map().insert(session, Owned { owner, last_used });
    }

    /// Forgets the sessions that are no longer `live` (closed, or idle past
    /// their time), so the map holds at most the live sessions.
    pub fn retain(&self, live: &HashSet<String>) {
        self.map().retain(|id, _| live.contains(id));
    }

    pub fn forget(&self, session: &str) {
        self.map().remove(session);
    }

    /// Every token that holds a session.
    pub fn tokens(&self) -> Vec<String> {
        let mut tokens: Vec<String> = self.map().values().map(|o| o.owner.clone()).collect();
        tokens.sort();
        tokens.dedup();
        tokens
    }

    /// `owner`'s sessions, least recently used first.
    pub fn of(&self, owner: &str) -> Vec<String> {
        let map = self.map();
        let mut mine: Vec<(&String, Instant)> = map
            .iter()
            .filter(|(_, o)| o.owner == owner)
            .map(|(id, o)| (id, o.last_used))
            .collect();
        mine.sort_by_key(|&(_, used)| used);
        mine.into_iter().map(|(id, _)| id.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_come_least_recently_used_first_and_only_the_owners() {
        let owners = Owners::default();
        for (id, owner) in [
            ("a1", "alice"),
            ("b1", "bob"),
            ("a2", "alice"),
            ("a3", "alice"),
        ] {
            owners.own(id.into(), owner.into());
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        assert_eq!(owners.used("a1").as_deref(), Some("alice"));
        assert_eq!(owners.of("alice"), ["a2", "a3", "a1"]);
        assert_eq!(owners.of("bob"), ["b1"]);
        assert_eq!(owners.tokens(), ["alice", "bob"]);
        owners.retain(&["a1".to_owned(), "b1".to_owned()].into());
        assert_eq!(owners.of("alice"), ["a1"]);
        owners.forget("b1");
        assert!(owners.of("bob").is_empty() && owners.used("b1").is_none());
    }
}
