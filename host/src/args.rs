//! The command line as clap reads it: the options every command shares
//! and each command's own (their `///` lines are `memcap --help`).

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use memcap::{Limits, NoteType, Role};

#[derive(Parser)]
#[command(
    version,
    about = "Persistent memory for AI agents, sandboxed in WebAssembly"
)]
pub(crate) struct Cli {
    /// The memory directory, served to the agent as /memories.
    #[arg(long, env = "MEMCAP_ROOT", default_value = "./memories", global = true)]
    pub(crate) root: PathBuf,
    /// Keep the memory in PostgreSQL instead of --root: a libpq URL
    /// (postgres://user@host/db, TLS as its sslmode says). Each --namespace is its
    /// own tree there ("default" when none is given).
    #[arg(
        long,
        env = "MEMCAP_STORE",
        value_name = "URL",
        global = true,
        hide_env_values = true
    )]
    pub(crate) store: Option<String>,
    /// The most files the store may hold; a change past it is refused.
    #[arg(long, env = "MEMCAP_MAX_FILES", default_value_t = Limits::default().max_store_files, global = true)]
    pub(crate) max_files: u64,
    /// The most bytes the store may hold; a change past it is refused.
    #[arg(long, env = "MEMCAP_MAX_BYTES", default_value_t = Limits::default().max_store_bytes, global = true)]
    pub(crate) max_bytes: u64,
    /// Serve ROOT/NAMESPACE (or the database's namespace NAMESPACE), one
    /// user's or project's store, and nothing else under ROOT (letters,
    /// digits, '-', '_', '.'; no leading dot).
    #[arg(long, env = "MEMCAP_NAMESPACE", global = true)]
    pub(crate) namespace: Option<String>,
    /// Also grant DIR (with --store: the namespace DIR), seen as
    /// /memories/shared/NAME; append :ro to refuse changes there. NAME
    /// alone is NAME=NAME (with `token create`: the namespace NAME).
    /// Repeat for several.
    #[arg(long, value_name = "NAME=DIR[:ro]", value_parser = parse_shared, global = true)]
    pub(crate) shared: Vec<SharedArg>,
    /// Refuse every change: the agent views, reads and searches only
    /// (with `token create`: the token may not write its namespace).
    #[arg(long, global = true)]
    pub(crate) read_only: bool,
    /// Also grant DIR (with --store: the namespace DIR) read-only, seen as
    /// /memories/extra/NAME: material to search (source "custom") and read,
    /// never to change. Repeat for several.
    #[arg(long, value_name = "NAME=DIR", value_parser = parse_extra, global = true)]
    pub(crate) extra: Vec<(String, PathBuf)>,
    /// Stop a call that runs longer than this many milliseconds.
    #[arg(long, env = "MEMCAP_CALL_TIMEOUT_MS", default_value_t = Limits::default().call_timeout.as_millis() as u64, global = true)]
    pub(crate) call_timeout_ms: u64,
    /// Keywords only (BM25): searches leave out the embedding model and say
    /// so. The index is rebuilt once when this changes.
    #[arg(long, global = true)]
    pub(crate) no_vectors: bool,
    /// The most memory one call may use, in MiB.
    #[arg(long, env = "MEMCAP_MEMORY_MIB", default_value_t = (Limits::default().memory_bytes >> 20) as u64, global = true)]
    pub(crate) memory_mib: u64,
    /// Who the changes are made for, as the version history records them
    /// (default: the OS user).
    #[arg(long, env = "MEMCAP_ACTOR", global = true)]
    pub(crate) actor: Option<String>,
    /// Keep this many days of version history (the oldest go first).
    #[arg(long, env = "MEMCAP_HISTORY_DAYS", default_value_t = Limits::default().history_days, global = true)]
    pub(crate) history_days: u64,
    /// Keep this many MiB of version history; 0 records none.
    #[arg(long, env = "MEMCAP_HISTORY_MIB", default_value_t = Limits::default().history_mib, global = true)]
    pub(crate) history_mib: u64,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Clone, Debug)]
pub(crate) struct SharedArg {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    pub(crate) read_only: bool,
}

fn parse_shared(arg: &str) -> Result<SharedArg, String> {
    let (name, dir) = match arg.split_once('=') {
        Some(pair) => pair,
        // NAME alone (or NAME:ro) is the directory or namespace NAME.
        None => (arg.strip_suffix(":ro").unwrap_or(arg), arg),
    };
    let (dir, read_only) = match dir.strip_suffix(":ro") {
        Some(dir) => (dir, true),
        None => (dir.strip_suffix(":rw").unwrap_or(dir), false),
    };
    if dir.is_empty() {
        return Err(format!("no directory given for the shared name {name:?}"));
    }
    Ok(SharedArg {
        name: name.to_owned(),
        dir: PathBuf::from(dir),
        read_only,
    })
}

