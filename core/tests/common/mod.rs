//! The in-memory store the core's tests run commands against.
#![allow(dead_code)]

use std::cell::RefCell;

use memcap_core::lines::ToolResult;
use memcap_core::storage::memory::{FixedEnvironment, MemoryStorage};
use memcap_core::{Indexes, Io};
use serde_json::Value;

/// One store: its files, a clock, and the indexes an instance keeps warm.
pub struct Store {
    pub fs: MemoryStorage,
    pub env: FixedEnvironment,
    pub indexes: RefCell<Indexes>,
}

impl Store {
    pub fn new() -> Self {
        Self {
            fs: MemoryStorage::new(),
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
}
