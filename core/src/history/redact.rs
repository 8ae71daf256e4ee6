//! Forgetting for real: a version's content erased from the store (its
//! kept copy, and every derived file that could still hold words of it,
//! rebuilt from the files as they are), its record kept and marked with
//! who redacted it and when.

use std::collections::{BTreeMap, BTreeSet};

use super::pending::content_hash;
use super::query::{numbered, read};
use super::retention::newest_of_live;
use super::track::actor;
use super::version::{Redaction, Version, is_redacted_name, redacted_name, within};
use super::{blobs, log};
use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::layout::{JOURNAL, TEMP_DIR};
use crate::vpath::MemPath;

/// What a redaction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redacted {
    /// The versions whose content is gone (every version with the same
    /// content, whatever its path: it is one content).
    pub versions: Vec<u64>,
    /// Contents erased.
    pub contents: usize,
    /// Versions left (with `--all`) because their content is a file's
    /// current content: change or delete the file, then redact again.
    pub current: Vec<u64>,
    /// File names erased (with `--all`, of the path and every file under
    /// it that is no longer there): each version that had one shows
    /// `(redacted)` instead.
    pub names: usize,
}

/// Erases the content of version `number` of `path`, or (`None`) of every
/// version of it (of every file under it, for a directory).
pub fn redact(io: &Io, path: &MemPath, shown: &str, number: Option<u64>) -> Result<Redacted> {
    let key = path.key();
    // A crash's versions in flight are settled before the log is rewritten.
    super::pending::recover(io).map_err(|e| files::tool_error(e, shown, "redact"))?;
    let versions = read(io)?;
    let chosen: Vec<&Version> = match number {
        Some(n) => vec![numbered(&versions, &key, shown, n)?],
        None => versions.iter().filter(|v| v.touches(&key, true)).collect(),
    };
    let mut shas: BTreeSet<String> = chosen.iter().filter_map(|v| v.sha256.clone()).collect();
    // A content that is a file's now is not history: the file holds it.
    let current: BTreeSet<String> = newest_of_live(&versions)
        .into_iter()
        .filter_map(|i| {
            let v = &versions[i];
            let sha = v.sha256.as_ref()?;
            (shas.contains(sha) && content_hash(io, &v.path).as_ref() == Some(sha))
                .then(|| sha.clone())
        })
        .collect();
    let mut redacted = Redacted::default();
    if let Some(n) = number
        && !current.is_empty()
    {
        return Err(ToolError::RedactCurrent {
            path: shown.into(),
            version: n,
        });
    }
    for sha in &current {
        shas.remove(sha);
        redacted.current.extend(
            versions
                .iter()
                .filter(|v| v.sha256.as_ref() == Some(sha))
                .map(|v| v.v),
        );
    }
    let fail = |e: FsError| files::tool_error(e, shown, "redact");
    let (name, id) = actor(io);
    let mark = Redaction {
        t: io.now_seconds(),
        actor: name,
        actor_id: id,
    };
    // With every version of a path, its name goes too (and the names of
    // the files under it), unless a file has it now: the file holds it.
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    if number.is_none() {
        for v in &versions {
            for p in [Some(&v.path), v.from.as_ref()].into_iter().flatten() {
                let named = *p == key || within(p, &key);
                if named && !is_redacted_name(p) && io.fs.stat(p, false).is_err() {
                    names.entry(p.clone()).or_insert_with(|| redacted_name(v.v));
                }
            }
        }
    }
    redacted.names = names.len();
    let rename = |p: &mut String| {
        if let Some(to) = names.get(p.as_str()) {
            *p = to.clone();
        }
    };
    let rewritten: Vec<Version> = versions
        .iter()
        .cloned()
        .map(|mut v| {
            if v.sha256.as_ref().is_some_and(|s| shas.contains(s)) {
                v.sha256 = None;
                v.redacted = Some(mark.clone());
                redacted.versions.push(v.v);
            }
            if v.prev.as_ref().is_some_and(|s| shas.contains(s)) {
                v.prev = None;
            }
            rename(&mut v.path);
            if let Some(from) = v.from.as_mut() {
                rename(from);
            }
            if names.is_empty() {
                return v;
            }
            // A version that lost its name is marked even if its content
            // stays (a content another file holds now).
            if (is_redacted_name(&v.path) || v.from.as_deref().is_some_and(is_redacted_name))
                && v.redacted.is_none()
            {
                v.redacted = Some(mark.clone());
            }
            v
        })
        .collect();
    // Redacted before by an older memcap, whose order left the derived
    // state last: it is forgotten again.
    let again = chosen.iter().any(|v| v.redacted.is_some());
    if shas.is_empty() && names.is_empty() && !again {
        return Ok(redacted);
    }
    // The derived state first (the next call rebuilds it from the files,
    // which hold neither the contents nor the names going), then the
    // contents, then the log last: once the log lost a name, a rerun can no
    // longer find the path, so every other step must be done by then. A
    // crash before it leaves versions still named (whose content may read
    // as gone), and the same redaction run again does every step.
    forget_derived(io).map_err(fail)?;
    for sha in &shas {
        redacted.contents += usize::from(blobs::erase(io, sha).map_err(fail)?);
    }
    if !shas.is_empty() || !names.is_empty() {
        // The names were in the catalog and the indexes too, as a file's
        // path or a link's target: they went with the derived state above.
        super::paths::remove(io).map_err(fail)?;
        let placed = log::rewrite(io, &rewritten).map_err(fail)?;
        super::paths::write(io, &rewritten, &placed).map_err(fail)?;
    }
    Ok(redacted)
}

