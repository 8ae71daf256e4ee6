//! One call's view of the world: the storage port and the environment the
//! adapter hands in, and the time budget the call's walks share.

use std::cell::{Cell, RefCell};

use crate::notes::catalog::Indexes;
use crate::storage::{Environment, Storage};

/// How long one call may spend walking the store (hosts stop a call at 10 s
/// by default).
const WALK_BUDGET_NANOS: u64 = 4_000_000_000;
/// A host that stops calls sooner says so (`MEMCAP_CALL_TIMEOUT_MS`): the
/// walks then take this share of its limit, so what they found is saved
/// before the limit is reached, and the next call goes on from there.
const WALK_SHARE_PERCENT: u64 = 40;

/// [`Io::index_budget`] when the host does not say how much memory a call
/// may use.
pub const DEFAULT_INDEX_BUDGET: u64 = 64 << 20;

/// The ports one call runs against.
pub struct Io<'a> {
    pub fs: &'a dyn Storage,
    pub env: &'a dyn Environment,
    /// The derived indexes the instance keeps warm between calls.
    pub indexes: &'a RefCell<Indexes>,
    /// When walking must stop (monotonic nanoseconds).
    deadline: Cell<u64>,
    /// Whether the warm catalog has read the journal in this call: it is
    /// not read again (the host's lock keeps other writers out meanwhile,
    /// and a save checks the journal's end whatever this says).
    journal_read: Cell<bool>,
}

impl<'a> Io<'a> {
    pub fn new(
        fs: &'a dyn Storage,
        env: &'a dyn Environment,
        indexes: &'a RefCell<Indexes>,
    ) -> Self {
        Self {
            fs,
            env,
            indexes,
            // Set by the first walk ([`Io::start_budget`]).
            deadline: Cell::new(u64::MAX),
            journal_read: Cell::new(false),
        }
    }

    /// Starts the walking budget again: every walk of one catalog use
    /// shares it.
    pub fn start_budget(&self) {
        let budget = self
            .env
            .var("MEMCAP_CALL_TIMEOUT_MS")
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .map_or(WALK_BUDGET_NANOS, |ms| {
                (ms.saturating_mul(1_000_000) / 100 * WALK_SHARE_PERCENT).min(WALK_BUDGET_NANOS)
            });
        self.deadline
            .set(self.env.monotonic_nanos().saturating_add(budget));
    }

    /// Whether the warm catalog has read the journal in this call.
    pub(crate) fn journal_read(&self) -> bool {
        self.journal_read.get()
    }

    /// Notes that the warm catalog is in step with the journal.
    pub(crate) fn mark_journal_read(&self) {
        self.journal_read.set(true);
    }

    /// Whether walking must stop now.
    pub fn out_of_time(&self) -> bool {
        self.env.monotonic_nanos() >= self.deadline.get()
    }

    /// The memory the search index may hold for the whole store: a quarter
    /// of what a call may use, as the host says (`MEMCAP_MEMORY_MIB`),
    /// since saving it copies it about three times over; 64 MiB (a quarter
    /// of memcap's default 256 MiB) when the host does not say.
    pub fn index_budget(&self) -> u64 {
        self.env
            .var("MEMCAP_MEMORY_MIB")
            .and_then(|mib| mib.trim().parse::<u64>().ok())
            .map_or(DEFAULT_INDEX_BUDGET, |mib| mib.saturating_mul(1 << 20) / 4)
    }

    /// Today's date in UTC, as `YYYY-MM-DD`.
    pub fn today(&self) -> String {
        let seconds = i64::try_from(self.env.now_seconds()).unwrap_or(i64::MAX);
        time::OffsetDateTime::from_unix_timestamp(seconds)
            .map(|t| t.date().to_string())
            .unwrap_or_else(|_| "1970-01-01".to_owned())
    }
}
