//! The catalog: every note's metadata with the stamp of the file it was read
//! from, so only files that changed are read again.
//!
//! It lives in guest memory while the instance is warm and in a journal,
//! `/memories/.memcap/notes.jsonl`, between instances and processes: a header
//! line, then one record per change. The directory stays the truth: a scan
//! compares stamps and rereads what differs, so a lost or torn journal costs
//! time, never correctness.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use wasip2::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorStat, DescriptorType, ErrorCode, OpenFlags, PathFlags,
};

use super::frontmatter::{self, Meta};
use super::journal::Record;
use super::{NoteType, is_note_path};
use crate::fs;

/// Frontmatter and a first line fit in this much of a note.
const HEAD_BYTES: u64 = 64 * 1024;
/// How old a file's times must be before its stamp alone is trusted.
const RACY_SECONDS: u64 = 2;

/// When a file was last changed, as far as the catalog needs to know.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub struct FileStamp {
    pub size: u64,
    /// Modification time (seconds, nanoseconds).
    pub modified: Option<(u64, u32)>,
    /// Status-change time, which also moves on a rename or in-place rewrite.
    pub changed: Option<(u64, u32)>,
}

impl FileStamp {
    fn of(st: &DescriptorStat) -> Self {
        let time =
            |t: Option<wasip2::clocks::wall_clock::Datetime>| t.map(|t| (t.seconds, t.nanoseconds));
        Self {
            size: st.size,
            modified: time(st.data_modification_timestamp),
            changed: time(st.status_change_timestamp),
        }
    }
}

/// One note in the catalog.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Entry {
    /// Relative to the root: `prefs/coffee.md`.
    pub path: String,
    pub stamp: FileStamp,
    pub meta: Meta,
    /// The note's line in the index, made once when the entry is stored.
    #[serde(skip)]
    pub line: String,
}

impl Entry {
    /// Seconds since the epoch of the last change, for "most recent first".
    pub fn recency(&self) -> u64 {
        self.stamp.modified.map_or(0, |(s, _)| s)
    }
}

/// Every note, by path and by recency, plus where this instance is in the
/// journal.
pub struct Catalog {
    pub(super) entries: BTreeMap<String, Rc<Entry>>,
    /// (newest first, path): the index lists from the front, so rendering
    /// costs the same for 100 notes as for 10,000.
    by_recency: BTreeMap<(Reverse<u64>, String), Rc<Entry>>,
    by_type: [usize; NoteType::ALL.len()],
    pub(super) generation: u64,
    /// Bytes of the journal already applied (whole lines only).
    pub(super) applied: u64,
    pub(super) records: usize,
    pub(super) pending: Vec<Record>,
}

thread_local! {
    static CATALOG: RefCell<Option<Catalog>> = const { RefCell::new(None) };
}

/// Runs `f` on the catalog, loaded or brought up to date with the journal
/// first (a cheap read of what other instances appended), then saves what
/// `f` changed. On any failure the in-memory copy is dropped, so the next
/// call starts again from the journal.
pub fn with<T>(
    root: &Descriptor,
    f: impl FnOnce(&Descriptor, &mut Catalog) -> Result<T, ErrorCode>,
) -> Result<T, ErrorCode> {
    CATALOG.with(|cell| {
        let mut slot = cell.borrow_mut();
        let outcome = (|| {
            let mut catalog = match slot.take() {
                Some(mut warm) => {
                    if warm.catch_up(root)? {
                        warm
                    } else {
                        Catalog::load(root)?
                    }
                }
                None => Catalog::load(root)?,
            };
            let value = f(root, &mut catalog)?;
            // The journal is a cache: on a store memcap cannot write (or a
            // full disk) the answer stands and the next process rescans.
            if catalog.save(root).is_err() {
                catalog.pending.clear();
            }
            Ok((catalog, value))
        })();
        outcome.map(|(catalog, value)| {
            *slot = Some(catalog);
            value
        })
    })
}

