//! The walk on its own: which files below a path become notes, how far up
//! a change's directories are stamped, and what a directory's listing
//! drops when names go.

use std::collections::BTreeMap;

use super::*;
use crate::indexes::TestStore as Store;
use crate::notes::catalog;
use crate::storage::Storage;

impl Store {
    /// Writes `path` as another program would, making its directories.
    fn put(&self, path: &str) {
        let mut dir = String::new();
        for part in path.split('/').take(path.split('/').count() - 1) {
            if !dir.is_empty() {
                dir.push('/');
            }
            dir.push_str(part);
            match self.fs.create_dir(&dir) {
                Ok(()) | Err(FsError::Exists) => {}
                Err(e) => panic!("{dir}: {e:?}"),
            }
        }
        self.fs.write_new(path, b"x\n", false).unwrap();
    }

    fn with<T>(&self, f: impl FnMut(&Io, &mut Catalog) -> Result<T, FsError>) -> T {
        catalog::with(&self.io(), f).unwrap()
    }

    fn notes(&self) -> Vec<String> {
        self.with(|_, c| Ok(c.entries().map(|e| e.path.clone()).collect()))
    }

    fn dirs(&self) -> Vec<String> {
        self.with(|_, c| Ok(c.walk.dirs.keys().cloned().collect()))
    }
}

#[test]
fn a_walk_finds_the_notes_below_and_leaves_memcaps_own_files_out() {
    let s = Store::new();
    for path in [
        "a.md",
        "d/b.md",
        "d/e/c.md",
        ".memcap/x.md",
        "d/.hidden.md",
        "MEMORY.md",
    ] {
        s.put(path);
    }
    s.with(|io, c| c.update(io, ""));
    let mut notes = s.notes();
    notes.sort();
    assert_eq!(notes, ["a.md", "d/b.md", "d/e/c.md"]);
    assert!(!s.dirs().iter().any(|d| d.starts_with(".memcap")));
}

#[test]
fn a_directory_gone_takes_its_notes_and_directories_along() {
    let s = Store::new();
    for path in ["a.md", "d/b.md", "d/e/c.md"] {
        s.put(path);
    }
    s.with(|io, c| c.update(io, ""));
    assert!(s.dirs().contains(&"d/e".to_owned()));
    // Gone behind memcap's back: the root's listing no longer has `d`.
    for path in ["d/e/c.md", "d/b.md"] {
        s.fs.remove_file(path).unwrap();
    }
    s.fs.remove_dir("d/e").unwrap();
    s.fs.remove_dir("d").unwrap();
    s.with(|io, c| c.update(io, ""));
    assert_eq!(s.notes(), ["a.md"]);
    assert_eq!(s.dirs(), [""]);
}

#[test]
fn a_change_stamps_its_directories_up_to_the_first_one_known_before() {
    let s = Store::new();
    s.put("a.md");
    s.with(|io, c| c.update(io, ""));
    s.put("d/e/f/n.md");
    let done = s.with(|io, c| {
        let mut done = Vec::new();
        c.stamp_parents(io, "d/e/f/n.md", &mut done)?;
        Ok(done)
    });
    // The root was known: it is stamped again (a name was made in it)
    // and nothing above it is looked at.
    assert_eq!(done, ["d/e/f", "d/e", "d", ""]);
    s.put("d/e/g/m.md");
    let done = s.with(|io, c| {
        let mut done = Vec::new();
        c.stamp_parents(io, "d/e/g/m.md", &mut done)?;
        Ok(done)
    });
    assert_eq!(
        done,
        ["d/e/g", "d/e"],
        "d/e was known: the walk up stops there"
    );
    // Each stamp is the directory's own, as listed now.
    let dirs = s.dirs();
    for dir in ["", "d", "d/e", "d/e/f", "d/e/g"] {
        assert!(dirs.contains(&dir.to_owned()), "{dir} in {dirs:?}");
    }
}

#[test]
fn a_listing_drops_only_the_names_directly_in_it_that_it_lost() {
    let map: BTreeMap<String, ()> = ["d", "d.md", "d/a.md", "d/b.md", "d/e/c.md", "dx/z.md"]
        .into_iter()
        .map(|p| (p.to_owned(), ()))
        .collect();
    let listed = ["d/b.md".to_owned()];
    assert_eq!(gone_from(&map, "d", &listed), ["d/a.md"]);
    assert_eq!(parent("d/e/c.md"), "d/e");
    assert_eq!(parent("a.md"), "");
}
