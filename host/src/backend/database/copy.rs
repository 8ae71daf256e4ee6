//! A namespace copied out and in whole (`memcap copy`): its files, and
//! its version history beside them, in the call's one transaction.

use super::DatabaseStore;
use crate::backend::entries::{
    CopyError, Entry, Exported, Reserved, check_history, check_import, in_history, is_reserved,
};

impl DatabaseStore {
    /// [`crate::backend::Backend::export`].
    pub(super) fn export_entries(&mut self, reserved: Reserved) -> Result<Exported, CopyError> {
        let mut state = self.fs.lock();
        let tree = state
            .all_loaded(0)
            .map_err(|_| CopyError::Io("the namespace could not be read".into()))?;
        // A namespace holds only directories and files: nothing is skipped.
        let entries = tree
            .rows()
            .into_iter()
            .filter(|row| !row.path.is_empty() && reserved.takes(&row.path))
            .map(|row| match row.size {
                Some(_) => {
                    let data = tree.data(row.ino).unwrap_or_default();
                    Entry::File(row.path, data.to_vec())
                }
                None => Entry::Dir(row.path),
            })
            .collect();
        Ok(Exported {
            entries,
            ..Exported::default()
        })
    }

    /// [`crate::backend::Backend::import`].
    pub(super) fn import_entries(
        &mut self,
        entries: &[Entry],
        history: &[Entry],
        replace: bool,
    ) -> Result<(), CopyError> {
        let mut state = self.fs.lock();
        state
            .whole(0)
            .map_err(|_| CopyError::Io("the namespace could not be read".into()))?;
        let mount = &mut state.mounts[0];
        if !mount.writable {
            return Err(CopyError::Io("the namespace cannot be written".into()));
        }
        check_import(entries)?;
        check_history(history, replace)?;
        let tree = &mut mount.tree;
        if tree.top_names().iter().any(|name| !is_reserved(name)) && !replace {
            return Err(CopyError::NotEmpty);
        }
        let rows = tree.rows();
        if !history.is_empty()
            && rows
                .iter()
                .any(|row| row.size.is_some() && in_history(&row.path))
        {
            return Err(CopyError::HasHistory);
        }
        if replace {
            // Everything but the version history (it cannot be rebuilt,
            // and it is what undoes this): the files, and the derived
            // state, so it is rebuilt from what lands.
            let gone = rows.iter().map(|row| row.path.as_str()).filter(|path| {
                let depth = path.split('/').count();
                let top = depth == 1 && *path != memcap_core::layout::RESERVED;
                let own = depth == 2 && is_reserved(path) && !in_history(path);
                !path.is_empty() && (top || own)
            });
            for path in gone.collect::<Vec<_>>() {
                tree.remove_all(path).map_err(|_| {
                    CopyError::Io("the namespace's files could not be removed".into())
                })?;
            }
        }
        for entry in entries.iter().chain(history) {
            let data = match entry {
                Entry::Dir(_) => None,
                Entry::File(_, data) => Some(data.as_slice()),
            };
            tree.put(entry.path(), data).map_err(|_| {
                CopyError::Refused(
                    entry.path().to_owned(),
                    "could not be written in the namespace",
                )
            })?;
        }
        drop(state);
        self.imported = true;
        Ok(())
    }
}