/// Why a read failed, in a few words (no OS text).
fn read_failure(e: ErrorCode) -> &'static str {
    match e {
        ErrorCode::Access | ErrorCode::NotPermitted => "permission denied",
        ErrorCode::IsDirectory => "it is a directory",
        ErrorCode::Loop => "a symbolic link loop",
        _ => "the file system reported an error",
    }
}

impl Catalog {
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values().map(|e| &**e)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Notes from the most recently changed on (ties by path).
    pub fn most_recent(&self) -> impl Iterator<Item = &Entry> {
        self.by_recency.values().map(|e| &**e)
    }

    /// How many notes there are of each type, indexed by `NoteType as usize`.
    pub fn count_by_type(&self) -> [usize; NoteType::ALL.len()] {
        self.by_type
    }

    pub(super) fn empty() -> Self {
        Self {
            entries: BTreeMap::new(),
            by_recency: BTreeMap::new(),
            by_type: [0; NoteType::ALL.len()],
            generation: 0,
            applied: 0,
            records: 0,
            pending: Vec::new(),
        }
    }

    pub(super) fn put(&mut self, mut entry: Entry) {
        self.remove(&entry.path.clone());
        entry.line = super::index::entry_line(&entry);
        self.by_type[entry.meta.kind as usize] += 1;
        let entry = Rc::new(entry);
        self.by_recency.insert(
            (Reverse(entry.recency()), entry.path.clone()),
            Rc::clone(&entry),
        );
        self.entries.insert(entry.path.clone(), entry);
    }

    pub(super) fn remove(&mut self, path: &str) {
        if let Some(old) = self.entries.remove(path) {
            self.by_recency
                .remove(&(Reverse(old.recency()), old.path.clone()));
            self.by_type[old.meta.kind as usize] -= 1;
        }
    }

