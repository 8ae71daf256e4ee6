//! The storage port's conformance suite: what every [`Storage`] must do for
//! the core to be right on it, written once and run on each implementation
//! (the in-memory one of the core's tests, and the guest's WASI adapter
//! over a real directory), as object_store runs one suite on every store.
//! Each check takes a fresh directory of its own under `base` and says
//! what went wrong rather than panicking, so a build with no test harness
//! (a wasm program) can run it too. Behind the `conformance` feature.

use super::{Kind, Storage};
use crate::error::FsError;

/// What an implementation may do or not; the checks of what it does not
/// are skipped (as object_store's suites take flags).
#[derive(Clone, Copy, Debug)]
pub struct Capabilities {
    /// `hard_link` makes a second name (a WASI host may refuse links).
    pub hard_links: bool,
    /// `open_rw` gives handles to write through (else callers write by path).
    pub rw_handles: bool,
    /// Names that differ only in case are one name (macOS, Windows).
    pub folds_case: bool,
}

/// One check's name and what it found wrong.
pub type Failure = (&'static str, String);

/// One check: the storage, its own fresh directory, and what it may lack.
type Check = fn(&dyn Storage, &str, Capabilities) -> Result<(), String>;

/// The checks, each with its name.
const CHECKS: &[(&str, Check)] = &[
    ("a new file is written whole and never replaces", new_files),
    (
        "directories are made once and list their names",
        directories,
    ),
    ("what is not there is not found", missing),
    ("writes in place overwrite and extend", writes_in_place),
    ("a rename replaces its target at once", renames),
    (
        "removing takes one name and only empty directories",
        removals,
    ),
    ("a second name is the same file", hard_links),
    ("a stamp moves when the file changes, not otherwise", stamps),
    ("no path leaves the root", no_escape),
    ("reads past the end end", reads_past_the_end),
    ("names differ in case only where case is kept", case),
];

/// Runs every check under `base` (a directory that must not exist yet; it
/// is made, and left with what the checks wrote); the failures, none when
/// `fs` conforms.
pub fn run(fs: &dyn Storage, base: &str, caps: Capabilities) -> Vec<Failure> {
    if let Err(e) = fs.create_dir(base) {
        return vec![(
            "the suite's own directory",
            format!("create_dir({base}): {e:?}"),
        )];
    }
    let mut failures = Vec::new();
    for (i, (name, check)) in CHECKS.iter().enumerate() {
        let dir = format!("{base}/c{i}");
        let result = fs
            .create_dir(&dir)
            .map_err(|e| format!("create_dir({dir}): {e:?}"))
            .and_then(|()| check(fs, &dir, caps));
        if let Err(why) = result {
            failures.push((*name, why));
        }
    }
    failures
}

/// How many checks [`run`] makes.
pub fn count() -> usize {
    CHECKS.len()
}

macro_rules! ensure {
    ($cond:expr, $($why:tt)+) => {
        if !$cond {
            return Err(format!($($why)+));
        }
    };
}

/// `got`, or why it is not `want`.
fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    ensure!(got == want, "{what}: got {got:?}, want {want:?}");
    Ok(())
}

fn read(fs: &dyn Storage, path: &str) -> Result<Vec<u8>, String> {
    let file = fs
        .open(path, false)
        .map_err(|e| format!("open({path}): {e:?}"))?;
    let size = file
        .stat()
        .map_err(|e| format!("stat of open {path}: {e:?}"))?
        .size;
    let (bytes, _) = file
        .read_at(0, size + 1)
        .map_err(|e| format!("read_at({path}): {e:?}"))?;
    Ok(bytes)
}

/// Nothing at `path` (what a removal or a rename left behind).
fn gone(fs: &dyn Storage, what: &str, path: &str) -> Result<(), String> {
    expect(what, fs.stat(path, false).err(), Some(FsError::NotFound))
}