/// Removes what memcap derived from the files (the catalog's journal, with
/// the search index and graph saved in it) and any staged leftovers, so
/// nothing of an erased content outlives it there: the next call rebuilds
/// them from the files as they are.
fn forget_derived(io: &Io) -> std::result::Result<(), FsError> {
    crate::notes::catalog::forget(io);
    match io.fs.remove_file(JOURNAL) {
        Ok(()) | Err(FsError::NotFound) => {}
        Err(e) => return Err(e),
    }
    match io.fs.list(TEMP_DIR) {
        Ok(entries) => {
            for entry in entries {
                let _ = io.fs.remove_file(&format!("{TEMP_DIR}/{}", entry.name));
            }
        }
        Err(FsError::NotFound) => {}
        Err(e) => return Err(e),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{blobs, query};
    use crate::indexes::TestStore as Store;
    use crate::storage::Storage;
    use crate::vpath::MemPath;

    impl Store {
        fn ok(&self, input: serde_json::Value) {
            let result = crate::call(&self.io(), &input.to_string());
            assert!(!result.is_error, "{input}: {}", result.content);
        }

        /// `path` made to hold `text`: removed first when it is there, so
        /// each write is a version of its own.
        fn write(&self, path: &str, text: &str) {
            if self.fs.stat(&path["/memories/".len()..], false).is_ok() {
                self.ok(serde_json::json!({"command": "delete", "path": path}));
            }
            self.ok(serde_json::json!({"command": "create", "path": path, "file_text": text}));
        }

        fn redact(&self, path: &str, number: Option<u64>) -> Result<Redacted> {
            redact(&self.io(), &MemPath::parse(path)?, path, number)
        }

        fn versions(&self) -> Vec<Version> {
            query::read(&self.io()).unwrap()
        }
    }

    #[test]
    fn one_content_is_erased_from_every_version_that_kept_it() {
        let s = Store::new();
        s.write("/memories/a.md", "the secret\n");
        s.write("/memories/b.md", "the secret\n");
        s.write("/memories/a.md", "clean\n");
        s.write("/memories/b.md", "clean\n");
        let secret = s.versions()[0].sha256.clone().unwrap();
        let first = s.versions()[0].v;
        let redacted = s.redact("/memories/a.md", Some(first)).unwrap();
        // b.md's version held the same bytes: one content, gone for both.
        let with_it: Vec<u64> = s
            .versions()
            .iter()
            .filter(|v| v.redacted.is_some())
            .map(|v| v.v)
            .collect();
        assert_eq!(redacted.versions, with_it);
        assert_eq!(redacted.versions.len(), 2, "{redacted:?}");
        assert_eq!(redacted.contents, 1);
        assert_eq!(blobs::get(&s.io(), &secret).unwrap(), None);
        assert!(
            s.versions()
                .iter()
                .all(|v| v.sha256.as_deref() != Some(&*secret)
                    && v.prev.as_deref() != Some(&*secret))
        );
        // What memcap derived from the files went with it, to be rebuilt.
        assert!(s.fs.stat(JOURNAL, false).is_err());
        assert_eq!(s.fs.files()["a.md"], b"clean\n");
    }

    #[test]
    fn a_files_current_content_is_not_history_and_is_left() {
        let s = Store::new();
        s.write("/memories/a.md", "still here\n");
        let only = s.versions()[0].v;
        // One version asked for by number: refused, nothing changed.
        let before = s.fs.files();
        assert!(matches!(
            s.redact("/memories/a.md", Some(only)),
            Err(ToolError::RedactCurrent { .. })
        ));
        assert_eq!(s.fs.files(), before);
        // Every version of the path: that one is named as left.
        let redacted = s.redact("/memories/a.md", None).unwrap();
        assert_eq!(redacted.current, [only]);
        assert!(redacted.versions.is_empty());
        assert_eq!(redacted.names, 0, "the file has its name now");
        assert_eq!(s.fs.files()["a.md"], b"still here\n");
    }
}
