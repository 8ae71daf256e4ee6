//! A store's files as plain entries, for copying a whole store between
//! backends (`memcap copy`): its directories and files, and its version
//! history (`.memcap/history`, which cannot be rebuilt); the rest of
//! memcap's own `.memcap` is left out (the derived state is rebuilt where
//! they land).

use memcap_core::layout::{HISTORY_DIR, RESERVED};

/// One directory or file of a store, by its path under the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Dir(String),
    File(String, Vec<u8>),
}

impl Entry {
    pub fn path(&self) -> &str {
        match self {
            Entry::Dir(path) | Entry::File(path, _) => path,
        }
    }
}

/// A change the host makes to one path of a store behind the component's
/// back, as another program would ([`crate::Memory::host_edit`]).
#[derive(Clone, Copy, Debug)]
pub enum HostEdit<'a> {
    /// Writes the file (in place if it exists), making its parents.
    Write(&'a [u8]),
    /// Makes the directory and its parents.
    MakeDir,
    /// Sets the file's modification time.
    Modified(std::time::SystemTime),
    /// Removes the file, or the directory and all in it.
    Remove,
    /// Renames the file or directory to this path (in the same store),
    /// replacing a file there.
    RenameTo(&'a str),
}

/// What a store holds that an export leaves out, and why (for the person
/// running `memcap copy`, who is told each one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Its path under the root, as well as it can be spelt.
    pub path: String,
    pub why: String,
}

/// A store's entries, and what was left out of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exported {
    pub entries: Vec<Entry>,
    pub skipped: Vec<Skipped>,
    /// The version history's own files (`.memcap/history/...`), when the
    /// export was asked for them ([`crate::Memory::export_with_history`]).
    pub history: Vec<Entry>,
}

/// Which of memcap's own files (under `.memcap`) an export takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reserved {
    /// None of them.
    Left,
    /// The version history's (and `.memcap` itself, to reach them).
    History,
    /// All of them.
    All,
}

impl Reserved {
    /// Whether an export takes `path` (under the root).
    pub(crate) fn takes(self, path: &str) -> bool {
        if !is_reserved(path) {
            return true;
        }
        match self {
            Reserved::Left => false,
            Reserved::History => path == RESERVED || in_history(path),
            Reserved::All => true,
        }
    }
}

/// Whether `path` (under the root) is the version history's directory or
/// lies in it.
pub(crate) fn in_history(path: &str) -> bool {
    path.strip_prefix(HISTORY_DIR)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Why a store could not be copied out or in. For the person running
/// memcap (it may name host paths).
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error(
        "the destination already holds files: copy into an empty store, or pass --replace to replace what is there"
    )]
    NotEmpty,
    #[error("{0:?} cannot be copied: {1}")]
    Refused(String, &'static str),
    #[error(
        "{0} holds files but is not a memcap store (it has no .memcap): copy into an empty directory or a store, so nothing else is replaced"
    )]
    NotAStore(std::path::PathBuf),
    #[error(
        "the copy holds {count} {unit}, past the destination's quota of {limit}: nothing was copied; copy a smaller store, or open the destination with a larger --max-files / --max-bytes"
    )]
    OverQuota {
        unit: &'static str,
        count: u64,
        limit: u64,
    },
    #[error(
        "the destination keeps a version history of its own, which a copy does not mix with another: pass --no-history to copy the files without the source's history (the destination's records them), or --replace to replace the destination's files and keep its history"
    )]
    HasHistory,
    #[error("could not read or write the store: {0}")]
    Io(String),
    #[error(transparent)]
    Call(#[from] crate::error::ToolError),
}

/// memcap's own rules for what a store holds, applied to an import before
/// anything is written: every file within the size memcap reads and writes
/// (8 MiB), no name with a control or invisible character (memcap never
/// makes one: such a name could forge lines of the index), and the whole
/// within the destination's quota of files and bytes.
pub(crate) fn check_limits(entries: &[Entry], limits: &crate::Limits) -> Result<(), CopyError> {
    let (mut files, mut bytes) = (0u64, 0u64);
    for entry in entries {
        let path = entry.path();
        if memcap_core::text::unsafe_char(path).is_some() {
            return Err(CopyError::Refused(
                path.to_owned(),
                "its name has a control or invisible character, which memcap never makes (rename it in the source)",
            ));
        }
        if let Entry::File(_, data) = entry {
            if data.len() as u64 > memcap_core::files::MAX_FILE_BYTES {
                return Err(CopyError::Refused(
                    path.to_owned(),
                    "it is over 8 MiB, the most memcap reads or writes in one file (split it in the source)",
                ));
            }
            files += 1;
            bytes += data.len() as u64;
        }
    }
    for (unit, count, limit) in [
        ("files", files, limits.max_store_files),
        ("bytes", bytes, limits.max_store_bytes),
    ] {
        if count > limit {
            return Err(CopyError::OverQuota { unit, count, limit });
        }
    }
    Ok(())
}

