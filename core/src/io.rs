//! One call's view of the world: the storage port and the environment the
//! adapter hands in, and the time budget the call's walks share.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

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

/// A part of what an instance keeps warm that a call reaches while the
/// catalog is borrowed: the history's log, held open between changes
/// (`history::log::keep`).
pub type WarmSlot = Rc<RefCell<Option<Box<dyn Any>>>>;

/// The ports one call runs against.
pub struct Io<'a> {
    pub fs: &'a dyn Storage,
    pub env: &'a dyn Environment,
    /// What the instance keeps warm between calls: its
    /// `notes::catalog::Indexes`, typed only where it is made
    /// (`Io::new`, at the composition root) and read (`catalog::with`), so
    /// the ports do not depend on the catalog.
    warm: &'a RefCell<dyn Any>,
    /// The history's log as this instance's last change left it; none for
    /// a view of part of the store (a shared directory's own history).
    history: Option<WarmSlot>,
    /// When walking must stop (monotonic nanoseconds); `u64::MAX` until
    /// the first walk asks.
    deadline: Cell<u64>,
    /// The last temporary file name this call took.
    temp_names: Cell<Option<u128>>,
    /// The wall clock as first read in this call: one call is one instant
    /// (each reading is a host call).
    now: Cell<Option<u64>>,
    /// The note this call last wrote, with its bytes: the catalog takes
    /// them instead of reading the file straight back.
    written: RefCell<Option<(String, Vec<u8>)>>,
    /// Contents this call hashed, with their SHA-256: a content the history
    /// keeps and the answer names is hashed once.
    hashes: RefCell<Vec<(Vec<u8>, String)>>,
    /// Whether the warm catalog has read the journal in this call: it is
    /// not read again (the host's lock keeps other writers out meanwhile,
    /// and a save checks the journal's end whatever this says).
    journal_read: Cell<bool>,
}

impl<'a> Io<'a> {
    pub(crate) fn with_warm(
        fs: &'a dyn Storage,
        env: &'a dyn Environment,
        warm: &'a RefCell<dyn Any>,
        history: Option<WarmSlot>,
    ) -> Self {
        Self {
            fs,
            env,
            warm,
            history,
            deadline: Cell::new(u64::MAX),
            temp_names: Cell::new(None),
            now: Cell::new(None),
            written: RefCell::new(None),
            hashes: RefCell::new(Vec::new()),
            journal_read: Cell::new(false),
        }
    }

    /// What the instance keeps warm between calls.
    pub(crate) fn warm(&self) -> &RefCell<dyn Any> {
        self.warm
    }

    /// Where the history's log is kept between changes, if this call's
    /// store keeps it.
    pub(crate) fn warm_history(&self) -> Option<&WarmSlot> {
        self.history.as_ref()
    }

    /// Remembers the bytes just written to the note at `key` (its
    /// catalog key).
    pub(crate) fn remember_written(&self, key: String, bytes: &[u8]) {
        *self.written.borrow_mut() = Some((key, bytes.to_vec()));
    }

    /// The bytes this call wrote to `key`, if the file there has their
    /// size. Its stamp is taken after the write: a change by another
    /// program in between would be as unseen as one within a file time's
    /// tick, which the catalog never trusts for long (young stamps are
    /// checked again, and the sweep checks every stamp).
    pub(crate) fn take_written(&self, key: &str, size: u64) -> Option<Vec<u8>> {
        let mut written = self.written.borrow_mut();
        match written.take() {
            Some((path, bytes)) if path == key && bytes.len() as u64 == size => Some(bytes),
            other => {
                *written = other;
                None
            }
        }
    }

    /// The SHA-256 of `bytes` as 64 lowercase hex digits, hashed once per
    /// call for the last few contents of up to 1 MiB (comparing is far
    /// cheaper than hashing).
    pub fn sha256_hex(&self, bytes: &[u8]) -> String {
        const KEPT: usize = 4;
        const MAX_KEPT_BYTES: usize = 1 << 20;
        if let Some((_, sha)) = self.hashes.borrow().iter().find(|(b, _)| b == bytes) {
            return sha.clone();
        }
        let sha = crate::vocab::precondition::sha256_hex(bytes);
        if bytes.len() <= MAX_KEPT_BYTES {
            let mut hashes = self.hashes.borrow_mut();
            if hashes.len() == KEPT {
                hashes.remove(0);
            }
            hashes.push((bytes.to_vec(), sha.clone()));
        }
        sha
    }

    /// Whether the warm catalog has read the journal in this call.
    pub(crate) fn journal_read(&self) -> bool {
        self.journal_read.get()
    }

    /// Notes that the warm catalog is in step with the journal.
    pub(crate) fn mark_journal_read(&self) {
        self.journal_read.set(true);
    }

    /// Whether walking must stop now. The call's walking budget starts at
    /// the first time this is asked: however many walks a call makes, they
    /// share it (a call that never walks never reads the clock for it).
    pub fn out_of_time(&self) -> bool {
        let now = self.env.monotonic_nanos();
        if self.deadline.get() == u64::MAX {
            let budget = self
                .env
                .var(crate::vocab::settings::CALL_TIMEOUT_MS)
                .and_then(|ms| ms.trim().parse::<u64>().ok())
                .map_or(WALK_BUDGET_NANOS, |ms| {
                    (ms.saturating_mul(1_000_000) / 100 * WALK_SHARE_PERCENT).min(WALK_BUDGET_NANOS)
                });
            self.deadline.set(now.saturating_add(budget));
        }
        now >= self.deadline.get()
    }

    /// A name for a temporary file no other call or process picks: random
    /// bits once per call, counted on from there.
    pub fn temp_name(&self) -> u128 {
        let name = match self.temp_names.get() {
            Some(last) => last.wrapping_add(1),
            None => self.env.random_u128(),
        };
        self.temp_names.set(Some(name));
        name
    }

    /// The memory the search index may hold for the whole store: a quarter
    /// of what a call may use, as the host says (`MEMCAP_MEMORY_MIB`),
    /// since saving it copies it about three times over; 64 MiB (a quarter
    /// of memcap's default 256 MiB) when the host does not say.
    pub fn index_budget(&self) -> u64 {
        self.env
            .var(crate::vocab::settings::MEMORY_MIB)
            .and_then(|mib| mib.trim().parse::<u64>().ok())
            .map_or(DEFAULT_INDEX_BUDGET, |mib| mib.saturating_mul(1 << 20) / 4)
    }

    /// Wall-clock seconds since the Unix epoch, as of the call's first
    /// reading.
    pub fn now_seconds(&self) -> u64 {
        if let Some(seconds) = self.now.get() {
            return seconds;
        }
        let seconds = self.env.now_seconds();
        self.now.set(Some(seconds));
        seconds
    }

    /// Today's date in UTC, as `YYYY-MM-DD`.
    pub fn today(&self) -> String {
        let seconds = i64::try_from(self.now_seconds()).unwrap_or(i64::MAX);
        time::OffsetDateTime::from_unix_timestamp(seconds)
            .map(|t| t.date().to_string())
            .unwrap_or_else(|_| "1970-01-01".to_owned())
    }
}
