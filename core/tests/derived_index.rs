//! A derived index added by implementing one trait: a word index, defined
//! here only, follows every change through the catalog and the journal
//! (this call's, another instance's, another program's), survives restarts
//! through its part of the snapshot, and is rebuilt when that part is of
//! another version.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use memcap_core::error::FsError;
use memcap_core::notes::catalog;
use memcap_core::notes::derived::{DerivedIndex, NoteChange};
use memcap_core::notes::entry::FileStamp;
use memcap_core::notes::entry::NoteFacts;
use memcap_core::storage::Storage;
use memcap_core::storage::memory::{FixedEnvironment, MemoryStorage};
use memcap_core::{Indexes, Io};
use serde_json::json;

/// Words (lowercased) → the notes that hold them, with each note's stamp.
#[derive(Default, serde::Serialize, serde::Deserialize, PartialEq, Debug)]
struct Words {
    notes: BTreeMap<String, (FileStamp, BTreeSet<String>)>,
}

impl Words {
    fn words_of(text: &str) -> BTreeSet<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2)
            .map(str::to_lowercase)
            .collect()
    }
}

struct WordIndex<const VERSION: u32>(Words);

impl<const VERSION: u32> DerivedIndex for WordIndex<VERSION> {
    fn name(&self) -> &'static str {
        "words"
    }
    fn version(&self) -> u32 {
        VERSION
    }
    fn apply(&mut self, _io: &Io, change: NoteChange) -> Result<NoteFacts, FsError> {
        match change {
            NoteChange::Put(entry, text) => {
                let words = Words::words_of(text.unwrap_or_default());
                // A fact the catalog keeps with the note: words, counted
                // otherwise by each version.
                let counted = VERSION * words.len() as u32;
                self.0
                    .notes
                    .insert(entry.path.clone(), (entry.stamp, words));
                return Ok(NoteFacts {
                    relations: Some(counted),
                    ..NoteFacts::default()
                });
            }
            NoteChange::Removed(path) => {
                self.0.notes.remove(path);
            }
        }
        Ok(NoteFacts::default())
    }
    fn persist(&mut self) -> Cow<'_, [u8]> {
        Cow::Owned(serde_json::to_vec(&self.0).unwrap())
    }
    fn restore(&mut self, _io: &Io, bytes: Vec<u8>) -> bool {
        serde_json::from_slice(&bytes).map(|w| self.0 = w).is_ok()
    }
    fn stamps(&self) -> BTreeMap<String, u64> {
        self.0
            .notes
            .iter()
            .map(|(p, (s, _))| (p.clone(), s.digest()))
            .collect()
    }
    fn clear(&mut self) {
        self.0 = Words::default();
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn v1() -> Vec<Box<dyn DerivedIndex>> {
    vec![Box::new(WordIndex::<1>(Words::default()))]
}

fn v2() -> Vec<Box<dyn DerivedIndex>> {
    vec![Box::new(WordIndex::<2>(Words::default()))]
}

/// One instance of memcap on a shared storage.
struct Instance<'a> {
    fs: &'a MemoryStorage,
    env: &'a FixedEnvironment,
    indexes: RefCell<Indexes>,
}

impl<'a> Instance<'a> {
    fn new(
        fs: &'a MemoryStorage,
        env: &'a FixedEnvironment,
        registry: fn() -> Vec<Box<dyn DerivedIndex>>,
    ) -> Self {
        Self {
            fs,
            env,
            indexes: RefCell::new(Indexes::with_registry(registry)),
        }
    }

    fn io(&self) -> Io<'_> {
        Io::new(self.fs, self.env, &self.indexes)
    }

    fn call(&self, input: serde_json::Value) {
        let result = memcap_core::call(&self.io(), &input.to_string());
        assert!(!result.is_error, "{input}: {}", result.content);
    }

    /// Which notes hold `word`, as the index has it after a refresh.
    fn notes_with(&self, word: &str) -> Vec<String> {
        let io = self.io();
        catalog::with(&io, |io, catalog| {
            catalog.refresh(io)?;
            catalog.derived_ready(io)?;
            let index = catalog.derived("words").expect("registered").as_any();
            let words = index
                .downcast_ref::<WordIndex<1>>()
                .map(|w| &w.0)
                .or_else(|| index.downcast_ref::<WordIndex<2>>().map(|w| &w.0))
                .expect("a word index");
            Ok(words
                .notes
                .iter()
                .filter(|(_, (_, w))| w.contains(word))
                .map(|(p, _)| p.clone())
                .collect())
        })
        .unwrap()
    }

    /// What the catalog keeps of `path` from the index's facts.
    fn fact(&self, path: &str) -> u32 {
        let io = self.io();
        catalog::with(&io, |_, catalog| Ok(catalog.note(path)?.unwrap().relations)).unwrap()
    }

    /// Changes needed to bring the index in line with every note (0 when
    /// it already was).
    fn repairs(&self) -> usize {
        let io = self.io();
        catalog::with(&io, |io, catalog| catalog.verify_derived(io)).unwrap()
    }
}

