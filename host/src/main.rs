//! The `memcap` CLI: the memory tool's commands on a local directory, and
//! `memcap call`, the JSON-lines executor for agent loops in any language.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use memcap::location::Location;
use memcap::{Limits, Memory, NoteType, Role, ToolError, ToolErrorKind};
use memcap_core::lines::serve;

mod cli;

#[derive(Parser)]
#[command(
    version,
    about = "Persistent memory for AI agents, sandboxed in WebAssembly"
)]
struct Cli {
    /// The memory directory, served to the agent as /memories.
    #[arg(long, env = "MEMCAP_ROOT", default_value = "./memories", global = true)]
    root: PathBuf,
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
    store: Option<String>,
    /// The most files the store may hold; a change past it is refused.
    #[arg(long, env = "MEMCAP_MAX_FILES", default_value_t = Limits::default().max_store_files, global = true)]
    max_files: u64,
    /// The most bytes the store may hold; a change past it is refused.
    #[arg(long, env = "MEMCAP_MAX_BYTES", default_value_t = Limits::default().max_store_bytes, global = true)]
    max_bytes: u64,
    /// Serve ROOT/NAMESPACE (or the database's namespace NAMESPACE), one
    /// user's or project's store, and nothing else under ROOT (letters,
    /// digits, '-', '_', '.'; no leading dot).
    #[arg(long, env = "MEMCAP_NAMESPACE", global = true)]
    namespace: Option<String>,
    /// Also grant DIR (with --store: the namespace DIR), seen as
    /// /memories/shared/NAME; append :ro to refuse changes there. NAME
    /// alone is NAME=NAME (with `token create`: the namespace NAME).
    /// Repeat for several.
    #[arg(long, value_name = "NAME=DIR[:ro]", value_parser = parse_shared, global = true)]
    shared: Vec<SharedArg>,
    /// Refuse every change: the agent views, reads and searches only
    /// (with `token create`: the token may not write its namespace).
    #[arg(long, global = true)]
    read_only: bool,
    /// Also grant DIR (with --store: the namespace DIR) read-only, seen as
    /// /memories/extra/NAME: material to search (source "custom") and read,
    /// never to change. Repeat for several.
    #[arg(long, value_name = "NAME=DIR", value_parser = parse_extra, global = true)]
    extra: Vec<(String, PathBuf)>,
    /// Stop a call that runs longer than this many milliseconds.
    #[arg(long, env = "MEMCAP_CALL_TIMEOUT_MS", default_value_t = Limits::default().call_timeout.as_millis() as u64, global = true)]
    call_timeout_ms: u64,
    /// Keywords only (BM25): searches leave out the embedding model and say
    /// so. The index is rebuilt once when this changes.
    #[arg(long, global = true)]
    no_vectors: bool,
    /// The most memory one call may use, in MiB.
    #[arg(long, env = "MEMCAP_MEMORY_MIB", default_value_t = (Limits::default().memory_bytes >> 20) as u64, global = true)]
    memory_mib: u64,
    /// Who the changes are made for, as the version history records them
    /// (default: the OS user).
    #[arg(long, env = "MEMCAP_ACTOR", global = true)]
    actor: Option<String>,
    /// Keep this many days of version history (the oldest go first).
    #[arg(long, env = "MEMCAP_HISTORY_DAYS", default_value_t = Limits::default().history_days, global = true)]
    history_days: u64,
    /// Keep this many MiB of version history; 0 records none.
    #[arg(long, env = "MEMCAP_HISTORY_MIB", default_value_t = Limits::default().history_mib, global = true)]
    history_mib: u64,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Debug)]
