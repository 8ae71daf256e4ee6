//! The warm stores of a server that serves many namespaces: one
//! [`MemoryServer`] per [`Access`], opened on first use and kept while it
//! is used. The pool is bounded three ways: a count, a budget for the
//! instances' linear memory (least recently used go first), and an idle
//! time after which a store is dropped. A dropped store comes back on its
//! next call, opened anew from the same place, with the same answers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::log;
use crate::mcp::MemoryServer;
use crate::tokens::Access;

/// Opens the store an access reaches; the message is for the operator.
pub type Opener = dyn Fn(&Access) -> Result<MemoryServer, String> + Send + Sync;

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

struct Kept {
    server: MemoryServer,
    used: Instant,
}

/// Warm stores by access.
pub struct Pool {
    open: Box<Opener>,
    limits: PoolLimits,
    kept: Mutex<HashMap<Access, Kept>>,
    /// One lock per store being opened, so two first calls for one store
    /// open it once while other stores open beside it.
    opening: Mutex<HashMap<Access, Arc<tokio::sync::Mutex<()>>>>,
}

impl Pool {
    pub fn new(limits: PoolLimits, open: Box<Opener>) -> Arc<Self> {
        Arc::new(Self {
            open,
            limits,
            kept: Mutex::new(HashMap::new()),
            opening: Mutex::new(HashMap::new()),
        })
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, HashMap<Access, Kept>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take_warm(&self, access: &Access) -> Option<MemoryServer> {
        let mut kept = self.kept();
        let entry = kept.get_mut(access)?;
        entry.used = Instant::now();
        Some(entry.server.clone())
    }

    /// The store `access` reaches, opened if it is not warm.
    pub async fn get(self: &Arc<Self>, access: &Access) -> Result<MemoryServer, String> {
        if let Some(server) = self.take_warm(access) {
            return Ok(server);
        }
        let lock = Arc::clone(
            self.opening
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .entry(access.clone())
                .or_default(),
        );
        let _opening = lock.lock().await;
        if let Some(server) = self.take_warm(access) {
            return Ok(server);
        }
        let opened = self.open_now(access).await;
        self.opening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(access);
        opened
    }

    /// Opens the store `access` reaches and keeps it warm.
    async fn open_now(self: &Arc<Self>, access: &Access) -> Result<MemoryServer, String> {
        let pool = Arc::clone(self);
        let wanted = access.clone();
        let server = tokio::task::spawn_blocking(move || (pool.open)(&wanted))
            .await
            .map_err(|_| "opening the store panicked".to_owned())??;
        log::event(
            "store-opened",
            serde_json::json!({"namespace": access.namespace, "read_only": access.read_only}),
        );
        let mut kept = self.kept();
        kept.insert(
            access.clone(),
            Kept {
                server: server.clone(),
                used: Instant::now(),
            },
        );
        self.trim(&mut kept, Some(access));
        Ok(server)
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
            let bytes: usize = kept.values().map(|k| k.server.memory().warm_bytes()).sum();
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
    pub fn sweep(&self) {
        let mut kept = self.kept();
        self.trim(&mut kept, None);
    }

    /// How many stores are warm, and the linear memory they hold.
    pub fn usage(&self) -> (usize, usize) {
        let kept = self.kept();
        let bytes = kept.values().map(|k| k.server.memory().warm_bytes()).sum();
        (kept.len(), bytes)
    }
}

fn drop_store(kept: &mut HashMap<Access, Kept>, access: &Access, why: &str) {
    if let Some(gone) = kept.remove(access) {
        log::event(
            "store-dropped",
            serde_json::json!({
                "namespace": access.namespace,
                "why": why,
                "warm_bytes": gone.server.memory().warm_bytes(),
            }),
        );
    }
}
