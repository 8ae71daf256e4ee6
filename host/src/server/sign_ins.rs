//! Failed sign-ins counted per peer (the address a connection comes from):
//! past the limit within a minute, the peer's requests are turned away
//! (429) without looking at their tokens until the minute is over, so
//! guessing costs the guesser time and the server no token-store reads.
//! Behind a proxy every request comes from the proxy's address: give the
//! limit room there, or 0 to turn it off.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The window failures are counted in.
const WINDOW: Duration = Duration::from_secs(60);
/// The most peers tracked at once; past it the oldest window is forgotten.
const MAX_PEERS: usize = 4096;

/// Where a request came from, as the listener saw it (a request extension).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub IpAddr);

/// Failed sign-ins per peer.
pub struct SignIns {
    limit: u32,
    peers: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl SignIns {
    /// At most `limit` failed sign-ins per peer a minute (0: no limit).
    pub fn new(limit: u32) -> Self {
        Self {
            limit,
            peers: Mutex::new(HashMap::new()),
        }
    }

    /// `Some(seconds)` to wait when `peer` is over its limit now.
    pub fn blocked(&self, peer: IpAddr) -> Option<u64> {
        if self.limit == 0 {
            return None;
        }
        let peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        let (start, count) = peers.get(&peer)?;
        let left = WINDOW.checked_sub(start.elapsed())?;
        (*count >= self.limit).then(|| left.as_secs().max(1))
    }

    /// Counts one failed sign-in from `peer`.
    pub fn failed(&self, peer: IpAddr) {
        if self.limit == 0 {
            return;
        }
        let mut peers = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        if peers.len() >= MAX_PEERS && !peers.contains_key(&peer) {
            peers.retain(|_, (start, _)| start.elapsed() < WINDOW);
            if peers.len() >= MAX_PEERS
                && let Some(oldest) = peers.iter().min_by_key(|(_, (s, _))| *s).map(|(p, _)| *p)
            {
                peers.remove(&oldest);
            }
        }
        let entry = peers.entry(peer).or_insert((Instant::now(), 0));
        if entry.0.elapsed() >= WINDOW {
            *entry = (Instant::now(), 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_is_blocked_past_its_limit_and_others_are_not() {
        let sign_ins = SignIns::new(3);
        let (a, b) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        for _ in 0..2 {
            sign_ins.failed(a);
        }
        assert_eq!(sign_ins.blocked(a), None);
        sign_ins.failed(a);
        assert!(sign_ins.blocked(a).is_some_and(|s| (1..=60).contains(&s)));
        assert_eq!(sign_ins.blocked(b), None);
        let off = SignIns::new(0);
        for _ in 0..100 {
            off.failed(a);
        }
        assert_eq!(off.blocked(a), None);
    }

    #[test]
    fn the_peers_tracked_are_bounded() {
        let sign_ins = SignIns::new(1);
        for i in 0..(MAX_PEERS as u32 + 50) {
            sign_ins.failed(IpAddr::from(i.to_be_bytes()));
        }
        assert!(sign_ins.peers.lock().unwrap().len() <= MAX_PEERS);
    }
}
