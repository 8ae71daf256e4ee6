//! `view`: a directory listing two levels deep, or a file with line numbers.

use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::notes::{index_file, maintain};
use crate::output::{ListedEntry, Output, Selection};
use crate::storage::{Dir, DirEntry, Kind};
use crate::vpath::MemPath;

/// The SDK refuses to show files with more lines than this.
const MAX_VIEW_LINES: usize = 999_999;
/// Entries a directory listing shows (the SDK has no limit): past this a
/// last line says the listing was cut and how to see the rest.
pub const MAX_LISTED: usize = 1000;

pub fn view(io: &Io, shown: &str, view_range: Option<(i64, i64)>) -> Result<Output> {
    let path = MemPath::parse(shown)?;
    if index_file::is_index(&path) {
        // The index is the one file whose content memcap derives: bring it up
        // to date with the notes, edited behind memcap's back or not.
        maintain::fresh(io, |_, _| Ok(()))?;
    }
    let st = match files::stat(io, &path) {
        Ok(st) => st,
        Err(FsError::NotFound | FsError::NotADirectory) => return Err(ToolError::missing(shown)),
        Err(e) => return Err(files::tool_error(e, shown, "view")),
    };
    match st.kind {
        Kind::Dir => list(io, &path, shown, st.size),
        Kind::File => show_file(io, &path, shown, view_range),
        _ => Err(ToolError::UnsupportedFileType { path: shown.into() }),
    }
}

fn show_file(io: &Io, path: &MemPath, shown: &str, range: Option<(i64, i64)>) -> Result<Output> {
    let text = files::read_text(io, path, shown)?;
    let count = text.split('\n').count();
    if count > MAX_VIEW_LINES {
        return Err(ToolError::TooManyLines { path: shown.into() });
    }
    let (start, end) = match range {
        Some(range) => select(range, count),
        None => (0, count),
    };
    Ok(Output::FileLines {
        path: shown.into(),
        sha256: io.sha256_hex(text.as_bytes()),
        first_line: start + 1,
        lines: Selection::new(text, start, end),
    })
}

/// The SDK's `view_range` rule: `lines[max(1, a) - 1 : b]` in Python slice
/// terms, with -1 as "to the end". Returns a half-open range; empty when
/// nothing is selected.
fn select((first, last): (i64, i64), len: usize) -> (usize, usize) {
    let len_i = len as i64;
    let start = (first.max(1) - 1).min(len_i);
    let end = match last {
        -1 => len_i,
        e if e < 0 => (len_i + e).max(0),
        e => e.min(len_i),
    };
    (start as usize, end.max(start) as usize)
}

fn list(io: &Io, path: &MemPath, shown: &str, own_size: u64) -> Result<Output> {
    let dir = path.key();
    let handle = io
        .fs
        .open_dir(&dir)
        .map_err(|e| files::tool_error(e, shown, "view"))?;
    let children = handle
        .list()
        .map_err(|e| files::tool_error(e, shown, "view"))?;
    let mut entries = Vec::new();
    let complete = collect(io, &*handle, children, &dir, shown, "", 1, &mut entries);
    Ok(Output::Listing {
        path: shown.into(),
        size: own_size,
        entries,
        truncated: (!complete).then_some(MAX_LISTED),
    })
}

/// Adds `children` (of root-relative `dir`, open as `handle`, shown as
/// `shown/prefix`) to `out`, depth first, like the
/// SDK's `collect`: sorted by name, hidden names skipped, links followed only
/// where the storage allows (inside the root), entries that cannot be read
/// silently left out. Returns false when [`MAX_LISTED`] entries are listed
/// and more remain.
#[allow(clippy::too_many_arguments)]
fn collect(
    io: &Io,
    handle: &dyn Dir,
    children: Vec<DirEntry>,
    dir: &str,
    shown: &str,
    prefix: &str,
    depth: u32,
    out: &mut Vec<ListedEntry>,
) -> bool {
    let mut children: Vec<DirEntry> = children
        .into_iter()
        .filter(|e| !e.name.starts_with('.'))
        .collect();
    children.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    for entry in children {
        let child = if dir.is_empty() {
            entry.name.clone()
        } else {
            format!("{dir}/{}", entry.name)
        };
        // Only links need following (the storage refuses those that leave
        // the root); a plain name is cheaper to stat without it.
        let st = match handle.stat(&entry.name, false) {
            Ok(st) if st.kind == Kind::Link => handle.stat(&entry.name, true),
            other => other,
        };
        let Ok(st) = st else {
            continue;
        };
        if !matches!(st.kind, Kind::Dir | Kind::File) {
            continue;
        }
        if out.len() == MAX_LISTED {
            return false;
        }
        let rel = if prefix.is_empty() {
            entry.name.clone()
        } else {
            format!("{prefix}/{}", entry.name)
        };
        out.push(ListedEntry {
            path: format!("{shown}/{rel}"),
            size: st.size,
            is_dir: st.kind == Kind::Dir,
        });
        if st.kind == Kind::Dir
            && depth < 2
            && let Ok(sub) = io.fs.open_dir(&child)
            && let Ok(grandchildren) = sub.list()
            && !collect(
                io,
                &*sub,
                grandchildren,
                &child,
                shown,
                &rel,
                depth + 1,
                out,
            )
        {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::select;

    #[test]
    fn ranges_follow_python_slices() {
        // "Line 1\nLine 2\nLine 3\n" splits into four items.
        let len = 4;
        assert_eq!(select((2, 3), len), (1, 3));
        assert_eq!(select((0, 1), len), (0, 1));
        assert_eq!(select((-5, 2), len), (0, 2));
        assert_eq!(select((1, -2), len), (0, 2));
        assert_eq!(select((2, -1), len), (1, 4));
        assert_eq!(select((4, 4), len), (3, 4));
        assert_eq!(select((1, 100), len), (0, 4));
        assert_eq!(select((1, i64::MAX), len), (0, 4));
        for empty in [
            (3, 2),
            (1, 0),
            (10, 20),
            (5, -1),
            (i64::MAX, -1),
            (i64::MIN, -9),
        ] {
            let (s, e) = select(empty, len);
            assert!(s >= e, "{empty:?}");
        }
    }
}
