//! A host's own access to a served file system's first mount, the store's
//! root (for [`crate::backend::Backend`]'s `export`, `read_file`, `edit`
//! and `import`): the same for every backend that serves its files, each
//! only loading and saving the trees around it.

use super::FsState;
use super::tree::ROOT_INO;
use crate::backend::entries::{
    CopyError, Entry, Exported, HostEdit, Reserved, check_history, check_import, in_history,
    is_reserved,
};

/// Every directory and file of the root, with what `reserved` takes of
/// `.memcap`; a served tree holds only directories and files, so nothing
/// is skipped.
pub(crate) fn export(state: &mut FsState, reserved: Reserved) -> Result<Exported, CopyError> {
    let tree = state.all_loaded(0).map_err(|_| unreadable())?;
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

/// The file at `path`, `None` where there is none.
pub(crate) fn read_file(state: &mut FsState, path: &str) -> Result<Option<Vec<u8>>, CopyError> {
    let unread = |_| CopyError::Io(format!("{path} could not be read from the store"));
    state.reveal(0, ROOT_INO, path).map_err(unread)?;
    let Ok(ino) = state.mounts[0].tree.resolve(ROOT_INO, path) else {
        return Ok(None);
    };
    state
        .data(0, ino)
        .map(|data| Some(data.to_vec()))
        .map_err(unread)
}

/// Changes `path` as another program would.
pub(crate) fn edit(state: &mut FsState, path: &str, edit: HostEdit<'_>) -> Result<(), CopyError> {
    let max = state.max_file_bytes;
    let tree = state.whole(0).map_err(|_| unreadable())?;
    let refused = |_| {
        CopyError::Refused(
            path.to_owned(),
            "no such file, or not a plain relative path",
        )
    };
    match edit {
        HostEdit::Write(bytes) => match tree.resolve(ROOT_INO, path) {
            Ok(ino) => tree
                .set_size(ino, 0, max)
                .and_then(|()| tree.write(ino, 0, bytes, max)),
            Err(_) => tree.put(path, Some(bytes)),
        },
        HostEdit::MakeDir => tree.put(path, None),
        HostEdit::Modified(time) => {
            let nanos = time
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as i64);
            tree.resolve(ROOT_INO, path)
                .and_then(|ino| tree.set_modified(ino, nanos))
        }
        HostEdit::Remove => tree.remove_all(path),
        HostEdit::RenameTo(to) => tree.rename_path(path, to),
    }
    .map_err(refused)
}

/// Writes `entries`, and `history` beside them, into the root, as
/// [`crate::backend::Backend::import`] says.
pub(crate) fn import(
    state: &mut FsState,
    entries: &[Entry],
    history: &[Entry],
    replace: bool,
) -> Result<(), CopyError> {
    state.whole(0).map_err(|_| unreadable())?;
    let mount = &mut state.mounts[0];
    if !mount.writable {
        return Err(CopyError::Io("the store cannot be written".into()));
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
        // Everything but the version history (it cannot be rebuilt, and it
        // is what undoes this): the files, and the derived state, so it is
        // rebuilt from what lands.
        let gone = rows.iter().map(|row| row.path.as_str()).filter(|path| {
            let depth = path.split('/').count();
            let top = depth == 1 && *path != memcap_core::layout::RESERVED;
            let own = depth == 2 && is_reserved(path) && !in_history(path);
            !path.is_empty() && (top || own)
        });
        for path in gone.collect::<Vec<_>>() {
            tree.remove_all(path)
                .map_err(|_| CopyError::Io("the store's files could not be removed".into()))?;
        }
    }
    for entry in entries.iter().chain(history) {
        let data = match entry {
            Entry::Dir(_) => None,
            Entry::File(_, data) => Some(data.as_slice()),
        };
        tree.put(entry.path(), data).map_err(|_| {
            CopyError::Refused(entry.path().to_owned(), "could not be written in the store")
        })?;
    }
    Ok(())
}

fn unreadable() -> CopyError {
    CopyError::Io("the store could not be read".into())
}
