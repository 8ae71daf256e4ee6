//! `memcap copy`: one store into another, directory or database, with
//! its version history.

use std::process::ExitCode;

use anyhow::Context;
use memcap::Memory;
use memcap::location::Location;

/// `memcap copy`: one store's files into another, of either kind, with
/// its version history unless `no_history` or `replace` (a store replaced
/// keeps its own, and records what the copy changed as `actor`'s).
pub fn run(
    src: &str,
    dst: &str,
    replace: bool,
    no_history: bool,
    actor: &memcap::Actor,
) -> anyhow::Result<ExitCode> {
    let open = |spec: &str, create: bool| -> anyhow::Result<Memory> {
        let (location, namespace) = Location::parse_with_namespace(spec);
        let mut builder = location.builder();
        if let Some(namespace) = namespace {
            builder = builder.namespace(namespace);
        }
        Ok(builder.create_root(create).private_umask(true).open()?)
    };
    let carry = !no_history && !replace;
    let from = open(src, false)?;
    let exported = match carry {
        true => from.export_with_history()?,
        false => from.export_naming_skipped()?,
    };
    drop(from);
    let (target, namespace) = Location::parse_with_namespace(dst);
    target.check_copy_target(namespace.as_deref())?;
    let to = open(dst, true)?;
    let entries = exported.entries;
    let file_paths = |entries: &[memcap::Entry]| -> Vec<String> {
        entries
            .iter()
            .filter_map(|e| match e {
                memcap::Entry::File(path, _) => Some(format!("/memories/{path}")),
                memcap::Entry::Dir(_) => None,
            })
            .collect()
    };
    let mut paths = file_paths(&entries);
    if replace {
        // What DST holds now is on record first (another program's edits
        // the history has not seen yet too), so the revert can give it back.
        let before = file_paths(&to.export()?);
        to.history_record(&before, true, None)
            .context("recording DST's files before they are replaced")?;
        paths.extend(before);
        paths.sort();
        paths.dedup();
    }
    to.import_with_history(&entries, &exported.history, replace)?;
    // What the copy changed, as the actor's versions (a carried history
    // already has them: only what SRC's history had not seen yet is
    // recorded, as another program's, as SRC would have).
    to.history_record(&paths, carry, Some(actor))
        .context("recording the copied files in DST's history")?;
    for skipped in &exported.skipped {
        eprintln!("memcap: skipped {:?}: {}", skipped.path, skipped.why);
    }
    let files = entries
        .iter()
        .filter(|e| matches!(e, memcap::Entry::File(..)))
        .count();
    let bytes: usize = entries
        .iter()
        .map(|e| match e {
            memcap::Entry::File(_, data) => data.len(),
            memcap::Entry::Dir(_) => 0,
        })
        .sum();
    let history = match (carry, exported.history.is_empty()) {
        (true, false) => " with its history",
        (true, true) => " (it kept no history)",
        (false, _) if replace => "; DST's history records the replacement",
        (false, _) => " without its history",
    };
    println!(
        "copied {files} files and {} directories ({bytes} bytes) from {} to {}{history}{}",
        entries.len() - files,
        from_name(src),
        from_name(dst),
        match exported.skipped.len() {
            0 => String::new(),
            n => format!("; skipped {n} (named above)"),
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// A store as messages name it: a directory, or a database's namespace
/// (never the URL, which may hold a password).
fn from_name(spec: &str) -> String {
    let (location, namespace) = Location::parse_with_namespace(spec);
    location.describe(namespace.as_deref())
}
