//! The search and graph tools' parameters, in every spelling and of every
//! JSON type, run against a small store of notes with observations and
//! relations: no input panics, what the parser refuses is never run, and
//! no answer grows past its budget, whatever the numbers, strings, dates or
//! nested objects sent.
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use memcap_core::storage::memory::{FixedEnvironment, MemoryStorage};
use memcap_core::{Indexes, Io};
use serde_json::{Map, Value, json};

/// The commands whose parameters are fuzzed.
const COMMANDS: [&str; 5] = [
    "memory_search",
    "build_context",
    "recent_activity",
    "memory_get",
    "memory_stats",
];

/// Their parameters as models spell them, and a few they do not take.
const KEYS: [&str; 26] = [
    "query",
    "max_results",
    "maxResults",
    "min_score",
    "minScore",
    "source",
    "filters",
    "after_date",
    "afterDate",
    "types",
    "tags",
    "url",
    "depth",
    "timeframe",
    "max_related",
    "maxRelated",
    "page",
    "path",
    "from",
    "lines",
    "type",
    "limit",
    "query_text",
    "",
    "command",
    "after",
];

/// The most an answer may hold: the largest budget (`memory_get`'s
/// 12,000 characters, `build_context`'s 32 KB of related notes plus its
/// primary notes) with room for the JSON around it.
const MAX_ANSWER_BYTES: usize = 200_000;

struct Store {
    fs: MemoryStorage,
    env: FixedEnvironment,
    indexes: RefCell<Indexes>,
}

impl Store {
    fn call(&self, input: &str) -> memcap_core::lines::ToolResult {
        memcap_core::call(&Io::new(&self.fs, &self.env, &self.indexes), input)
    }
}

thread_local! {
    static STORE: Store = {
        let store = Store {
            fs: MemoryStorage::new(),
            env: FixedEnvironment::at(1_795_392_000),
            indexes: RefCell::default(),
        };
        let notes = [
            ("/memories/projects/alpha.md",
             "---\nname: Alpha\ndescription: the alpha project\ntype: project\n---\n\
              - [decision] Use Postgres #db\n- depends_on [[Beta]]\n- owned_by [[people/bob]]\n"),
            ("/memories/projects/beta.md",
             "---\nname: Beta\ndescription: beta\ntype: project\n---\n- [fact] ships weekly\n- part_of [[Alpha]]\n"),
            ("/memories/people/bob.md", "# Bob\n- [role] reviewer #team\n- works_on [[Alpha]]\n"),
            ("/memories/notes.txt", "plain text about deploys and postgres\n"),
        ];
        for (path, text) in notes {
            let input = json!({"command": "create", "path": path, "file_text": text});
            assert!(!store.call(&input.to_string()).is_error);
        }
        store
    };
}

/// Reads the fuzzer's bytes as values, front to back.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn take(&mut self, n: usize) -> &[u8] {
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        head
    }

    fn number(&mut self) -> i64 {
        let mut raw = [0u8; 8];
        let bytes = self.take(8);
        raw[..bytes.len()].copy_from_slice(bytes);
        i64::from_le_bytes(raw)
    }

    fn string(&mut self) -> String {
        let len = usize::from(self.byte().unwrap_or(0));
        String::from_utf8_lossy(self.take(len)).into_owned()
    }

    /// A value of a type the next byte picks; `depth` bounds nesting.
    fn value(&mut self, depth: u8) -> Value {
        match self.byte().unwrap_or(0) % 12 {
            0 => Value::Null,
            1 => Value::Bool(self.byte().unwrap_or(0) % 2 == 1),
            2 => json!(self.number()),
            3 => json!(self.number() as u64),
            4 => json!(f64::from_bits(self.number() as u64)),
            // Edges models and attackers send.
            5 => [json!(0), json!(1), json!(-1), json!(4_294_967_295u64), json!(4_294_967_296u64), json!(u64::MAX)]
                [usize::from(self.byte().unwrap_or(0) % 6)]
                .clone(),
            6 => json!(["2026-11-01", "", "yesterday", "2026-13-45", "1 week", "today"][usize::from(
                self.byte().unwrap_or(0) % 6
            )]),
            7 => json!(["memory://alpha", "memory://*", "memory://projects/*", "alpha", "/memories/projects/alpha.md", "memory://"][usize::from(
                self.byte().unwrap_or(0) % 6
            )]),
            8 if depth > 0 => {
                let n = self.byte().unwrap_or(0) % 4;
                Value::Array((0..n).map(|_| self.value(depth - 1)).collect())
            }
            9 if depth > 0 => Value::Object(self.object(depth - 1)),
            10 => json!(self.string().repeat(usize::from(self.byte().unwrap_or(0)))),
            _ => json!(self.string()),
        }
    }

    fn object(&mut self, depth: u8) -> Map<String, Value> {
        let mut object = Map::new();
        for _ in 0..self.byte().unwrap_or(0) % 6 {
            let key = KEYS[usize::from(self.byte().unwrap_or(0)) % KEYS.len()];
            let value = self.value(depth);
            object.insert(key.to_owned(), value);
        }
        object
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let command = COMMANDS[usize::from(bytes.byte().unwrap_or(0)) % COMMANDS.len()];
    let mut input = bytes.object(2);
    input.insert("command".into(), json!(command));
    let input = Value::Object(input).to_string();
    let result = STORE.with(|store| store.call(&input));
    assert!(!result.content.is_empty(), "{input}");
    assert!(
        result.content.len() <= MAX_ANSWER_BYTES,
        "{input}: {} bytes",
        result.content.len()
    );
    // What the parser refuses is never run.
    if memcap_core::command::parse(&input).is_err() {
        assert!(result.is_error, "{input}: {}", result.content);
    }
});
