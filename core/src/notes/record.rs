//! One change to the catalog as the journal keeps it ([`Record`]), and the
//! small types records carry: shared by the catalog, the walk and the
//! derived indexes, so none of them imports another for it.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::entry::{Entry, FileStamp};

/// A note (`false`) or directory (`true`) and its path, as
/// [`Catalog::verify_aged`](super::walk) orders those of one second.
pub(in crate::notes) type Aged = (bool, String);

/// One change to the catalog.
#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "lowercase")]
pub(in crate::notes) enum Record {
    /// Shared with the catalog: a rebuild queues every note once, not a
    /// copy of each.
    Put(Rc<Entry>),
    Del(String),
    /// A directory's stamp as of its last listing.
    Dir(String, FileStamp),
    Undir(String),
    /// When a walk last reached every file.
    Swept(u64),
    /// Where the sweep under way goes on: the next directory it takes up.
    SweepFrom(String),
    /// Where the sweep under way goes on inside a directory: the files
    /// after this one ("" for all of them).
    SweepPast(String, String),
    /// Every note and directory that changed before this second has been
    /// read or listed since its stamp grew old enough to trust.
    Verified(u64),
    /// A call spent its slice on once-more reads or the sweep in this
    /// second.
    Sliced(u64),
    /// As [`Record::Verified`], and of those that changed in this second,
    /// the ones up to this one too (notes before directories, each in path
    /// order): a second in which more changed than one call's slice can
    /// read is verified over several calls, not begun again in each.
    VerifiedPast(u64, Aged),
    /// A file that is not a note, with its size (for the quota).
    Other(String, u64),
    Unother(String),
    /// MEMORY.md was written or found to be what a render of the catalog
    /// as it then was writes; any note changed after this record undoes it.
    Index(IndexMark),
}

/// MEMORY.md as a render of the catalog left it ([`Record::Index`]): the
/// SHA-256 of its bytes (lowercase hex), and what else the render depends
/// on ([`IndexMark::key`]). Its content, not its stamp: a file just
/// written is marked at once, where a stamp could not be trusted for
/// seconds (an edit in the same clock tick keeps it), and every call
/// until then rendered the index again to compare (~20 ms at 10,000
/// notes). A mark of an earlier memcap (a stamp) no longer parses: its
/// line is skipped, and the next render marks the file again.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub(in crate::notes) struct IndexMark {
    pub sha256: String,
    pub key: u64,
    /// When a note the render listed stops holding (seconds): from then
    /// the index is rendered again, to mark it expired.
    pub until: Option<u64>,
}