struct SharedArg {
    name: String,
    dir: PathBuf,
    read_only: bool,
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
enum Command {
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
        server: cli::serve::ServerArgs,
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
        server: cli::serve::ServerArgs,
    },
    /// Make, list and revoke the bearer tokens `memcap mcp --http` asks for
    /// once any exists: each reaches one --namespace (and any --shared).
    Token {
        #[cfg(feature = "server")]
        #[command(subcommand)]
        action: cli::token::TokenAction,
        /// (A build without the team server refuses them all.)
        #[cfg(not(feature = "server"))]
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        rest: Vec<String>,
    },
    /// The version history: list, show, diff, restore, revert, redact.
    History {
        #[command(subcommand)]
        action: cli::history::HistoryAction,
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
enum RoleArg {
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
enum NoteTypeArg {
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        // The reader went away (`memcap view … | head`): stop quietly, as
        // command-line tools do.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("memcap: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The OS user's name, the CLI's actor when `--actor` is not given.
fn os_user() -> String {
    ["USER", "LOGNAME"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .or_else(passwd_name)
        .unwrap_or_else(|| format!("uid {}", rustix::process::getuid().as_raw()))
}

/// This process's user name from `/etc/passwd`, where it is listed.
fn passwd_name() -> Option<String> {
    let uid = rustix::process::getuid().as_raw().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.get(2) == Some(&uid.as_str()) && !fields[0].is_empty())
            .then(|| fields[0].to_owned())
    })
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(why) = cli.actor.as_deref().and_then(memcap::Actor::refuse_name) {
        anyhow::bail!(why);
    }
    if let Command::Copy {
        src,
        dst,
        replace,
        no_history,
    } = &cli.command
    {
        let actor = memcap::Actor::named(cli.actor.clone().unwrap_or_else(os_user));
        return cli::copy::run(src, dst, *replace, *no_history, &actor);
    }
    // A mistyped --root must not leave directories behind: the first
    // command that writes creates the store, reads see an empty one.
    let limits = Limits {
        max_store_files: cli.max_files,
        max_store_bytes: cli.max_bytes,
        call_timeout: std::time::Duration::from_millis(cli.call_timeout_ms.max(1)),
        memory_bytes: usize::try_from(cli.memory_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX),
        history_days: cli.history_days,
        history_mib: cli.history_mib,
        ..Limits::default()
    };
    let spec = cli::StoreSpec {
        location: match &cli.store {
            Some(store) if !store.is_empty() => Location::database(store)?,
            _ => Location::Directory(cli.root.clone()),
        },
        limits: limits.clone(),
        vectors: !cli.no_vectors,
    };
    #[cfg(not(feature = "server"))]
    if let Some(what) = match &cli.command {
        Command::Mcp { http: Some(_), .. } => Some("`memcap mcp --http`"),
        Command::Ui { .. } => Some("`memcap ui`"),
        Command::Token { .. } => Some("`memcap token`"),
        _ => None,
    } {
        anyhow::bail!(
            "{what} is part of the team server, which this memcap was built without: \
             install it with `cargo install --path host --features full` (what `./dev build` builds)"
        );
    }
    #[cfg(feature = "server")]
    if let Command::Token { action } = &cli.command {
        let grants = cli::token::Grants {
            namespace: cli.namespace.as_deref(),
            shared: cli
                .shared
                .iter()
                .map(|s| cli::token::SharedGrant {
                    name: s.name.clone(),
                    target: s.dir.to_string_lossy().into_owned(),
                    read_only: s.read_only,
                })
                .collect(),
            read_only: cli.read_only,
            extra: !cli.extra.is_empty(),
        };
        return cli::token::run(&spec, action, grants);
    }
    #[cfg(feature = "server")]
    let flagged =
        cli.namespace.is_some() || !cli.shared.is_empty() || !cli.extra.is_empty() || cli.read_only;
    let open_flagged = {
        let (namespace, shared, extra, read_only) = (
            cli.namespace.clone(),
            cli.shared.clone(),
            cli.extra.clone(),
            cli.read_only,
        );
        let spec = cli::StoreSpec {
            location: spec.location.clone(),
            limits,
            vectors: spec.vectors,
        };
        move |create: bool| {
            let mut builder = spec.builder().create_root(create).read_only(read_only);
            if let Some(namespace) = &namespace {
                builder = builder.namespace(namespace);
            }
            for shared in &shared {
                builder = builder.shared(&shared.name, &shared.dir, shared.read_only);
            }
            for (name, dir) in &extra {
                builder = builder.extra(name, dir);
            }
            builder.open()
        }
    };
    #[cfg(feature = "server")]
    if let Command::Mcp {
        http: Some(addr),
        no_watch,
        server,
    } = &cli.command
    {
        return cli::serve::http(cli::serve::Serve {
            spec,
            addr: *addr,
            watch: !no_watch,
            args: server,
            flags_given: flagged,
            namespace_given: cli.namespace.is_some(),
            open_flagged: Box::new(move || open_flagged(true)),
            owner: None,
        });
    }
    #[cfg(feature = "server")]
    if let Command::Ui {
        listen,
        no_watch,
        server,
    } = &cli.command
    {
        return cli::serve::http(cli::serve::Serve {
            spec,
            addr: *listen,
            watch: !no_watch,
            args: server,
            flags_given: flagged,
            namespace_given: cli.namespace.is_some(),
            open_flagged: Box::new(move || open_flagged(true)),
            owner: Some(cli.actor.clone().unwrap_or_else(os_user)),
        });
    }
    // A server is set up once and watches its directory: it makes it.
    // A command makes nothing until it writes, so a mistyped --root
    // leaves no directories behind.
    let serving = matches!(cli.command, Command::Mcp { .. });
    let memory = open_flagged(serving)?;
    memory.set_actor(memcap::Actor::named(
        cli.actor.clone().unwrap_or_else(os_user),
    ));
    let result: Result<String, ToolError> = match cli.command {
        Command::History { action } => {
            let text = cli::history::run(&memory, action)?;
            // A reader that stops early (`| head`) ends memcap quietly.
            let mut stdout = std::io::stdout().lock();
            write!(stdout, "{text}")
                .and_then(|()| stdout.flush())
                .context("writing stdout")?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Copy { .. } => unreachable!("handled before the store is opened"),
        Command::Call { json } => return serve_lines(&memory, json),
        Command::Token { .. } => unreachable!("handled before the store is opened"),
        Command::Mcp { no_watch, .. } => return serve_mcp(memory, !no_watch),
        Command::Ui { .. } => unreachable!("handled before the store is opened"),
        Command::View { path, range } => memory.view(&path, range.map(|r| (r[0], r[1]))),
        Command::Create { path, text } => memory.create(&path, &text_or_stdin(text)?),
        Command::StrReplace { path, old, new } => memory.str_replace(&path, &old, &new),
        Command::Insert { path, line, text } => memory.insert(&path, line, &text_or_stdin(text)?),
        Command::Delete { path } => memory.delete(&path),
        Command::Rename { old_path, new_path } => memory.rename(&old_path, &new_path),
        Command::Prompt => memory.prompt(),
        Command::Describe => memory.describe().map(|tools| {
            serde_json::to_string_pretty(&tools).expect("tool definitions always serialise")
        }),
        Command::MemoryRead { topics, page } => memory.memory_read_page(&topics, page),
        Command::MemoryView { all, page } => memory.memory_view_page(all, page),
        Command::MemoryWrite {
            filename,
            name,
            description,
            note_type,
            content,
        } => memory.memory_write(
            &filename,
            &name,
            &description,
            note_type.into(),
            &text_or_stdin(content)?,
        ),
        Command::MemoryUpdate { filename, old, new } => memory.memory_update(&filename, &old, &new),
        Command::MemoryDelete { filename } => memory.memory_delete(&filename),
        Command::Guide => memory.memory_guide(),
        // Through `call`, so the text is the agent's byte for byte.
        Command::Search {
            query,
            max_results,
            min_score,
            source,
            categories,
            tags,
            types,
            after_date,
        } => called(
            &memory,
            serde_json::json!({
                "command": "memory_search", "query": query, "maxResults": max_results,
                "minScore": min_score, "source": source, "categories": categories,
                "tags": tags, "types": types, "after_date": after_date,
            }),
        ),
        Command::Get { path, lines } => called(
            &memory,
            serde_json::json!({"command": "memory_get", "path": path, "lines": lines}),
        ),
        Command::Stats => called(&memory, serde_json::json!({"command": "memory_stats"})),
        Command::Context {
            url,
            depth,
            timeframe,
            max_related,
            page,
        } => called(
            &memory,
            serde_json::json!({
                "command": "build_context", "url": url, "depth": depth,
                "timeframe": timeframe, "max_related": max_related, "page": page,
            }),
        ),
        Command::Recent {
            timeframe,
            item_type,
            page,
        } => called(
            &memory,
            serde_json::json!({
                "command": "recent_activity", "timeframe": timeframe, "type": item_type,
                "page": page,
            }),
        ),
        Command::RecordTurn {
            session,
            role,
            text,
        } => memory.record_turn(&session, role.into(), &text_or_stdin(text)?),
    };
    match result {
        Ok(content) => {
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{content}")
                .and_then(|()| stdout.flush())
                .context("writing stdout")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// A command's text through `call`, failed when the call failed.
fn called(memory: &Memory, input: serde_json::Value) -> Result<String, ToolError> {
    let result = memory.call(&input.to_string());
    if result.is_error {
        // The CLI prints only the message; the kind is not shown.
        Err(ToolError {
            kind: ToolErrorKind::InvalidInput,
            message: result.content,
        })
    } else {
        Ok(result.content)
    }
}

fn text_or_stdin(text: Option<String>) -> anyhow::Result<String> {
    match text {
        Some(text) => Ok(text),
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("reading the text from stdin")?;
            Ok(text)
        }
    }
}

/// `memcap mcp`: the MCP server on stdio.
fn serve_mcp(memory: Memory, watch: bool) -> anyhow::Result<ExitCode> {
    let server = memcap::mcp::MemoryServer::new(memory, watch)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime
        .block_on(server.serve_stdio())
        .context("serving MCP on stdio")?;
    Ok(ExitCode::SUCCESS)
}

/// The `memcap call` protocol (`memcap_core::lines`), the input cap set by
/// the memory's limits.
fn serve_lines(memory: &Memory, json: bool) -> anyhow::Result<ExitCode> {
    let max = memory.limits().max_input_bytes;
    serve(
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        max,
        |line| match (line, json) {
            (Ok(input), false) => memory.call(input),
            (Ok(input), true) => memory.call_json(input),
            (Err(e), false) => Err::<String, _>(e).into(),
            (Err(e), true) => {
                memcap::ToolResult::error(memcap_core::render::json::error(&e).to_string())
            }
        },
    )
    .context("serving tool calls on stdin and stdout")?;
    Ok(ExitCode::SUCCESS)
}
