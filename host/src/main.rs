//! The `memcap` CLI: the memory tool's commands on a local directory, and
//! `memcap call`, the JSON-lines executor for agent loops in any language.

use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use memcap::location::Location;
use memcap::{Limits, Memory, ToolError, ToolErrorKind};
use memcap_core::lines::serve;

mod args;
mod cli;

use args::{Cli, Command};

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
        location: Location::from_options(cli.store.as_deref(), &cli.root)?,
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
            include_superseded,
            by,
            not_by,
        } => called(
            &memory,
            serde_json::json!({
                "command": "memory_search", "query": query, "maxResults": max_results,
                "minScore": min_score, "source": source, "categories": categories,
                "tags": tags, "types": types, "after_date": after_date,
                "includeSuperseded": include_superseded, "by": by, "notBy": not_by,
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
        Command::Review { timeframe, json } => {
            let input = serde_json::json!({"command": "memory_review", "timeframe": timeframe});
            match json {
                true => answered(memory.call_json(&input.to_string())),
                false => called(&memory, input),
            }
        }
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
    answered(memory.call(&input.to_string()))
}

/// A call's answer as the CLI prints it: the content, or its message as
/// the error.
fn answered(result: memcap::ToolResult) -> Result<String, ToolError> {
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
