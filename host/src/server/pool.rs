//! The warm stores of a server that serves many namespaces: one
//! [`MemoryServer`] per [`Access`], opened on first use and kept while it
//! is used. Every open store, kept or still answering a call after it was
//! dropped, holds a charge against the memory budget, so the instances
//! alive together stay within it: a call that needs another store waits
//! (dropping idle kept stores first) until the budget has room. Kept
//! stores are bounded too: a count, their measured linear memory (least
//! recently used go first), and an idle time. A dropped store comes back
//! on its next call, opened anew from the same place, with the same
//! answers.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::log;
use crate::mcp::MemoryServer;
use crate::tokens::Access;

/// Opens the store an access reaches; the message is for the operator.
pub type Opener = dyn Fn(&Access) -> Result<MemoryServer, String> + Send + Sync;

/// What one open store is charged against the budget, in MiB: an
/// instance's linear memory when it starts (3.8 MB measured).
const CHARGE_MIB: u32 = 4;

/// The bounds of a [`Pool`].
#[derive(Clone, Copy, Debug)]
pub struct PoolLimits {
    /// The most stores kept warm.
    pub max_stores: usize,
    /// The most linear memory their instances may hold together.
    pub max_bytes: usize,
    /// A store unused this long is dropped.
    pub idle: Duration,
}

/// An open store and its charge, released when the last user lets go.
struct Live {
    server: MemoryServer,
    _charge: OwnedSemaphorePermit,
}

/// A store handed to a call; it stays open until the call drops it.
pub struct Leased(Arc<Live>);

impl Deref for Leased {
    type Target = MemoryServer;

    fn deref(&self) -> &MemoryServer {
        &self.0.server
    }
}

struct Kept {
    live: Arc<Live>,
    used: Instant,
}

/// Warm stores by access.
pub struct Pool {
    open: Box<Opener>,
    limits: PoolLimits,
    kept: Mutex<HashMap<Access, Kept>>,
    /// The memory budget in MiB, shared by every open store.
    budget: Arc<Semaphore>,
    /// One lock per store being opened, so two first calls for one store
    /// open it once while other stores open beside it.
    opening: Mutex<HashMap<Access, Arc<tokio::sync::Mutex<()>>>>,
}

impl Pool {
    pub fn new(limits: PoolLimits, open: Box<Opener>) -> Arc<Self> {
        let mib = (limits.max_bytes >> 20).clamp(CHARGE_MIB as usize, Semaphore::MAX_PERMITS);
        Arc::new(Self {
            open,
            limits,
            kept: Mutex::new(HashMap::new()),
            budget: Arc::new(Semaphore::new(mib)),
            opening: Mutex::new(HashMap::new()),
        })
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, HashMap<Access, Kept>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take_warm(&self, access: &Access) -> Option<Leased> {
        let mut kept = self.kept();
        let entry = kept.get_mut(access)?;
        entry.used = Instant::now();
        Some(Leased(Arc::clone(&entry.live)))
    }

    /// The store `access` reaches, opened if it is not warm.
    pub async fn get(self: &Arc<Self>, access: &Access) -> Result<Leased, String> {
        if let Some(store) = self.take_warm(access) {
            return Ok(store);
        }
        let lock = Arc::clone(
            self.opening
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .entry(access.clone())
                .or_default(),
        );
        let _opening = lock.lock().await;
        if let Some(store) = self.take_warm(access) {
            return Ok(store);
        }
        let opened = self.open_now(access).await;
        self.opening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(access);
        opened
    }

    /// Room in the budget for one more store: idle kept stores are dropped
    /// to make it, else the wait lasts until a store in use is let go.
    async fn charge(&self) -> Result<OwnedSemaphorePermit, String> {
        loop {
            if let Ok(permit) = Arc::clone(&self.budget).try_acquire_many_owned(CHARGE_MIB) {
                return Ok(permit);
            }
            if self.drop_unused("memory") {
                continue;
            }
            tokio::select! {
                permit = Arc::clone(&self.budget).acquire_many_owned(CHARGE_MIB) => {
                    return permit.map_err(|_| "the server is stopping".to_owned());
                }
                // A store let go may still be kept: look again for one to drop.
                () = tokio::time::sleep(Duration::from_millis(20)) => {}
            }
        }
    }

    /// Opens the store `access` reaches and keeps it warm.
    async fn open_now(self: &Arc<Self>, access: &Access) -> Result<Leased, String> {
        let charge = self.charge().await?;
        let pool = Arc::clone(self);
        let wanted = access.clone();
        let server = tokio::task::spawn_blocking(move || (pool.open)(&wanted))
            .await
            .map_err(|_| "opening the store panicked".to_owned())??;
        log::event(
            "store-opened",
            serde_json::json!({"namespace": access.namespace, "read_only": access.read_only}),
        );
        let live = Arc::new(Live {
            server,
            _charge: charge,
        });
        let mut kept = self.kept();
        kept.insert(
            access.clone(),
            Kept {
                live: Arc::clone(&live),
                used: Instant::now(),
            },
        );
        self.trim(&mut kept, Some(access));
        Ok(Leased(live))
    }

    /// Drops the least recently used kept store no call is using; false
    /// when there is none.
    fn drop_unused(&self, why: &str) -> bool {
        let mut kept = self.kept();
        let oldest = kept
            .iter()
            .filter(|(_, k)| Arc::strong_count(&k.live) == 1)
            .min_by_key(|(_, k)| k.used)
            .map(|(access, _)| access.clone());
        match oldest {
            Some(access) => {
                drop_store(&mut kept, &access, why);
                true
            }
            None => false,
        }
    }

    /// Drops the least recently used stores past the count or the memory
    /// budget (never `keep`, the one being handed out), and every store
    /// idle past the idle time.
    fn trim(&self, kept: &mut HashMap<Access, Kept>, keep: Option<&Access>) {
        let now = Instant::now();
        let idle: Vec<Access> = kept
            .iter()
            .filter(|(access, k)| {
                Some(*access) != keep && now.duration_since(k.used) >= self.limits.idle
            })
            .map(|(access, _)| access.clone())
            .collect();
        for access in idle {
            drop_store(kept, &access, "idle");
        }
        loop {
            let bytes: usize = kept
                .values()
                .map(|k| k.live.server.memory().warm_bytes())
                .sum();
            let why = if kept.len() > self.limits.max_stores {
                "count"
            } else if bytes > self.limits.max_bytes {
                "memory"
            } else {
                return;
            };
            let oldest = kept
                .iter()
                .filter(|(access, _)| Some(*access) != keep)
                .min_by_key(|(_, k)| k.used)
                .map(|(access, _)| access.clone());
            match oldest {
                Some(access) => drop_store(kept, &access, why),
                None => return,
            }
        }
    }

    /// Applies the bounds now: called after each call (an instance grows
    /// while it runs) and on a timer (for idle stores).
    /// The stores kept warm now, and the linear memory their instances hold.
    pub fn warm(&self) -> (usize, usize) {
        let kept = self.kept();
        let bytes = kept
            .values()
            .map(|k| k.live.server.memory().warm_bytes())
            .sum();
        (kept.len(), bytes)
    }

    pub fn sweep(&self) {
        let mut kept = self.kept();
        self.trim(&mut kept, None);
    }
}

fn drop_store(kept: &mut HashMap<Access, Kept>, access: &Access, why: &str) {
    if let Some(gone) = kept.remove(access) {
        log::event(
            "store-dropped",
            serde_json::json!({
                "namespace": access.namespace,
                "why": why,
                "warm_bytes": gone.live.server.memory().warm_bytes(),
            }),
        );
    }
}
