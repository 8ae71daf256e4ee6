//! MEMORY.md as an instance last read, wrote or rendered it.

use super::KeptIndex;
use crate::notes::record::IndexMark;

/// MEMORY.md as this instance last read, wrote or rendered it.
#[derive(Default)]
pub(in crate::notes) struct MemoryMdCache {
    /// MEMORY.md as this instance last read or wrote it: trusted only after
    /// a stamp check, which costs less than reading the file again.
    pub(in crate::notes) index_file: Option<KeptIndex>,
    /// MEMORY.md as the last render left it, unless a note changed since
    /// (from the journal: another process's render counts too).
    pub(in crate::notes) index_mark: Option<IndexMark>,
}
