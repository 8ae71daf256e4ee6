//! The store's quota: how many files and bytes it may hold. The host sets
//! them through the environment (`MEMCAP_MAX_FILES`, `MEMCAP_MAX_BYTES`;
//! memcap's host always does, other hosts may with `--env`); without them
//! the defaults below hold. A change that would pass either is refused
//! before anything is written.

use crate::error::{Result, ToolError};
use crate::io::Io;
use crate::notes::maintain;
use crate::vocab::settings;
use crate::vpath::MemPath;

/// Files a store may hold unless the host says otherwise.
pub const DEFAULT_MAX_FILES: u64 = 200_000;
/// Bytes a store may hold unless the host says otherwise (1 GiB).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

fn limit(io: &Io, name: &str, default: u64) -> u64 {
    io.env
        .var(name)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Refuses a write that would leave `path` holding `new_text` when the
/// store would then pass its quota. Counts every file outside `.memcap`, as
/// memcap last saw them (files other programs added since are counted from
/// the next call that looks at the whole store), and room for what the
/// change adds to MEMORY.md: a note's line, its group's heading, and the
/// file itself when it is not there yet.
pub fn check(io: &Io, path: &MemPath, shown: &str, new_text: &str) -> Result<()> {
    let (files, bytes) = maintain::usage_after(io, path, new_text)?;
    let max_files = limit(io, settings::MAX_FILES, DEFAULT_MAX_FILES);
    let max_bytes = limit(io, settings::MAX_BYTES, DEFAULT_MAX_BYTES);
    let (unit, count, limit) = if files > max_files {
        ("files", files, max_files)
    } else if bytes > max_bytes {
        ("bytes", bytes, max_bytes)
    } else {
        return Ok(());
    };
    Err(ToolError::OverQuota {
        path: shown.into(),
        unit,
        count,
        limit,
    })
}
