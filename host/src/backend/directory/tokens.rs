//! Tokens of a directory store: `BASE/.memcap/tokens.json`, beside the
//! namespaces (`BASE/NAME`) and outside every grant (a namespace cannot
//! start with a dot, and `.memcap` is reserved inside a store too). The
//! file is 0600 in a 0700 directory, replaced whole under a lock, and read
//! again only when it changed.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::tokens::{TokenError, TokenRecord, TokenStore};

const FILE: &str = "tokens.json";
const LOCK: &str = "tokens.lock";

/// The token file of one base directory.
pub struct DirectoryTokens {
    dir: PathBuf,
    /// The records last read, with the file's identity then.
    cache: Mutex<Option<(Stamp, Vec<TokenRecord>)>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

#[derive(Serialize, Deserialize)]
struct Contents {
    version: u32,
    tokens: Vec<TokenRecord>,
}

impl DirectoryTokens {
    /// The tokens of the namespaces under `base`.
    pub fn new(base: &Path) -> Self {
        Self {
            dir: base.join(".memcap"),
            cache: Mutex::new(None),
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    fn io(&self, doing: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> TokenError {
        let path = path.to_path_buf();
        move |cause| TokenError::File { doing, path, cause }
    }

    /// Whether `path` (the directory or the file) may be trusted: not a
    /// link, owned by the user memcap runs as, writable by nobody else.
    /// Another user who can write either could mint a token for any
    /// namespace, or un-revoke one.
    fn trusted(&self, path: &Path, meta: &std::fs::Metadata) -> Result<(), TokenError> {
        let unsafe_because = |why| TokenError::Unsafe {
            path: path.to_path_buf(),
            why,
        };
        if meta.file_type().is_symlink() {
            return Err(unsafe_because("is a symbolic link"));
        }
        if meta.uid() != rustix::process::geteuid().as_raw() {
            return Err(unsafe_because("belongs to another user"));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(unsafe_because("is writable by other users"));
        }
        Ok(())
    }

    /// The records as the file holds them now (none when there is no file).
    fn read(&self) -> Result<Vec<TokenRecord>, TokenError> {
        let path = self.path();
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.io("read", &path)(e)),
        };
        let dir_meta = std::fs::symlink_metadata(&self.dir).map_err(self.io("read", &self.dir))?;
        self.trusted(&self.dir, &dir_meta)?;
        self.trusted(&path, &meta)?;
        let stamp = Stamp {
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        };
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, records)) = &*cache
            && *seen == stamp
        {
            return Ok(records.clone());
        }
        let text = std::fs::read(&path).map_err(self.io("read", &path))?;
        let contents: Contents =
            serde_json::from_slice(&text).map_err(|_| TokenError::Damaged(path.clone()))?;
        let mut ids = std::collections::HashSet::new();
        if let Some(twice) = contents.tokens.iter().find(|r| !ids.insert(r.id.as_str())) {
            return Err(TokenError::DuplicateId {
                path,
                id: twice.id.clone(),
            });
        }
        *cache = Some((stamp, contents.tokens.clone()));
        Ok(contents.tokens)
    }

    /// Changes the records under the lock and replaces the file whole.
    fn change<R>(&self, f: impl FnOnce(&mut Vec<TokenRecord>) -> R) -> Result<R, TokenError> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(self.io("create the directory of", &self.path()))?;
        let lock_path = self.dir.join(LOCK);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&lock_path)
            .map_err(self.io("lock", &lock_path))?;
        lock.lock().map_err(self.io("lock", &lock_path))?;
        let mut records = self.read()?;
        let answer = f(&mut records);
        let path = self.path();
        let temp = self.dir.join(format!("{FILE}.{}.tmp", std::process::id()));
        let text = serde_json::to_vec_pretty(&Contents {
            version: 1,
            tokens: records,
        })
        .expect("token records always serialise");
        let write = || -> std::io::Result<()> {
            let mut file: File = OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .mode(0o600)
                .open(&temp)?;
            file.write_all(&text)?;
            file.sync_all()?;
            std::fs::rename(&temp, &path)
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(&temp);
            return Err(self.io("write", &path)(e));
        }
        Ok(answer)
    }
}

impl TokenStore for DirectoryTokens {
    fn add(&self, record: &TokenRecord) -> Result<(), TokenError> {
        self.change(|records| records.push(record.clone()))
    }

    fn all(&self) -> Result<Vec<TokenRecord>, TokenError> {
        self.read()
    }

    fn find(&self, id: &str) -> Result<Option<TokenRecord>, TokenError> {
        Ok(self.read()?.into_iter().find(|r| r.id == id))
    }

    fn revoke(&self, id: &str, at: i64) -> Result<bool, TokenError> {
        self.change(|records| match records.iter_mut().find(|r| r.id == id) {
            Some(record) => {
                record.revoked.get_or_insert(at);
                true
            }
            None => false,
        })
    }

    fn touch(&self, id: &str, at: i64) -> Result<(), TokenError> {
        self.change(|records| {
            if let Some(record) = records.iter_mut().find(|r| r.id == id) {
                record.last_used = Some(at);
            }
        })
    }

    fn configured(&self) -> Result<bool, TokenError> {
        match std::fs::symlink_metadata(self.path()) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(self.io("read", &self.path())(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::{Access, Refusal, mint, verify};

    #[test]
    fn a_token_is_kept_as_a_hash_in_a_private_file_and_revoking_it_holds() {
        let base = tempfile::tempdir().unwrap();
        let store = DirectoryTokens::new(base.path());
        assert!(!store.configured().unwrap());
        let (record, token) =
            mint(Access::new("alice", vec![], false), "laptop".into(), None).unwrap();
        store.add(&record).unwrap();
        assert!(store.configured().unwrap());
        let file = base.path().join(".memcap/tokens.json");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains(&token[20..]), "the secret was stored");
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
        assert_eq!(
            verify(&store, &token).unwrap().unwrap().access.namespace,
            "alice"
        );
        let wrong = format!(
            "{}{}",
            &token[..token.len() - 1],
            if token.ends_with('0') { '1' } else { '0' }
        );
        assert_eq!(verify(&store, &wrong).unwrap(), Err(Refusal::Unknown));
        assert!(store.revoke(&record.id, 5).unwrap());
        assert_eq!(verify(&store, &token).unwrap(), Err(Refusal::Revoked));
        assert!(!store.revoke("000000000000", 5).unwrap());
    }

    #[test]
    fn an_expired_token_is_refused() {
        let base = tempfile::tempdir().unwrap();
        let store = DirectoryTokens::new(base.path());
        let (record, token) =
            mint(Access::new("bob", vec![], true), String::new(), Some(1)).unwrap();
        store.add(&record).unwrap();
        assert_eq!(verify(&store, &token).unwrap(), Err(Refusal::Expired));
    }
}
