//! Typed notes: the catalog that remembers what memcap read from each
//! note's frontmatter (parsed by `memcap_core::notes`), and the index
//! (`/memories/MEMORY.md`) built from it.

pub mod catalog;
pub mod index;
mod journal;
pub mod maintain;
mod snapshot;
mod walk;

pub use memcap_core::notes::{INDEX_FILE, NoteType, frontmatter, is_note_path, topics};

/// Today's date in UTC, as `YYYY-MM-DD`, from the host's wall clock.
pub fn today() -> String {
    let now = wasip2::clocks::wall_clock::now();
    let seconds = i64::try_from(now.seconds).unwrap_or(i64::MAX);
    time::OffsetDateTime::from_unix_timestamp(seconds)
        .map(|t| t.date().to_string())
        .unwrap_or_else(|_| "1970-01-01".to_owned())
}
