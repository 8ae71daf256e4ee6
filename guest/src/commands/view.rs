//! `view`: a directory listing two levels deep, or a file with line numbers.

use wasip2::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags,
};

use crate::error::{Result, ToolError};
use crate::fs;
use crate::notes::maintain;
use crate::text::{format_size, numbered};
use crate::vpath::MemPath;

/// The SDK refuses to show files with more lines than this.
const MAX_VIEW_LINES: usize = 999_999;
/// Entries a directory listing shows (the SDK has no limit): past this a
/// last line says the listing was cut and how to see the rest.
pub const MAX_LISTED: usize = 1000;

pub fn view(root: &Descriptor, shown: &str, view_range: Option<(i64, i64)>) -> Result<String> {
    let path = MemPath::parse(shown)?;
    if maintain::is_index(&path) {
        // The index is the one file whose content memcap derives: bring it up
        // to date with the notes, edited behind memcap's back or not.
        maintain::fresh(root, |_, _| Ok(()))?;
    }
    let st = match fs::stat(root, &path) {
        Ok(st) => st,
        Err(ErrorCode::NoEntry | ErrorCode::NotDirectory) => return Err(ToolError::missing(shown)),
        Err(e) => return Err(fs::tool_error(e, shown, "view")),
    };
    match st.type_ {
        DescriptorType::Directory => list(root, &path, shown, st.size),
        DescriptorType::RegularFile => show_file(root, &path, shown, view_range),
        _ => Err(ToolError::UnsupportedFileType { path: shown.into() }),
    }
}

fn show_file(
    root: &Descriptor,
    path: &MemPath,
    shown: &str,
    range: Option<(i64, i64)>,
) -> Result<String> {
    let text = fs::read_text(root, path, shown)?;
    let lines: Vec<&str> = text.split('\n').collect();
    if lines.len() > MAX_VIEW_LINES {
        return Err(ToolError::TooManyLines { path: shown.into() });
    }
    let (start, end) = match range {
        Some(range) => select(range, lines.len()),
        None => (0, lines.len()),
    };
    let mut out = format!("Here's the content of {shown} with line numbers:\n");
    if start < end {
        numbered(&mut out, start + 1, lines[start..end].iter().copied());
    }
    Ok(out)
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

fn list(root: &Descriptor, path: &MemPath, shown: &str, own_size: u64) -> Result<String> {
    let mut out = format!(
        "Here're the files and directories up to 2 levels deep in {shown}, excluding hidden items:\n{}\t{shown}",
        format_size(own_size)
    );
    let dir = root
        .open_at(
            PathFlags::SYMLINK_FOLLOW,
            &path.relative(),
            OpenFlags::DIRECTORY,
            DescriptorFlags::READ,
        )
        .map_err(|e| fs::tool_error(e, shown, "view"))?;
    let mut room = MAX_LISTED;
    if !collect(&dir, shown, "", 1, &mut room, &mut out) {
        out.push_str(&format!(
            "\n… the listing stops here: memcap lists at most {MAX_LISTED} entries. \
             View a subdirectory to see what it holds."
        ));
    }
    Ok(out)
}

/// Appends the entries of `dir`, depth first, like the SDK's `collect`: sorted
/// by name, hidden names skipped, links followed only where WASI allows (inside
/// the root), entries that cannot be read silently left out.
/// Returns false when `room` (entries still allowed) ran out.
fn collect(
    dir: &Descriptor,
    shown: &str,
    prefix: &str,
    depth: u32,
    room: &mut usize,
    out: &mut String,
) -> bool {
    let Ok(stream) = dir.read_directory() else {
        return true;
    };
    let mut names = Vec::new();
    while let Ok(Some(entry)) = fs::next_entry(&stream) {
        if !entry.name.starts_with('.') {
            names.push(entry.name);
        }
    }
    names.sort_unstable();
    for name in names {
        // Only links need following (WASI refuses those that leave the
        // root); a plain name is cheaper to stat without it.
        let st = match dir.stat_at(PathFlags::empty(), &name) {
            Ok(st) if st.type_ == DescriptorType::SymbolicLink => {
                dir.stat_at(PathFlags::SYMLINK_FOLLOW, &name)
            }
            other => other,
        };
        let Ok(st) = st else {
            continue;
        };
        if matches!(
            st.type_,
            DescriptorType::Directory | DescriptorType::RegularFile
        ) {
            if *room == 0 {
                return false;
            }
            *room -= 1;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        match st.type_ {
            DescriptorType::Directory => {
                out.push_str(&format!("\n{}\t{shown}/{rel}/", format_size(st.size)));
                if depth < 2
                    && let Ok(child) = dir.open_at(
                        PathFlags::SYMLINK_FOLLOW,
                        &name,
                        OpenFlags::DIRECTORY,
                        DescriptorFlags::READ,
                    )
                    && !collect(&child, shown, &rel, depth + 1, room, out)
                {
                    return false;
                }
            }
            DescriptorType::RegularFile => {
                out.push_str(&format!("\n{}\t{shown}/{rel}", format_size(st.size)));
            }
            _ => {}
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
