//! The in-memory store the core's tests run commands against.
#![allow(dead_code)]

use std::cell::RefCell;

use memcap_core::lines::ToolResult;
use memcap_core::storage::memory::{FixedEnvironment, MemoryStorage};
use memcap_core::{Indexes, Io};
use serde_json::{Value, json};

/// One store: its files, a clock, and the indexes an instance keeps warm.
pub struct Store {
    pub fs: MemoryStorage,
    pub env: FixedEnvironment,
    pub indexes: RefCell<Indexes>,
}

impl Store {
    pub fn new() -> Self {
        Self::on(MemoryStorage::new())
    }

    /// A store on a file system that folds names as macOS's and Windows's do.
    pub fn folding_case() -> Self {
        Self::on(MemoryStorage::folding_case())
    }

    fn on(fs: MemoryStorage) -> Self {
        Self {
            fs,
            // 2026-11-23.
            env: FixedEnvironment::at(1_795_392_000),
            indexes: RefCell::default(),
        }
    }

    pub fn call(&self, input: Value) -> ToolResult {
        memcap_core::call(
            &Io::new(&self.fs, &self.env, &self.indexes),
            &input.to_string(),
        )
    }

    pub fn ok(&self, input: Value) -> String {
        let result = self.call(input.clone());
        assert!(!result.is_error, "{input} failed: {}", result.content);
        result.content
    }

    pub fn err(&self, input: Value) -> String {
        let result = self.call(input.clone());
        assert!(result.is_error, "{input} succeeded: {}", result.content);
        result.content
    }

    pub fn json(&self, input: Value) -> (Value, bool) {
        let result = memcap_core::call_json(
            &Io::new(&self.fs, &self.env, &self.indexes),
            &input.to_string(),
        );
        (
            serde_json::from_str(&result.content).unwrap(),
            result.is_error,
        )
    }

    pub fn file(&self, path: &str) -> Option<String> {
        self.fs
            .files()
            .get(path)
            .map(|b| String::from_utf8(b.clone()).unwrap())
    }

    /// A new instance on the same files: nothing warm, the journal only.
    pub fn restarted(&self) {
        *self.indexes.borrow_mut() = Indexes::default();
    }

    /// Writes `count` notes `dir/n0.md`… behind memcap's back (as another
    /// program would), described "old"; makes `dir`.
    pub fn plant(&self, dir: &str, count: usize) {
        use memcap_core::storage::Storage;
        self.fs.create_dir(dir).unwrap();
        for i in 0..count {
            let text = format!("---\nname: {dir}{i}\ndescription: old\n---\nx\n");
            self.fs
                .write_new(&format!("{dir}/n{i}.md"), text.as_bytes(), false)
                .unwrap();
        }
    }

    /// Creates `count` notes `burst/n0.md`… through memcap, within the
    /// second the clock shows (the files' clock set to it).
    pub fn burst(&self, count: usize) {
        self.fs.set_clock(self.env.now.get());
        for i in 0..count {
            self.ok(
                json!({"command": "create", "path": format!("/memories/burst/n{i}.md"),
                "file_text": "---\nname: Burst\ndescription: new\n---\nx\n"}),
            );
        }
    }

    /// A [`Store::burst`] of `count` notes after a first call, taken in by
    /// a new instance, and the clock moved on until their stamps are old
    /// enough to trust: each is due to be read once more.
    pub fn aged_burst(&self, count: usize) {
        self.ok(json!({"command": "prompt"}));
        self.burst(count);
        self.restarted();
        self.ok(json!({"command": "prompt"}));
        self.env.now.set(self.env.now.get() + 5);
    }

    /// The journal's `generation`: another one after each rewrite.
    pub fn journal_generation(&self) -> Value {
        use memcap_core::storage::Storage;
        let file = self.fs.open(".memcap/notes.jsonl", false).unwrap();
        let (bytes, _) = file.read_at(0, 4096).unwrap();
        let line = bytes.split(|&b| b == b'\n').next().unwrap();
        serde_json::from_slice::<Value>(line).unwrap()["generation"].clone()
    }

    /// Moves the clock on a second: a call after it may spend a slice on
    /// the sweep and the once-more reads (one a second at most).
    pub fn next_second(&self) {
        self.env.now.set(self.env.now.get() + 1);
    }

    /// Whether a search for `query` names the note at `path`.
    pub fn search_finds(&self, query: &str, path: &str) -> bool {
        let answer = self.ok(json!({"command": "memory_search", "query": query, "minScore": 0.0}));
        answer.contains(path)
    }
}
