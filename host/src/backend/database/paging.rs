//! Pages on demand: a host's first call on a namespace reads its entries
//! and leaves the files' bytes in the database, read only as the guest
//! opens them (one query a file), on the call's own connection and within
//! its snapshot. The call after it reads the trees whole, as every call
//! does after a change elsewhere, so only a one-shot call (the CLI's) or a
//! new server's first call is spared the whole namespace.

use super::DatabaseStore;
use super::pager::Pager;

impl DatabaseStore {
    /// Lends the call's connection to the file system, if a tree holds
    /// paged files; the call must hold its snapshot until it ends.
    pub(super) fn lend_pager(&mut self) {
        if !self.paged {
            return;
        }
        let ids = self.namespaces.iter().map(|ns| ns.id).collect();
        if let Some(conn) = self.client.take() {
            self.fs.lock().pager = Some(Box::new(Pager::new(conn, ids)));
        }
    }

    /// Takes the connection back when the call ends, with why a file
    /// could not be read, if one could not (then neither the call's answer
    /// nor its changes stand).
    pub(super) fn reclaim_pager(&mut self) -> Option<postgres::Error> {
        let source = self.fs.lock().pager.take()?;
        let Ok(pager) = source.into_any().downcast::<Pager>() else {
            unreachable!("only this backend lends its file system a source")
        };
        let (conn, failed) = pager.into_parts();
        self.client = Some(conn);
        failed
    }

    /// After a call on paged trees: the next call reads them whole.
    pub(super) fn unpage(&mut self) {
        if std::mem::take(&mut self.paged) {
            for ns in &mut self.namespaces {
                ns.version = None;
            }
        }
    }
}
