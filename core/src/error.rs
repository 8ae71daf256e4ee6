//! The failures a command can report, each with the exact message the model
//! sees. No file system here: a storage adapter reports its failures as [`FsError`].
//! Long on purpose: every message memcap writes is in the one `Display`
//! below, so wording is checked and changed in one place.

/// What kind of failure a call hit: the WIT `tool-error` cases, plus
/// `Denied` and `InvalidInput` (which reach hosts as `io` and `invalid-path`),
/// plus what only a host can see (a call it stopped). The host library
/// exports this as `memcap::ToolErrorKind`. Answers name it as the WIT
/// case does (`not-found`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    InvalidPath,
    Escape,
    Protected,
    NotFound,
    AlreadyExists,
    NotAFile,
    NotADirectory,
    NoMatch,
    MultipleMatches,
    InvalidLine,
    NotText,
    TooLarge,
    Conflict,
    Io,
    /// The storage refused a write (read-only, or permission denied); shown
    /// to hosts as `io`. Reads still work on such a store.
    Denied,
    /// `memory_write` got a note it cannot save (an empty name).
    InvalidNote,
    /// Malformed tool input (only `call` parses it).
    InvalidInput,
    /// The host stopped the call at its time limit.
    TimedOut,
    /// The guest needed more memory than the host's limit.
    OutOfMemory,
    /// The guest trapped for another reason (a bug in memcap).
    GuestFailure,
}

/// A failed command, with what the message needs: every message the model
/// can get is written once, in the `Display` below, and the kind (the WIT
/// `tool-error` case) follows from the variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolError {
    // Paths (`vpath.rs`).
    /// The SDK's wording for a path outside `/memories`.
    OutsideRoot {
        path: String,
    },
    /// The SDK's wording for a path that does not start with `/memories`.
    NotUnderRoot {
        path: String,
    },
    PathHasNul {
        path: String,
    },
    PathTooLong {
        path: String,
        max: usize,
    },
    NameTooLong {
        path: String,
        max: usize,
    },
    Reserved {
        path: String,
    },
    /// A new name with a control or invisible character.
    UnsafeName {
        path: String,
        found: char,
    },
    /// The SDK's message for a path that resolves outside the root.
    Escape {
        path: String,
    },
    /// A file-system failure on `path` while memcap tried `doing` it.
    Fs {
        error: FsError,
        path: String,
        doing: &'static str,
    },

    // Finding and reading files.
    /// The SDK's "does not exist" message used by view, str_replace and insert.
    Missing {
        path: String,
    },
    /// The wording delete and rename use.
    NoSuchPath {
        path: String,
    },
    NoSuchNote {
        path: String,
    },
    /// `build_context`: no note has the name a URL gives, or none of those
    /// matching changed in the timeframe.
    NoNoteAt {
        url: String,
        matched_before_timeframe: usize,
    },
    NotAFile {
        path: String,
    },
    UnsupportedFileType {
        path: String,
    },
    /// Gone between being found and being opened.
    Vanished {
        path: String,
    },
    NotText {
        path: String,
    },
    TooManyLines {
        path: String,
    },

    // Writing.
    FileExists {
        path: String,
    },
    DestinationExists {
        path: String,
    },
    ParentIsFile {
        path: String,
        parent: String,
    },
    TextHasNul {
        path: String,
    },
    NoteHasNul {
        path: String,
    },
    FileTooLarge {
        path: String,
        size: u64,
        max: u64,
    },
    OverQuota {
        path: String,
        /// "files" or "bytes".
        unit: &'static str,
        count: u64,
        limit: u64,
    },
    ChangedMeanwhile {
        path: String,
    },
    /// A write's `content_sha256` precondition did not hold: the file's
    /// content has another hash (`current`), or there is no file (`None`).
    PreconditionFailed {
        path: String,
        expected: String,
        current: Option<String>,
        /// The path is a directory, not a file.
        directory: bool,
    },
    DeleteRoot,
    RenameRoot,

    // History.
    /// No version `version` of `path` in the history.
    NoSuchVersion {
        path: String,
        version: u64,
    },
    /// The version's content was erased by `by` at `at`.
    VersionRedacted {
        path: String,
        version: u64,
        by: String,
        at: String,
    },
    /// The version's content is no longer kept (retention dropped it).
    VersionPruned {
        path: String,
        version: u64,
    },
    /// The version removed the file: it has no content to give back.
    VersionIsDeletion {
        path: String,
        version: u64,
    },
    /// The version's content is what a file holds now.
    RedactCurrent {
        path: String,
        version: u64,
    },
    MoveIntoItself {
        from: String,
        to: String,
    },

    // Edits.
    NoMatch {
        old_str: String,
        path: String,
    },
    /// `lines` lists where, already cut short with "…" when there are many.
    MultipleMatches {
        old_str: String,
        lines: Vec<String>,
    },
    InvalidLine {
        line: i64,
        count: usize,
    },
    /// `memory_get` asked for lines that start past the file's end.
    LinesPastEnd {
        path: String,
        first: u32,
        count: usize,
    },

    // Notes.
    NoteNameAbsolute {
        filename: String,
    },
    NoteNameIsDirectory {
        filename: String,
    },
    IndexIsNotANote,
    /// A change the agent asked for in `/memories/chat`, the host's.
    ChatIsTheHosts {
        path: String,
    },
    NoteNeedsName,
    FieldTooLong {
        field: &'static str,
        chars: usize,
        max: usize,
    },
    NoteIsNotAFile {
        path: String,
    },
    NoteIsDirectory {
        path: String,
    },
    UpdateBreaksNote {
        path: String,
        problem: String,
    },
    IndexIsNotAFile {
        path: String,
    },
    NoteVanished,

    // The host's grant, and the tool input itself.
    NoRoot,
    NoRootAmongSeveral,
    /// Malformed tool input; `problem` says what is wrong with it.
    InvalidInput {
        problem: String,
    },
    /// A line of tool input over the host's limit.
    InputTooLarge {
        max: usize,
    },
}