fn ok<T>(what: &str, result: Result<T, FsError>) -> Result<T, String> {
    result.map_err(|e| format!("{what}: {e:?}"))
}

fn new_files(fs: &dyn Storage, d: &str, _: Capabilities) -> Result<(), String> {
    let path = format!("{d}/a.md");
    ok("write_new", fs.write_new(&path, b"hello\n", true))?;
    let meta = ok("stat", fs.stat(&path, false))?;
    expect("kind", meta.kind, Kind::File)?;
    expect("size", meta.size, 6)?;
    expect("content", read(fs, &path)?, b"hello\n".to_vec())?;
    expect(
        "write_new over a file",
        fs.write_new(&path, b"other", false),
        Err(FsError::Exists),
    )?;
    expect(
        "content after the refusal",
        read(fs, &path)?,
        b"hello\n".to_vec(),
    )?;
    let stamped = format!("{d}/b.md");
    let stamp = ok(
        "write_new_stamped",
        fs.write_new_stamped(&stamped, b"xy", false),
    )?;
    expect("stamped size", stamp.size, 2)?;
    expect(
        "the stamp as looked up",
        ok("stamp", fs.stamp(&stamped))?,
        stamp,
    )?;
    expect(
        "write_new in a missing directory",
        fs.write_new(&format!("{d}/none/c.md"), b"x", false),
        Err(FsError::NotFound),
    )
}

fn directories(fs: &dyn Storage, d: &str, _: Capabilities) -> Result<(), String> {
    let sub = format!("{d}/sub");
    ok("create_dir", fs.create_dir(&sub))?;
    expect(
        "create_dir again",
        fs.create_dir(&sub),
        Err(FsError::Exists),
    )?;
    expect(
        "its kind",
        ok("stat", fs.stat(&sub, false))?.kind,
        Kind::Dir,
    )?;
    ok("write_new", fs.write_new(&format!("{d}/f.md"), b"x", false))?;
    ok(
        "write_new",
        fs.write_new(&format!("{d}/.hidden"), b"x", false),
    )?;
    let mut names: Vec<(String, Kind)> = ok("list", fs.list(d))?
        .into_iter()
        .map(|e| (e.name, e.kind))
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    expect(
        "listing",
        names,
        vec![
            (".hidden".to_owned(), Kind::File),
            ("f.md".to_owned(), Kind::File),
            ("sub".to_owned(), Kind::Dir),
        ],
    )?;
    let dir = ok("open_dir", fs.open_dir(d))?;
    expect(
        "stat through the handle",
        ok("Dir::stat", dir.stat("f.md", false))?.size,
        1,
    )?;
    expect(
        "a listing through the handle",
        ok("Dir::list", dir.list())?.len(),
        3,
    )?;
    let (bytes, _) = ok("Dir::open", dir.open("f.md"))?
        .read_at(0, 10)
        .map_err(|e| format!("read through the handle: {e:?}"))?;
    expect("content through the handle", bytes, b"x".to_vec())
}

fn missing(fs: &dyn Storage, d: &str, _: Capabilities) -> Result<(), String> {
    let gone = format!("{d}/gone.md");
    expect("stat", fs.stat(&gone, false).err(), Some(FsError::NotFound))?;
    expect("open", fs.open(&gone, false).err(), Some(FsError::NotFound))?;
    expect("list", fs.list(&gone).err(), Some(FsError::NotFound))?;
    expect("remove_file", fs.remove_file(&gone), Err(FsError::NotFound))?;
    ok("write_new", fs.write_new(&format!("{d}/f"), b"x", false))?;
    // Below a file: not found, or the parent is no directory.
    let below = fs.stat(&format!("{d}/f/x"), false).err();
    ensure!(
        matches!(below, Some(FsError::NotFound | FsError::NotADirectory)),
        "stat below a file: {below:?}"
    );
    Ok(())
}