/// The history a copy carries, checked before anything is changed: every
/// entry lies in `.memcap/history` (spelt as memcap spells it) on a plain
/// relative path, and goes only into a store that is not being replaced
/// (a store replaced keeps its own history).
pub(crate) fn check_history(history: &[Entry], replace: bool) -> Result<(), CopyError> {
    if replace && !history.is_empty() {
        return Err(CopyError::Refused(
            HISTORY_DIR.to_owned(),
            "a store replaced keeps its own history; a copy's is carried only into a new store",
        ));
    }
    for entry in history {
        let path = entry.path();
        if !in_history(path)
            || path
                .split('/')
                .any(|p| p.is_empty() || p == "." || p == ".." || p.contains('\0'))
        {
            return Err(CopyError::Refused(
                path.to_owned(),
                "not a file of the version history",
            ));
        }
    }
    Ok(())
}

/// Whether `path` (under the root) is memcap's own: `.memcap` in any
/// spelling a case-insensitive file system opens as it, so a copy can
/// never carry `.MEMCAP/…` from one store onto another's own directory.
pub(crate) fn is_reserved(path: &str) -> bool {
    memcap_core::layout::is_reserved(path.split('/'))
}

/// The `import` contract both backends keep, checked before anything is
/// changed: every entry is a plain relative path (no empty, `.` or `..`
/// part, no NUL, not absolute) outside memcap's own `.memcap`, no file is
/// given twice, and no path is both a file and a directory. A store that
/// is refused keeps everything it held, even with `replace`.
pub(crate) fn check_import(entries: &[Entry]) -> Result<(), CopyError> {
    use std::collections::BTreeMap;
    let mut kinds: BTreeMap<&str, bool> = BTreeMap::new();
    for entry in entries {
        let path = entry.path();
        if is_reserved(path) {
            return Err(CopyError::Refused(
                path.to_owned(),
                "memcap keeps its own files there",
            ));
        }
        if path
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == ".." || p.contains('\0'))
        {
            return Err(CopyError::Refused(
                path.to_owned(),
                "not a plain relative path under the root",
            ));
        }
        let is_file = matches!(entry, Entry::File(..));
        match kinds.insert(path, is_file) {
            Some(true) if is_file => {
                return Err(CopyError::Refused(path.to_owned(), "is given twice"));
            }
            Some(was_file) if was_file != is_file => {
                return Err(CopyError::Refused(
                    path.to_owned(),
                    "is given as a file and as a directory",
                ));
            }
            _ => {}
        }
    }
    // A file cannot hold another entry: any path under a file's is refused.
    for path in kinds.keys() {
        let mut parent = *path;
        while let Some((up, _)) = parent.rsplit_once('/') {
            if kinds.get(up) == Some(&true) {
                return Err(CopyError::Refused(
                    (*path).to_owned(),
                    "lies under a path that is given as a file",
                ));
            }
            parent = up;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_spelling_of_memcaps_own_directory_is_imported() {
        for path in [
            ".memcap/history/log.jsonl",
            ".MEMCAP/history/log.jsonl",
            ".memcap./x",
            "MEMCAP~1/x",
        ] {
            let refused = check_import(&[Entry::File(path.to_owned(), b"{}\n".to_vec())]);
            assert!(matches!(refused, Err(CopyError::Refused(..))), "{path}");
        }
        assert!(check_import(&[Entry::File("notes/.memcap.md".to_owned(), Vec::new())]).is_ok());
    }

    #[test]
    fn a_carried_history_holds_only_the_historys_files() {
        let file = |path: &str| Entry::File(path.to_owned(), b"{}\n".to_vec());
        for path in [
            ".memcap/history/log.jsonl",
            ".memcap/history/blobs/ab",
            ".memcap/history",
        ] {
            assert!(check_history(&[file(path)], false).is_ok(), "{path}");
            assert!(check_history(&[file(path)], true).is_err(), "{path}");
        }
        for path in [
            ".memcap/catalog",
            ".memcap/historyx/log.jsonl",
            ".MEMCAP/history/log.jsonl",
            ".memcap/history/../journal",
            ".memcap/history//x",
            "notes/a.md",
        ] {
            assert!(check_history(&[file(path)], false).is_err(), "{path}");
        }
        assert!(Reserved::History.takes(".memcap"));
        assert!(Reserved::History.takes(".memcap/history/blobs/ab"));
        assert!(!Reserved::History.takes(".memcap/journal"));
        assert!(Reserved::History.takes("notes/a.md"));
        assert!(!Reserved::Left.takes(".memcap/history/log.jsonl"));
    }
}