impl ToolError {
    /// The SDK's message for a path that resolves outside the root.
    pub fn escape(path: &str) -> Self {
        Self::Escape {
            path: path.to_owned(),
        }
    }

    /// The SDK's "does not exist" message used by view, str_replace and insert.
    pub fn missing(path: &str) -> Self {
        Self::Missing {
            path: path.to_owned(),
        }
    }

    /// The failure's kind, as the WIT `tool-error` cases name it.
    pub fn kind(&self) -> ErrorKind {
        use ErrorKind as K;
        match self {
            Self::OutsideRoot { .. }
            | Self::NotUnderRoot { .. }
            | Self::PathHasNul { .. }
            | Self::PathTooLong { .. }
            | Self::NameTooLong { .. }
            | Self::Reserved { .. }
            | Self::UnsafeName { .. }
            | Self::NoteNameAbsolute { .. }
            | Self::NoteNameIsDirectory { .. } => K::InvalidPath,
            Self::ChatIsTheHosts { .. } => K::Protected,
            Self::Escape { .. } => K::Escape,
            Self::Fs { error, .. } => match error {
                FsError::NotFound => K::NotFound,
                FsError::Escape => K::Escape,
                FsError::Loop | FsError::NameTooLong | FsError::BadName => K::InvalidPath,
                FsError::NotADirectory => K::NotADirectory,
                FsError::OutOfSpace
                | FsError::Exists
                | FsError::IsDirectory
                | FsError::Damaged
                | FsError::Other => K::Io,
                FsError::ReadOnly | FsError::Denied => K::Denied,
                FsError::TooLarge => K::TooLarge,
                FsError::MountPoint => K::Protected,
                FsError::CrossMount => K::InvalidPath,
            },
            Self::Missing { .. }
            | Self::NoSuchPath { .. }
            | Self::NoSuchNote { .. }
            | Self::NoNoteAt { .. }
            | Self::NoSuchVersion { .. }
            | Self::VersionRedacted { .. }
            | Self::VersionPruned { .. }
            | Self::VersionIsDeletion { .. } => K::NotFound,
            Self::RedactCurrent { .. } => K::Protected,
            Self::NotAFile { .. }
            | Self::UnsupportedFileType { .. }
            | Self::NoteIsNotAFile { .. }
            | Self::NoteIsDirectory { .. }
            | Self::IndexIsNotAFile { .. } => K::NotAFile,
            Self::Vanished { .. }
            | Self::ChangedMeanwhile { .. }
            | Self::PreconditionFailed { .. }
            | Self::NoteVanished => K::Conflict,
            Self::NotText { .. } | Self::TextHasNul { .. } | Self::NoteHasNul { .. } => K::NotText,
            Self::TooManyLines { .. }
            | Self::FileTooLarge { .. }
            | Self::OverQuota { .. }
            | Self::InputTooLarge { .. } => K::TooLarge,
            Self::FileExists { .. } | Self::DestinationExists { .. } => K::AlreadyExists,
            Self::ParentIsFile { .. } | Self::MoveIntoItself { .. } => K::NotADirectory,
            Self::DeleteRoot | Self::RenameRoot | Self::IndexIsNotANote => K::Protected,
            Self::NoMatch { .. } => K::NoMatch,
            Self::MultipleMatches { .. } => K::MultipleMatches,
            Self::InvalidLine { .. } | Self::LinesPastEnd { .. } => K::InvalidLine,
            Self::NoteNeedsName | Self::FieldTooLong { .. } | Self::UpdateBreaksNote { .. } => {
                K::InvalidNote
            }
            Self::NoRoot | Self::NoRootAmongSeveral => K::Io,
            Self::InvalidInput { .. } => K::InvalidInput,
        }
    }