fn writes_in_place(fs: &dyn Storage, d: &str, caps: Capabilities) -> Result<(), String> {
    let path = format!("{d}/log");
    ok("write_new", fs.write_new(&path, b"abcdef", false))?;
    ok("write_at", fs.write_at(&path, 2, b"XY"))?;
    expect("overwritten", read(fs, &path)?, b"abXYef".to_vec())?;
    let meta = ok("write_at_stat", fs.write_at_stat(&path, 6, b"gh"))?;
    expect("size after an append", meta.size, 8)?;
    expect("appended", read(fs, &path)?, b"abXYefgh".to_vec())?;
    let mut now = b"abXYefgh".to_vec();
    match ok("open_rw", fs.open_rw(&path))? {
        Some(file) => {
            ok("File::write_at", file.write_at(8, b"ij"))?;
            now.extend(b"ij");
            let (bytes, _) = ok("File::read_at", file.read_at(0, 64))?;
            expect("read through the handle written", bytes, now.clone())?;
            expect("by path", read(fs, &path)?, now.clone())?;
        }
        None => ensure!(!caps.rw_handles, "open_rw gave no handle"),
    }
    expect(
        "write_at on a missing file",
        fs.write_at(&format!("{d}/none"), 0, b"x"),
        Err(FsError::NotFound),
    )?;
    let read_only = ok("open", fs.open(&path, false))?;
    ensure!(
        read_only.write_at(0, b"z").is_err(),
        "a file opened to read took a write"
    );
    expect("after the refused write", read(fs, &path)?, now)
}

fn renames(fs: &dyn Storage, d: &str, _: Capabilities) -> Result<(), String> {
    let (a, b) = (format!("{d}/a"), format!("{d}/b"));
    ok("write_new", fs.write_new(&a, b"new", false))?;
    ok("write_new", fs.write_new(&b, b"old", false))?;
    ok("rename over a file", fs.rename(&a, &b))?;
    gone(fs, "the source", &a)?;
    expect("the target", read(fs, &b)?, b"new".to_vec())?;
    let (from, to) = (format!("{d}/dir"), format!("{d}/moved"));
    ok("create_dir", fs.create_dir(&from))?;
    ok(
        "write_new",
        fs.write_new(&format!("{from}/n.md"), b"n", false),
    )?;
    ok("rename a directory", fs.rename(&from, &to))?;
    expect(
        "under the new name",
        read(fs, &format!("{to}/n.md"))?,
        b"n".to_vec(),
    )?;
    gone(fs, "the old name", &from)?;
    ensure!(
        fs.rename(&b, &to).is_err(),
        "a file renamed over a directory"
    );
    expect(
        "the directory kept",
        read(fs, &format!("{to}/n.md"))?,
        b"n".to_vec(),
    )
}

fn removals(fs: &dyn Storage, d: &str, _: Capabilities) -> Result<(), String> {
    let (sub, file) = (format!("{d}/sub"), format!("{d}/sub/f"));
    ok("create_dir", fs.create_dir(&sub))?;
    ok("write_new", fs.write_new(&file, b"x", false))?;
    ensure!(
        fs.remove_dir(&sub).is_err(),
        "a directory with a file removed"
    );
    ensure!(
        fs.remove_file(&sub).is_err(),
        "remove_file took a directory"
    );
    ok("remove_file", fs.remove_file(&file))?;
    gone(fs, "the file", &file)?;
    ok("remove_dir", fs.remove_dir(&sub))?;
    gone(fs, "the directory", &sub)?;
    ok("sync_dir", fs.sync_dir(d))
}

fn hard_links(fs: &dyn Storage, d: &str, caps: Capabilities) -> Result<(), String> {
    if !caps.hard_links {
        return Ok(());
    }
    let (a, b) = (format!("{d}/a"), format!("{d}/b"));
    ok("write_new", fs.write_new(&a, b"same", false))?;
    ok("hard_link", fs.hard_link(&a, &b))?;
    expect("the second name", read(fs, &b)?, b"same".to_vec())?;
    expect(
        "link over a name",
        fs.hard_link(&a, &b),
        Err(FsError::Exists),
    )?;
    ok("remove_file", fs.remove_file(&a))?;
    expect("after the first name went", read(fs, &b)?, b"same".to_vec())
}

