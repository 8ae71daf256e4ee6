//! A namespace copied out and in whole (`memcap copy`): its files, and
//! its version history beside them, in the call's one transaction (the
//! tree work is the served file system's, [`crate::backend::served::access`]).

use super::DatabaseStore;
use crate::backend::entries::{CopyError, Entry, Exported, Reserved};
use crate::backend::served::access;

impl DatabaseStore {
    /// [`crate::backend::Backend::export`].
    pub(super) fn export_entries(&mut self, reserved: Reserved) -> Result<Exported, CopyError> {
        access::export(&mut self.fs.lock(), reserved)
    }

    /// [`crate::backend::Backend::import`].
    pub(super) fn import_entries(
        &mut self,
        entries: &[Entry],
        history: &[Entry],
        replace: bool,
    ) -> Result<(), CopyError> {
        access::import(&mut self.fs.lock(), entries, history, replace)?;
        self.imported = true;
        Ok(())
    }
}
