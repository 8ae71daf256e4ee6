//! How a call ends on the database: what it changed written in its
//! transaction and committed (a lost answer to `COMMIT` asked about on a
//! new connection), or discarded; and the news other hosts' commits bring.

use super::*;

impl DatabaseStore {
    /// Writes what the call changed (in the open transaction) and commits.
    pub(super) fn save(&mut self) -> Result<(), postgres::Error> {
        self.write_changes()?;
        let client = self.client.as_mut().expect("a call holds a connection");
        client.batch_execute("COMMIT")
    }

    /// Writes what the call changed, in the open transaction.
    pub(super) fn write_changes(&mut self) -> Result<(), postgres::Error> {
        let client = self.client.as_mut().expect("a call holds a connection");
        let mut state = self.fs.lock();
        for (ns, mount) in self.namespaces.iter_mut().zip(&mut state.mounts) {
            let (Some(id), true) = (ns.id, ns.writable) else {
                continue;
            };
            if !mount.tree.is_dirty() {
                continue;
            }
            let version = ns.version.unwrap_or(0) + 1;
            rows::save(client, id, &mut mount.tree, version)?;
            ns.version = Some(version);
        }
        Ok(())
    }

    /// A call's commit failed. When the server answered (an error of its
    /// own), nothing was saved. When the answer was lost (the connection
    /// broke), the commit may have landed: the transaction's fate is asked
    /// on a new connection, and the agent told what it was.
    pub(super) fn commit_failed(&mut self, e: &postgres::Error) -> Result<Instance, ToolError> {
        let xid = self.xid.take();
        let (Some(xid), None) = (xid, e.as_db_error()) else {
            self.discard();
            return Err(unsaved_error(e, self.call_timeout));
        };
        log(e);
        self.client = None;
        // The server may not have seen the old connection go yet: while the
        // transaction is in progress, ask again, within a bound.
        let deadline = std::time::Instant::now() + self.call_timeout.min(Duration::from_secs(5));
        let fate = loop {
            let asked = self.client().and_then(|c| rows::commit_status(c, xid));
            match asked {
                Ok(Some(fate)) => break Some(fate),
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Ok(None) => break None,
                Err(e) => {
                    log(&e);
                    break None;
                }
            }
        };
        match fate {
            // Saved: the trees held here are what was committed.
            Some(true) => Ok(Instance::stale()),
            Some(false) => {
                self.discard();
                Err(error::lost_commit_not_saved())
            }
            None => {
                self.discard();
                Err(error::lost_commit_unknown())
            }
        }
    }

    /// What a read changed (the guest's derived state), saved under the
    /// locks if the namespaces are still at the versions it read; `false`
    /// when another host committed first (its changes are thrown away).
    pub(super) fn save_after_read(&mut self) -> Result<bool, postgres::Error> {
        if !self.fs.lock().mounts.iter().any(|m| m.tree.is_dirty()) {
            return Ok(true);
        }
        let locks = self.locks();
        let (versions, _) = rows::begin_locked(self.client()?, locks, false, false)?;
        if !self.current(&versions) {
            self.discard();
            return Ok(false);
        }
        self.save().map(|()| true)
    }

    /// Refreshes the planner's statistics after a bulk import: planned with
    /// statistics from before it, a write's statement scanned the whole
    /// pages table (a `create` at 10,000 notes took 6–8 ms instead of 1.1
    /// ms until autovacuum came round). A role that does not own the
    /// tables is skipped with a notice; any error is only logged.
    pub(super) fn analyze(&mut self) {
        if let Some(client) = self.client.as_mut()
            && let Err(e) = client.batch_execute("ANALYZE memcap_entries, memcap_pages")
        {
            log(&e);
        }
    }