    /// Maps a file-system error on `path` to its fixed message. OS error
    /// text never reaches the model: only these fixed sentences do.
    pub fn from_fs(error: FsError, path: &str, doing: &'static str) -> Self {
        Self::Fs {
            error,
            path: path.to_owned(),
            doing,
        }
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::OutsideRoot { path } => {
                write!(
                    f,
                    "Path must be /memories or start with /memories/, got: {path}"
                )
            }
            Self::NotUnderRoot { path } => write!(f, "Path must start with /memories, got: {path}"),
            Self::PathHasNul { path } => write!(f, "Path {path} contains a NUL character"),
            Self::PathTooLong { path, max } => write!(f, "Path {path} is longer than {max} bytes"),
            Self::NameTooLong { path, max } => {
                write!(f, "Path {path} has a name longer than {max} bytes")
            }
            Self::Reserved { path } => write!(
                f,
                "Path {path} is reserved for memcap's own files; use another name"
            ),
            Self::UnsafeName { path, found } => write!(
                f,
                "Path {} has a control or invisible character (U+{:04X}) in a name; \
                 memcap does not create such names. Choose a name without it.",
                path.escape_debug(),
                *found as u32
            ),
            Self::Escape { path } => write!(f, "Path {path} would escape /memories directory"),
            Self::Fs { error, path, doing } => match error {
                FsError::NotFound => Self::missing(path).fmt(f),
                FsError::Escape => Self::escape(path).fmt(f),
                FsError::Loop => write!(f, "Path {path} runs through a symbolic link loop"),
                FsError::NameTooLong => write!(f, "Path {path} is too long for the file system"),
                FsError::BadName => {
                    write!(f, "Path {path} is not a name the file system accepts")
                }
                FsError::NotADirectory => write!(
                    f,
                    "Could not {doing} {path}: a parent of it is a file, not a directory"
                ),
                FsError::OutOfSpace => write!(
                    f,
                    "Could not {doing} {path}: the memory directory is out of space. Nothing was changed."
                ),
                FsError::ReadOnly => write!(
                    f,
                    "Could not {doing} {path}: it is in a read-only directory, so nothing was changed"
                ),
                FsError::Denied => write!(f, "Could not {doing} {path}: permission denied"),
                FsError::TooLarge => write!(f, "Could not {doing} {path}: the file is too large"),
                FsError::MountPoint => write!(
                    f,
                    "Could not {doing} {path}: /memories/shared, /memories/extra and the directories \
                     in them are set up by the host; only the files inside a shared directory can change"
                ),
                FsError::CrossMount => write!(
                    f,
                    "Could not {doing} {path}: a shared directory is a separate store, so nothing \
                     moves in or out of it. Create the file at the new place, then delete the old one."
                ),
                FsError::Exists | FsError::IsDirectory | FsError::Damaged | FsError::Other => {
                    write!(
                        f,
                        "Could not {doing} {path}: the file system reported an error. Nothing was changed."
                    )
                }
            },
            Self::Missing { path } => write!(
                f,
                "The path {path} does not exist. Please provide a valid path."
            ),
            Self::NoSuchPath { path } => write!(f, "The path {path} does not exist"),
            Self::NoSuchNote { path } => write!(
                f,
                "The note {path} does not exist. memory_read lists every memory file."
            ),
            Self::NoNoteAt {
                url,
                matched_before_timeframe: 0,
            } => write!(
                f,
                "No note matches {url}. A memory:// URL names a note by its permalink, title or \
                 path (memory://projects/alpha), or several with * (memory://projects/*); \
                 memory_search finds notes by what they say."
            ),
            Self::NoNoteAt {
                url,
                matched_before_timeframe: 1,
            } => write!(
                f,
                "1 note matches {url}, but it did not change in the timeframe: ask again \
                 with a longer timeframe, or without one."
            ),
            Self::NoNoteAt {
                url,
                matched_before_timeframe,
            } => write!(
                f,
                "{matched_before_timeframe} notes match {url}, but none changed in the \
                 timeframe: ask again with a longer timeframe, or without one."
            ),
            Self::NotAFile { path } => write!(f, "The path {path} is not a file."),
            Self::UnsupportedFileType { path } => write!(f, "Unsupported file type for {path}"),
            Self::Vanished { path } => write!(
                f,
                "The file {path} no longer exists (may have been deleted or renamed concurrently)."
            ),
            Self::NotText { path } => write!(
                f,
                "The file {path} is not UTF-8 text (it is binary or in another encoding), \
                 so memcap cannot show or edit it. It can still be renamed or deleted."
            ),
            Self::TooManyLines { path } => write!(
                f,
                "File {path} exceeds maximum line limit of 999,999 lines."
            ),
            Self::FileExists { path } => write!(f, "File {path} already exists"),
            Self::DestinationExists { path } => {
                write!(f, "The destination {path} already exists")
            }
            Self::ParentIsFile { path, parent } => write!(
                f,
                "Cannot create {path}: {parent} is a file, not a directory"
            ),
            Self::TextHasNul { path } => write!(
                f,
                "Cannot create {path}: file_text contains a NUL character; memory files are text"
            ),
            Self::NoteHasNul { path } => write!(
                f,
                "Cannot write {path}: the note contains a NUL character; notes are text"
            ),
            Self::FileTooLarge { path, size, max } => write!(
                f,
                "The file {path} would be {size} bytes; memcap keeps files up to {max} \
                 bytes ({} MiB). Split the content into several files.",
                max >> 20
            ),
            Self::OverQuota {
                path,
                unit,
                count,
                limit,
            } => write!(
                f,
                "Cannot write {path}: the memory would then hold {count} {unit}, over its limit \
                 of {limit}. Nothing was written. Delete files that are no longer needed, or ask \
                 whoever runs memcap to raise the limit."
            ),
            Self::ChangedMeanwhile { path } => write!(
                f,
                "The file {path} was changed by someone else while this edit ran; \
                 nothing was written. View it again and retry."
            ),
            Self::PreconditionFailed {
                path,
                expected,
                current,
                directory,
            } => {
                write!(
                    f,
                    "Conflict: the precondition content_sha256 {expected} does not hold for {path}: "
                )?;
                match (current, directory) {
                    (Some(current), _) => write!(f, "its content's SHA-256 is now {current}")?,
                    (None, true) => {
                        f.write_str("it is a directory, and a precondition names a file's content")?
                    }
                    (None, false) => f.write_str("there is no such file")?,
                }
                f.write_str(
                    ". Nothing was changed. View it again and decide from what it holds now.",
                )
            }
            Self::NoSuchVersion { path, version } => write!(
                f,
                "The history has no version {version} of {path}. List its versions first \
                 (memory_history with just the path, or `memcap history list PATH`)."
            ),
            Self::VersionRedacted {
                path,
                version,
                by,
                at,
            } => write!(
                f,
                "Version {version} of {path} was redacted by {by} at {at}: its content is \
                 erased for good."
            ),
            Self::VersionPruned { path, version } => write!(
                f,
                "The content of version {version} of {path} is no longer kept (history keeps \
                 a bounded number of days and bytes). Pick a newer version."
            ),
            Self::VersionIsDeletion { path, version } => write!(
                f,
                "Version {version} of {path} removed it, so it has no content to give back. \
                 Pick the version before it."
            ),
            Self::RedactCurrent { path, version } => write!(
                f,
                "Version {version} of {path} holds what a file holds now, so erasing it from \
                 history would not forget it. Change or delete the file first, then redact; \
                 nothing was redacted."
            ),
            Self::DeleteRoot => f.write_str("Cannot delete the /memories directory itself"),
            Self::RenameRoot => f.write_str("Cannot rename the /memories directory itself"),
            Self::MoveIntoItself { from, to } => {
                write!(f, "Cannot move {from} into itself ({to})")
            }
            Self::NoMatch { old_str, path } => write!(
                f,
                "No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}."
            ),
            Self::MultipleMatches { old_str, lines } => write!(
                f,
                "No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: {}. Please ensure it is unique",
                lines.join(", ")
            ),
            Self::InvalidLine { line, count } => write!(
                f,
                "Invalid `insert_line` parameter: {line}. It should be within the range [0, {count}]."
            ),
            Self::LinesPastEnd { path, first, count } => write!(
                f,
                "{path} has {count} lines, so there is no line {first}: ask for lines from 1 \
                 to {count}, or call memory_get without lines for the top of the file."
            ),
            Self::NoteNameAbsolute { filename } => write!(
                f,
                "Note filename {filename} must be relative to /memories (like prefs/coffee.md) \
                 or start with /memories/"
            ),
            Self::NoteNameIsDirectory { filename } => write!(
                f,
                "Note filename {filename:?} names a directory; give a file name such as coffee.md"
            ),
            Self::ChatIsTheHosts { path } => write!(
                f,
                "Could not change {path}: /memories/chat is where the host records the \
                 conversation's turns. Read them (view, memory_get, memory_search with source \
                 \"chat\"), but save your own notes elsewhere, such as /memories/notes/. \
                 Nothing was changed."
            ),
            Self::IndexIsNotANote => f.write_str(
                "/memories/MEMORY.md is the index memcap keeps; it is not a note. Write notes to \
                 other files; your own text in MEMORY.md goes outside its generated region \
                 (edit it with str_replace or insert).",
            ),
            Self::NoteNeedsName => f.write_str(
                "A note needs a name: a few words the index shows, such as \"Coffee preference\".",
            ),
            Self::FieldTooLong { field, chars, max } => write!(
                f,
                "The note's {field} is {chars} characters; memcap takes up to {max}. \
                 Keep the {field} short and put the details in content."
            ),
            Self::NoteIsNotAFile { path } => write!(
                f,
                "{path} is a directory or special file, not a note; choose another filename"
            ),
            Self::NoteIsDirectory { path } => write!(
                f,
                "{path} is a directory; memory_delete removes one note. \
                 The delete command removes a directory with everything in it."
            ),
            Self::UpdateBreaksNote { path, problem } => write!(
                f,
                "No replacement was performed: after it {path} would not be a valid note \
                 ({problem}). Change the text below the frontmatter, or rewrite the note \
                 with memory_write to change its name, description or type."
            ),
            Self::IndexIsNotAFile { path } => write!(
                f,
                "{path} is not a file, so memcap cannot keep the index there; rename or delete it"
            ),
            Self::NoteVanished => {
                f.write_str("A note disappeared while memcap indexed the notes; retry.")
            }
            Self::NoRoot => f.write_str(
                "memcap has no memory directory: the host must grant exactly one directory \
                 (for example `wasmtime run --dir ./memories::/memories`)",
            ),
            Self::NoRootAmongSeveral => f.write_str(
                "memcap was granted several directories and none is named /memories: \
                 grant only the memory directory",
            ),
            Self::InvalidInput { problem } => f.write_str(problem),
            Self::InputTooLarge { max } => write!(
                f,
                "The tool input is over {max} bytes, memcap's limit per call. \
                 Split the content into several smaller files."
            ),
        }
    }
}