fn write(name: &str, content: &str) -> serde_json::Value {
    json!({"command": "memory_write", "filename": name, "name": name, "type": "project", "content": content})
}

#[test]
fn a_derived_index_follows_every_change_and_survives_restarts() {
    let fs = MemoryStorage::new();
    let env = FixedEnvironment::at(1_795_392_000);
    let a = Instance::new(&fs, &env, v1);
    a.call(write("alpha", "The deploy uses blue green"));
    a.call(write("beta", "Coffee is black"));
    assert_eq!(a.notes_with("deploy"), ["alpha.md"]);

    // Another instance (another process) changes a note and adds one; the
    // first catches up from the journal.
    let b = Instance::new(&fs, &env, v1);
    b.call(json!({"command": "str_replace", "path": "/memories/beta.md", "old_str": "black", "new_str": "deploy day"}));
    b.call(write("gamma", "deploy again"));
    assert_eq!(a.notes_with("deploy"), ["alpha.md", "beta.md", "gamma.md"]);
    assert_eq!(a.notes_with("black"), Vec::<String>::new());

    // Deletes and renames, through the file commands.
    a.call(json!({"command": "delete", "path": "/memories/alpha.md"}));
    a.call(json!({"command": "rename", "old_path": "/memories/gamma.md", "new_path": "/memories/old/gamma.md"}));
    assert_eq!(a.notes_with("deploy"), ["beta.md", "old/gamma.md"]);
    assert_eq!(a.repairs(), 0);

    // Another program writes a note behind memcap's back: the next refresh
    // finds it, and the index with it.
    fs.write_new("delta.md", b"a deploy note from an editor", false)
        .unwrap();
    assert_eq!(
        a.notes_with("deploy"),
        ["beta.md", "delta.md", "old/gamma.md"]
    );
    // What the index told the catalog of it: deploy, note, from, editor.
    assert_eq!(a.fact("delta.md"), 4);

    // A new instance restores the index from the journal.
    let c = Instance::new(&fs, &env, v1);
    assert_eq!(
        c.notes_with("deploy"),
        ["beta.md", "delta.md", "old/gamma.md"]
    );
    assert_eq!(c.repairs(), 0);
    // The same, from the journal.
    assert_eq!(c.fact("delta.md"), 4);

    // A new version of the index cannot read the old state: it is rebuilt,
    // and the catalog takes what it counts now (and keeps it).
    let d = Instance::new(&fs, &env, v2);
    assert_eq!(
        d.notes_with("deploy"),
        ["beta.md", "delta.md", "old/gamma.md"]
    );
    assert_eq!(d.repairs(), 0);
    assert_eq!(d.fact("delta.md"), 8);
    assert_eq!(Instance::new(&fs, &env, v2).fact("delta.md"), 8);
}

#[test]
fn a_damaged_part_costs_a_rebuild_never_a_wrong_answer() {
    let fs = MemoryStorage::new();
    let env = FixedEnvironment::at(1_795_392_000);
    let a = Instance::new(&fs, &env, v1);
    for i in 0..5 {
        a.call(write(&format!("n{i}"), &format!("word{i} shared")));
    }
    // The index saved as garbage, then a new instance.
    fn garbled() -> Vec<Box<dyn DerivedIndex>> {
        struct Garbled(WordIndex<1>);
        impl DerivedIndex for Garbled {
            fn name(&self) -> &'static str {
                "words"
            }
            fn version(&self) -> u32 {
                1
            }
            fn apply(&mut self, io: &Io, change: NoteChange) -> Result<NoteFacts, FsError> {
                self.0.apply(io, change)
            }
            fn persist(&mut self) -> Cow<'_, [u8]> {
                Cow::Borrowed(b"{not json")
            }
            fn restore(&mut self, io: &Io, bytes: Vec<u8>) -> bool {
                self.0.restore(io, bytes)
            }
            fn stamps(&self) -> BTreeMap<String, u64> {
                self.0.stamps()
            }
            fn clear(&mut self) {
                self.0.clear()
            }
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
        }
        vec![Box::new(Garbled(WordIndex(Words::default())))]
    }
    // Force a snapshot written by the garbling index: a journal rebuild.
    fs.remove_file(".memcap/notes.jsonl").unwrap();
    Instance::new(&fs, &env, garbled).call(json!({"command": "memory_view"}));
    let b = Instance::new(&fs, &env, v1);
    assert_eq!(b.notes_with("shared").len(), 5);
    assert_eq!(b.notes_with("word3"), ["n3.md"]);
    assert_eq!(b.repairs(), 0);
}