    /// Brings the catalog in line with the files at and below `top` (a root-
    /// relative path, "" for everything): rereads notes whose stamp differs,
    /// adds new ones, drops vanished ones.
    pub fn scan(&mut self, root: &Descriptor, top: &str) -> Result<(), ErrorCode> {
        let mut seen = Vec::new();
        // File times tick coarsely (a few milliseconds on Linux), so a file
        // rewritten with the same size within one tick keeps its stamp. As
        // git does with "racily clean" entries, stamps this young are not
        // trusted: such files are read again.
        let trust_before = wasip2::clocks::wall_clock::now()
            .seconds
            .saturating_sub(RACY_SECONDS);
        let target = if top.is_empty() {
            Some(DescriptorType::Directory)
        } else {
            match root.stat_at(PathFlags::empty(), top) {
                Ok(st) => Some(st.type_),
                Err(ErrorCode::NoEntry | ErrorCode::NotDirectory) => None,
                Err(e) => return Err(e),
            }
        };
        match target {
            Some(DescriptorType::Directory) => {
                let mut stack = vec![top.to_owned()];
                while let Some(dir) = stack.pop() {
                    let opened = root
                        .open_at(
                            PathFlags::empty(),
                            if dir.is_empty() { "." } else { &dir },
                            OpenFlags::DIRECTORY,
                            DescriptorFlags::READ,
                        )
                        .and_then(|handle| Ok((handle.read_directory()?, handle)));
                    let (entries, handle) = match opened {
                        Ok(opened) => opened,
                        // A directory memcap may not read keeps what it knew
                        // of the notes in it; the rest is scanned as usual.
                        Err(ErrorCode::Access | ErrorCode::NotPermitted) if !dir.is_empty() => {
                            seen.extend(self.under(&dir).cloned());
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    while let Some(entry) = fs::next_entry(&entries)? {
                        let entry_name = entry.name;
                        let path = if dir.is_empty() {
                            entry_name.clone()
                        } else {
                            format!("{dir}/{entry_name}")
                        };
                        if !is_note_path(&path) {
                            continue;
                        }
                        match entry.type_ {
                            DescriptorType::Directory => stack.push(path),
                            DescriptorType::RegularFile => {
                                self.check_file(&handle, &entry_name, &path, trust_before)?;
                                seen.push(path);
                            }
                            _ => {}
                        }
                    }
                }
            }
            Some(DescriptorType::RegularFile) if is_note_path(top) => {
                self.check_file(root, top, top, trust_before)?;
                seen.push(top.to_owned());
            }
            _ => {}
        }
        seen.sort_unstable();
        let vanished: Vec<String> = self
            .under(top)
            .filter(|path| seen.binary_search(path).is_err())
            .cloned()
            .collect();
        for path in vanished {
            self.remove(&path);
            self.pending.push(Record::Del(path));
        }
        Ok(())
    }

    /// Paths in the catalog at or below `top`.
    fn under<'a>(&'a self, top: &'a str) -> impl Iterator<Item = &'a String> + 'a {
        self.entries
            .range::<str, _>((std::ops::Bound::Included(top), std::ops::Bound::Unbounded))
            .map(|(path, _)| path)
            .take_while(move |path| path.starts_with(top))
            .filter(move |path| {
                top.is_empty() || path.len() == top.len() || path.as_bytes()[top.len()] == b'/'
            })
    }

    /// Rereads the file at `path` when its stamp changed or is too young to
    /// trust, and records it when what memcap knows of it changed.
    /// `dir` and `name` locate the file (its directory's handle makes this
    /// one cheap lookup rather than a walk from the root); `path` is its key.
    fn check_file(
        &mut self,
        dir: &Descriptor,
        name: &str,
        path: &str,
        trust_before: u64,
    ) -> Result<(), ErrorCode> {
        let st = match dir.stat_at(PathFlags::empty(), name) {
            Ok(st) => st,
            // Gone since the directory was listed: the caller drops it.
            Err(ErrorCode::NoEntry) => return Ok(()),
            Err(e) => return Err(e),
        };
        let stamp = FileStamp::of(&st);
        // The modification time alone decides: a rewrite that also sets an
        // old modification time still moves the change time in the stamp.
        let trusted = stamp.modified.is_some_and(|(s, _)| s < trust_before);
        if trusted && self.entries.get(path).is_some_and(|e| e.stamp == stamp) {
            return Ok(());
        }
        let file_name = path.rsplit('/').next().unwrap_or(path);
        let meta = match fs::read_head(dir, name, HEAD_BYTES) {
            Ok(bytes) => {
                // A cut in the middle of a character only loses that character.
                let text = match std::str::from_utf8(&bytes) {
                    Ok(text) => text.to_owned(),
                    Err(e) if e.error_len().is_none() => {
                        String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
                    }
                    Err(_) => String::new(),
                };
                let mut meta = frontmatter::read(&text, file_name);
                if text.is_empty() && !bytes.is_empty() {
                    meta.problem = Some(
                        "the file is not UTF-8 text, so memcap cannot read its metadata".to_owned(),
                    );
                }
                meta
            }
            Err(ErrorCode::NoEntry) => return Ok(()),
            // One file memcap may not read must not keep it from the rest:
            // it is listed, with what is wrong and how to fix it.
            Err(e) => {
                let mut meta = frontmatter::read("", file_name);
                meta.problem = Some(format!(
                    "memcap could not read this file ({}); check its permissions",
                    read_failure(e)
                ));
                meta
            }
        };
        let entry = Entry {
            path: path.to_owned(),
            stamp,
            meta,
            line: String::new(),
        };
        if self
            .entries
            .get(path)
            .is_some_and(|e| e.stamp == entry.stamp && e.meta == entry.meta)
        {
            // Reread only because its stamp is young: nothing to record.
            return Ok(());
        }
        self.put(entry.clone());
        self.pending.push(Record::Put(entry));
        Ok(())
    }
}