pub type Result<T, E = ToolError> = std::result::Result<T, E>;

/// What a file-system operation failed with, in the terms memcap reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsError {
    NotFound,
    /// The path would leave the memory root (`..`, an outward link).
    Escape,
    Loop,
    NameTooLong,
    /// A name the file system does not accept.
    BadName,
    /// A parent of the path is a file.
    NotADirectory,
    OutOfSpace,
    ReadOnly,
    Denied,
    TooLarge,
    /// The name is taken (creating a file or directory).
    Exists,
    /// A directory where a file was expected.
    IsDirectory,
    /// memcap's own derived data (the journal's snapshot) would not decode.
    Damaged,
    /// `shared` or a shared directory itself, which only the host mounts
    /// (`storage::mounts`).
    MountPoint,
    /// A rename or link between two directories the host granted separately.
    CrossMount,
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_the_sdk_also_writes_are_its_words() {
        let cases = [
            (
                ToolError::escape("/memories/../x"),
                "Path /memories/../x would escape /memories directory",
            ),
            (
                ToolError::missing("/memories/a.md"),
                "The path /memories/a.md does not exist. Please provide a valid path.",
            ),
            (
                ToolError::FileExists {
                    path: "/memories/a.md".into(),
                },
                "File /memories/a.md already exists",
            ),
            (
                ToolError::MultipleMatches {
                    old_str: "x".into(),
                    lines: vec!["1".into(), "3".into()],
                },
                "No replacement was performed. Multiple occurrences of old_str `x` in lines: 1, 3. \
                 Please ensure it is unique",
            ),
            (
                ToolError::InvalidLine { line: 9, count: 2 },
                "Invalid `insert_line` parameter: 9. It should be within the range [0, 2].",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    #[test]
    fn a_file_system_error_keeps_its_kind_and_never_names_the_os() {
        for (error, kind) in [
            (FsError::NotFound, ErrorKind::NotFound),
            (FsError::Escape, ErrorKind::Escape),
            (FsError::ReadOnly, ErrorKind::Denied),
            (FsError::OutOfSpace, ErrorKind::Io),
            (FsError::TooLarge, ErrorKind::TooLarge),
        ] {
            let e = ToolError::from_fs(error, "/memories/a.md", "write");
            assert_eq!(e.kind(), kind, "{error:?}");
            assert!(e.to_string().contains("/memories/a.md"), "{e}");
        }
    }
}
