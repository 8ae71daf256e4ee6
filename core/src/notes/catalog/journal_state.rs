//! Where an instance is in the journal, and the records it has not saved.

use crate::notes::record::Record;
use crate::storage::Meta;

/// Where this instance is in the journal, and the records it has not
/// saved yet.
#[derive(Default)]
pub(in crate::notes) struct JournalState {
    pub(in crate::notes) generation: u64,
    /// The journal's `stat` when this instance last read it whole or wrote
    /// it: while the file still stats so, nothing was added since.
    pub(in crate::notes) journal_seen: Option<Meta>,
    /// Bytes of the journal already applied (whole lines only).
    pub(in crate::notes) applied: u64,
    /// JSON records in the journal after its snapshot.
    pub(in crate::notes) records: usize,
    /// Records this instance replayed when it read the journal, until its
    /// first save.
    pub(in crate::notes) replayed: usize,
    pub(in crate::notes) pending: Vec<Record>,
}