fn parse_extra(arg: &str) -> Result<(String, PathBuf), String> {
    match arg.split_once('=') {
        Some((name, dir)) if !dir.is_empty() => Ok((name.to_owned(), PathBuf::from(dir))),
        _ => Err(format!("expected NAME=DIR, got {arg:?}")),
    }
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Copy a whole store. SRC and DST are each a directory or a database
    /// URL with the namespace after # (postgres://host/db#alice; no # is
    /// the namespace "default"). Every file goes, MEMORY.md with the agent's
    /// text included, and SRC's version history with every version's actor,
    /// time and content; memcap's derived state is rebuilt at DST. A DST
    /// that holds files is refused unless --replace.
    Copy {
        src: String,
        dst: String,
        /// Replace what DST holds (its files go first). DST keeps its own
        /// history, and what the copy changed is recorded there as the
        /// --actor's versions: `memcap history revert --since T --by
        /// ACTOR` puts DST back as it was.
        #[arg(long)]
        replace: bool,
        /// Leave SRC's history behind: DST records the files as they
        /// arrive, as the --actor's versions.
        #[arg(long)]
        no_history: bool,
    },
    /// Serve the memory to MCP clients (Claude Desktop, Claude Code, Cursor,
    /// VS Code) over stdio: the `memory` tool and the note tools, the prompt
    /// `memory` and the resource memory://MEMORY.md.
    Mcp {
        /// Serve streamable HTTP at this address (e.g. 127.0.0.1:8765, path
        /// /mcp) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Do not watch the directory for other programs' edits, nor follow
        /// other hosts' commits on a database (LISTEN/NOTIFY): they still
        /// show, edits in place that bypass memcap within 30 s (then a
        /// slice of a large store a call, one a second at most).
        #[arg(long)]
        no_watch: bool,
        #[cfg(feature = "server")]
        #[command(flatten)]
        server: crate::cli::serve::ServerArgs,
    },
    /// Open the memory in your browser: serve the page (browse, search,
    /// graph, history, undo, edit) for this store to you alone, and print a
    /// sign-in link that works once, within 5 minutes.
    Ui {
        /// The loopback address to serve the page at.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8766")]
        listen: std::net::SocketAddr,
        /// Do not watch the directory for other programs' edits, nor follow
        /// other hosts' commits on a database.
        #[arg(long)]
        no_watch: bool,
        #[cfg(feature = "server")]
        #[command(flatten)]
        server: crate::cli::serve::ServerArgs,
    },
    /// Make, list and revoke the bearer tokens `memcap mcp --http` asks for
    /// once any exists: each reaches one --namespace (and any --shared).
    Token {
        #[cfg(feature = "server")]
        #[command(subcommand)]
        action: crate::cli::token::TokenAction,
        /// (A build without the team server refuses them all.)
        #[cfg(not(feature = "server"))]
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        rest: Vec<String>,
    },
    /// The version history: list, show, diff, restore, revert, redact.
    History {
        #[command(subcommand)]
        action: crate::cli::history::HistoryAction,
    },
    /// Run tool calls: one tool_use input JSON per line on stdin, one
    /// {"content": …, "is_error": …} JSON line per input on stdout, in order.
    Call {
        /// Content as JSON data for programs ({"output": …} or {"error": …})
        /// instead of the model's text.
        #[arg(long)]
        json: bool,
    },
    /// Show a directory (2 levels deep) or a file with line numbers.
    View {
        path: String,
        /// Show only lines START to END (1-based; END -1 means the last line).
        #[arg(long, num_args = 2, value_names = ["START", "END"], allow_negative_numbers = true)]
        range: Option<Vec<i64>>,
    },
    /// Create a new file; the text comes from TEXT or, if omitted, stdin.
    Create { path: String, text: Option<String> },
    /// Replace the single occurrence of OLD with NEW in a file.
    StrReplace {
        path: String,
        old: String,
        new: String,
    },
    /// Insert text after LINE (0 = at the top); TEXT or, if omitted, stdin.
    Insert {
        path: String,
        #[arg(allow_negative_numbers = true)]
        line: i64,
        text: Option<String>,
    },
    /// Delete a file or a directory tree.
    Delete { path: String },
    /// Rename or move a file or directory.
    Rename { old_path: String, new_path: String },
    /// Print the system-prompt text: the memory protocol and the current index.
    Prompt,
    /// Print the tools memcap offers as JSON: name, description and the JSON
    /// Schema of each one's input (run them with `call`).
    Describe,
    /// Show the index and every memory file, or the notes on TOPICs in full.
    MemoryRead {
        topics: Vec<String>,
        /// Which page of a long answer (from 1).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        page: Option<u32>,
    },
    /// Show the index, or with --all every note with its metadata.
    MemoryView {
        #[arg(long)]
        all: bool,
        /// Which page of a long answer (from 1).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        page: Option<u32>,
    },
    /// Save a typed note (created or replaced); CONTENT or, if omitted, stdin.
    MemoryWrite {
        /// Relative to /memories; .md is added when there is no extension.
        filename: String,
        #[arg(long)]
        name: String,
        /// One line the index shows after the name (may be left out).
        #[arg(long, default_value = "")]
        description: String,
        #[arg(long = "type", value_enum)]
        note_type: NoteTypeArg,
        content: Option<String>,
    },
    /// Replace the single occurrence of OLD with NEW in a note.
    MemoryUpdate {
        filename: String,
        old: String,
        new: String,
    },
    /// Delete one note.
    MemoryDelete { filename: String },
    /// Print the full protocol for keeping memory, with examples of
    /// observations and relations.
    Guide,
    /// Search the memory: the passages that best answer QUERY, as the JSON
    /// an agent gets from memory_search.
    Search {
        query: String,
        /// How many passages at most (1 to 20).
        #[arg(long, default_value_t = 6)]
        max_results: u32,
        /// The least score a passage needs (0 to 1).
        #[arg(long, default_value_t = 0.35)]
        min_score: f32,
        /// Where to look: all, memory, chat or custom.
        #[arg(long, default_value = "all")]
        source: String,
        /// Only passages holding an observation of this category (repeat
        /// for any of several).
        #[arg(long = "category")]
        categories: Vec<String>,
        /// Only passages holding an observation with this tag.
        #[arg(long = "tag")]
        tags: Vec<String>,
        /// Only notes of this type (project, person…).
        #[arg(long = "type")]
        types: Vec<String>,
        /// Only notes changed since: 2026-11-01, 7d.
        #[arg(long)]
        after_date: Option<String>,
        /// Also notes superseded by another or past their valid_until
        /// (after the others, marked).
        #[arg(long)]
        include_superseded: bool,
        /// Only passages with a line this actor changed last (the
        /// history's blame); repeat for any of several.
        #[arg(long = "by")]
        by: Vec<String>,
        /// Only passages with no line this actor changed last.
        #[arg(long = "not-by")]
        not_by: Vec<String>,
    },
    /// Print lines of a file as memory_get gives them (JSON).
    Get {
        path: String,
        /// A range such as 42-56, as search results name them.
        #[arg(long)]
        lines: Option<String>,
    },
    /// Show how the search index and the graph stand (JSON).
    Stats,
    /// Show the notes a memory:// URL names (memory://projects/alpha, or
    /// memory://projects/* for several), with their observations and
    /// relations and the notes those reach.
    Context {
        url: String,
        /// Steps of relations to follow, 1 to 3.
        #[arg(long)]
        depth: Option<u32>,
        /// Only related notes changed in it: 7d, 2 weeks, 2026-11-01.
        #[arg(long)]
        timeframe: Option<String>,
        /// Related notes per note, 1 to 50.
        #[arg(long)]
        max_related: Option<u32>,
        #[arg(long)]
        page: Option<u32>,
    },
    /// Show what changed lately, newest first.
    Recent {
        /// 7d (default), 2 weeks, today, 2026-11-01.
        #[arg(long)]
        timeframe: Option<String>,
        /// entity (default), observation, relation, or a note type.
        #[arg(long = "type")]
        item_type: Option<String>,
        #[arg(long)]
        page: Option<u32>,
    },
    /// List what needs a decision, changing nothing: likely duplicates,
    /// notes past their valid_until, superseded notes still linked, and
    /// files someone other than --actor changed within --timeframe.
    Review {
        /// 7d (default), 2 weeks, today, 2026-11-01.
        #[arg(long)]
        timeframe: Option<String>,
        /// The answer as JSON data: timeframe, since, actor, duplicates,
        /// expired, supersededLinked, changedByOthers (each {items, total}),
        /// comparedByMeaning ({notes, of, whole}; absent with no model),
        /// notes.
        #[arg(long)]
        json: bool,
    },
    /// Record one turn of a conversation in /memories/chat/SESSION.md, for
    /// `search --source chat`; TEXT or, if omitted, stdin.
    RecordTurn {
        session: String,
        #[arg(value_enum)]
        role: RoleArg,
        text: Option<String>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum RoleArg {
    User,
    Assistant,
    System,
    Tool,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Self {
        match r {
            RoleArg::User => Role::User,
            RoleArg::Assistant => Role::Assistant,
            RoleArg::System => Role::System,
            RoleArg::Tool => Role::Tool,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum NoteTypeArg {
    User,
    Feedback,
    Project,
    Reference,
}

impl From<NoteTypeArg> for NoteType {
    fn from(t: NoteTypeArg) -> Self {
        match t {
            NoteTypeArg::User => NoteType::User,
            NoteTypeArg::Feedback => NoteType::Feedback,
            NoteTypeArg::Project => NoteType::Project,
            NoteTypeArg::Reference => NoteType::Reference,
        }
    }
}