fn stamps(fs: &dyn Storage, d: &str, _: Capabilities) -> Result<(), String> {
    let path = format!("{d}/s");
    ok("write_new", fs.write_new(&path, b"one", false))?;
    let first = ok("stamp", fs.stamp(&path))?;
    expect("unchanged", ok("stamp", fs.stamp(&path))?, first)?;
    let open = ok("open", fs.open(&path, false))?;
    expect("of the open file", ok("File::stamp", open.stamp())?, first)?;
    ok("write_at", fs.write_at(&path, 3, b" two"))?;
    let second = ok("stamp", fs.stamp(&path))?;
    ensure!(second != first, "the stamp stayed {first:?} over a write");
    expect("its size", second.size, 7)?;
    // A new file put in its place by a rename is another file.
    let other = format!("{d}/t");
    ok("write_new", fs.write_new(&other, b"one two", false))?;
    ok("rename", fs.rename(&other, &path))?;
    ensure!(
        ok("stamp", fs.stamp(&path))? != second || second.hash.is_none(),
        "a file renamed into place kept the stamp of the one it replaced"
    );
    Ok(())
}

fn no_escape(fs: &dyn Storage, d: &str, _: Capabilities) -> Result<(), String> {
    for path in [
        format!("{d}/../../.."),
        "..".to_owned(),
        format!("{d}/../../../etc"),
    ] {
        let stat = fs.stat(&path, false);
        ensure!(
            matches!(stat, Err(FsError::Escape | FsError::NotFound)),
            "stat({path}): {stat:?}"
        );
        let write = fs.write_new(&format!("{path}/x"), b"x", false);
        ensure!(
            write.is_err(),
            "write_new({path}/x) outside the root succeeded"
        );
    }
    Ok(())
}

fn reads_past_the_end(fs: &dyn Storage, d: &str, _: Capabilities) -> Result<(), String> {
    let path = format!("{d}/r");
    ok("write_new", fs.write_new(&path, b"0123456789", false))?;
    let file = ok("open", fs.open(&path, false))?;
    let (bytes, end) = ok("read_at", file.read_at(4, 3))?;
    expect("a middle slice", bytes, b"456".to_vec())?;
    ensure!(!end, "the end reported in the middle");
    // A read that meets the end may say so, or leave it to the next, empty
    // read (WASI hosts do): callers stop at either.
    let (bytes, _) = ok("read_at", file.read_at(8, 100))?;
    expect("the last bytes", bytes, b"89".to_vec())?;
    let (bytes, _) = ok("read_at", file.read_at(10, 10))?;
    ensure!(bytes.is_empty(), "at the end: {bytes:?}");
    let (bytes, _) = ok("read_at", file.read_at(50, 10))?;
    ensure!(bytes.is_empty(), "past the end: {bytes:?}");
    Ok(())
}

fn case(fs: &dyn Storage, d: &str, caps: Capabilities) -> Result<(), String> {
    ok(
        "write_new",
        fs.write_new(&format!("{d}/Note.md"), b"x", false),
    )?;
    let other = fs.stat(&format!("{d}/NOTE.md"), false).map(|m| m.size);
    match caps.folds_case {
        true => expect("the name in other case", other, Ok(1))?,
        false => expect("the name in other case", other, Err(FsError::NotFound))?,
    }
    // (The in-memory storage that folds case lists names folded.)
    if !caps.folds_case {
        let listed: Vec<String> = ok("list", fs.list(d))?
            .into_iter()
            .map(|e| e.name)
            .collect();
        expect("the name as written", listed, vec!["Note.md".to_owned()])?;
    }
    Ok(())
}
