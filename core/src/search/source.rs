//! Which search source a note belongs to: `custom` inside an extra
//! directory the host granted, `chat` in the recorded conversation history
//! (`chat/`), `memory` everywhere else (shared directories included).

use crate::io::Io;
use crate::layout::CHAT;
use crate::storage::Grant;
use crate::vocab::Source;

/// The source of the note at root-relative `path`.
pub fn source_of(io: &Io, path: &str) -> Source {
    match io.fs.grant(path) {
        Grant::Extra => Source::Custom,
        Grant::Shared => Source::Memory,
        Grant::Root if path.split('/').next() == Some(CHAT) => Source::Chat,
        Grant::Root => Source::Memory,
    }
}
