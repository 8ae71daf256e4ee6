//! The feed from the catalog to the derived indexes.

use super::FileStamp;
use crate::notes::derived;

/// The feed to the derived indexes: the batch the walks are putting
/// together, how much of it the indexes took, and the indexes.
pub(in crate::notes) struct IndexFeed {
    /// Notes put since the walks' batch began, and their bytes: what the
    /// derived indexes take in next.
    pub(in crate::notes) batch_notes: usize,
    pub(in crate::notes) batch_bytes: u64,
    /// Records of `pending` the derived indexes have taken.
    pub(in crate::notes) fed: usize,
    pub(in crate::notes) derived: derived::Derived,
    /// The last note a walk read whole (path, stamp, bytes), so the
    /// derived indexes take its text without reading it again.
    pub(in crate::notes) read_whole: Option<(String, FileStamp, Vec<u8>)>,
}