    /// Throws the call's changes away: the transaction, and the trees
    /// (read again by the next call).
    pub(super) fn discard(&mut self) {
        self.imported = false;
        // A connection given up on (or gone) is dropped, not asked to roll
        // back: the server rolls the transaction back when it goes.
        if let Some(client) = self.client.as_mut()
            && (client.is_closed() || client.batch_execute("ROLLBACK").is_err())
        {
            self.client = None;
        }
        for ns in &mut self.namespaces {
            ns.version = None;
        }
        // The root namespace may have been made by the call rolled back.
        self.namespaces[0].id = None;
    }

    /// Ends the call as its outcome says. `unread`: why a paged file the
    /// guest asked for could not be read (then nothing of the call stands:
    /// the guest saw a read fail that did not fail on the data).
    pub(super) fn end_call(
        &mut self,
        outcome: Outcome,
        unread: Option<postgres::Error>,
    ) -> Result<Instance, ToolError> {
        let Some(mode) = self.mode.take() else {
            return Ok(Instance::default());
        };
        if let Some(e) = unread {
            self.discard();
            return Err(error::unread_error(&e, self.call_timeout));
        }
        if std::mem::take(&mut self.snapshot)
            && let Some(client) = self.client.as_mut()
            && let Err(e) = client.batch_execute("COMMIT")
        {
            // A read-only snapshot: what was read stands; what the guest
            // changed is not saved.
            log(&e);
            self.discard();
            return Ok(Instance::stale());
        }
        match (outcome, mode) {
            (Outcome::Returned, Mode::ReadingAhead(pending)) => Ok(self.end_read_ahead(pending)),
            (Outcome::Returned, Mode::Locked) => {
                if let Err(e) = self.write_changes() {
                    self.discard();
                    return Err(unsaved_error(&e, self.call_timeout));
                }
                let client = self.client.as_mut().expect("a call holds a connection");
                match client.batch_execute("COMMIT") {
                    Ok(()) => {
                        self.xid = None;
                        if std::mem::take(&mut self.imported) {
                            self.analyze();
                        }
                        Ok(Instance::default())
                    }
                    Err(e) => self.commit_failed(&e),
                }
            }
            // The answer stands either way: it was read from one snapshot.
            (Outcome::Returned, Mode::Reading) => match self.save_after_read() {
                Ok(saved) => Ok(Instance {
                    stale: !saved,
                    again: false,
                }),
                Err(e) => {
                    log(&e);
                    self.discard();
                    Ok(Instance::stale())
                }
            },
            // A read's changes are only the guest's derived state: as on a
            // directory, what it saved before the time limit stopped it is
            // kept (if nobody committed meanwhile), so a large store's first
            // index goes on across calls instead of starting over in each.
            (Outcome::Stopped, Mode::Reading | Mode::ReadingAhead(_)) => {
                if let Err(e) = self.save_after_read() {
                    log(&e);
                    self.discard();
                }
                Ok(Instance::stale())
            }
            (Outcome::Stopped, Mode::Locked) => {
                self.discard();
                Ok(Instance::stale())
            }
        }
    }
}

/// A tree's files and what says they changed: inode, times and size.
pub(super) type Stamps = HashMap<String, (u64, i64, i64, Option<u64>)>;

pub(super) fn stamps(tree: &Tree) -> Stamps {
    tree.rows()
        .into_iter()
        .filter(|row| row.size.is_some())
        .map(|row| (row.path, (row.ino, row.mtime, row.ctime, row.size)))
        .collect()
}

/// Adds the files that differ between `before` and `tree` (made, changed
/// or gone), as the guest names them under `mount`; memcap's own files are
/// left out, and the list stops at [`MAX_NEWS`].
pub(super) fn news_of(news: &mut Vec<String>, mount: &str, before: &Stamps, tree: &Tree) {
    let after = stamps(tree);
    let changed = after
        .iter()
        .filter(|(path, stamp)| before.get(*path) != Some(stamp))
        .map(|(path, _)| path)
        .chain(before.keys().filter(|path| !after.contains_key(*path)));
    for path in changed {
        if news.len() >= MAX_NEWS {
            return;
        }
        if !is_reserved(path) {
            news.push(format!("{mount}/{path}"));
        }
    }
}
