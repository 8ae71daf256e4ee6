//! [`Memory`]: one memory directory, served by the component.

use std::path::{Path, PathBuf};

use wasmtime::Store;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use crate::bindings::{
    ActivityAnswer, ContextAnswer, GetAnswer, Memcap, NoteType, Role, SearchAnswer, SearchFilters,
    Source, StatsAnswer, WitResult,
};
use crate::error::{DataResult, OpenError, ToolDefinition, ToolError, ToolErrorKind, ToolResult};
use crate::limits::Limits;
use crate::lock::{Held, StoreLock};
use crate::runtime::{self, GuestLimiter, Runtime, StoreData};
use crate::store::{self, EmptyDir, Found};

/// The name the guest sees for its directory; shared directories are
/// granted as `/memories/shared/NAME`, extra ones as `/memories/extra/NAME`.
const GUEST_ROOT: &str = memcap_core::layout::ROOT;
use memcap_core::storage::mounts::Place;

/// A memory directory and the component that serves it.
///
/// Every call runs in the same sandbox: the guest sees this one directory as
/// `/memories`, with no environment, network, stdio or other files. Calls are
/// serialised per directory, across threads and processes, so no edit is lost.
/// A call that traps, runs too long or exhausts its memory becomes an error
/// result, and the next call gets a fresh instance.
pub struct Memory {
    root: PathBuf,
    /// The directories granted beside the root.
    shared: Vec<SharedDir>,
    limits: Limits,
    /// Whether searches use the compiled-in embedding model.
    vectors: bool,
    runtime: &'static Runtime,
    instance: StoreLock<Served>,
}

/// A directory granted beside the root, seen as `/memories/shared/NAME` or
/// `/memories/extra/NAME` (`place`).
struct SharedDir {
    place: Place,
    name: String,
    path: PathBuf,
    read_only: bool,
}

/// What serves the calls, behind the store lock.
struct Served {
    /// The writable shared directories' `.memcap/tmp`, emptied as the
    /// root's is.
    shared_temps: Vec<cap_std::fs::Dir>,
    /// `.memcap/tmp`, emptied after a call that trapped mid-write; `None`
    /// while memcap cannot write the store.
    temp: Option<cap_std::fs::Dir>,
    /// While the store's directory does not exist, reads are served from
    /// this empty directory and nothing is created.
    empty: Option<EmptyDir>,
    /// A live instance, kept between calls so a call costs no instantiation.
    warm: Option<Warm>,
}

struct Warm {
    store: Store<StoreData>,
    bindings: Memcap,
}

/// Options for [`Memory`]; see [`Memory::builder`].
pub struct MemoryBuilder {
    root: PathBuf,
    namespace: Option<String>,
    shared: Vec<(String, PathBuf, bool)>,
    extra: Vec<(String, PathBuf)>,
    limits: Limits,
    vectors: bool,
    create_root: bool,
    private_umask: bool,
}

impl MemoryBuilder {
    /// Serves `BASE/name` instead of the base directory given to
    /// [`Memory::builder`]: one user's or project's store. Only that
    /// directory is granted, so nothing under another namespace can be
    /// reached. `name` is 1 to 64 ASCII letters, digits, `-`, `_` or `.`,
    /// not starting with a dot; [`MemoryBuilder::open`] refuses others.
    pub fn namespace(mut self, name: impl Into<String>) -> Self {
        self.namespace = Some(name.into());
        self
    }

    /// Grants the existing directory `dir` too, seen by the agent as
    /// `/memories/shared/NAME/...`: memory shared by several users or
    /// projects. It is its own preopen, so the grant is exactly that
    /// directory; `read_only` refuses every change in it. `name` follows
    /// the rules of [`MemoryBuilder::namespace`]. Files never move between
    /// it and the rest of the store (a rename across is refused), and it
    /// has its own lock, so servers of different users write it safely.
    pub fn shared(
        mut self,
        name: impl Into<String>,
        dir: impl AsRef<Path>,
        read_only: bool,
    ) -> Self {
        self.shared
            .push((name.into(), dir.as_ref().to_path_buf(), read_only));
        self
    }

    /// Grants the existing directory `dir` read-only, seen by the agent as
    /// `/memories/extra/NAME/...`: reference material (docs, a wiki, another
    /// project's notes) that `memory_search` finds as the `custom` source
    /// and `view` / `memory_get` read, and that nothing memcap runs can
    /// change. It is its own preopen, granted read-only, so the guest could
    /// not write it even if it tried. `name` follows the rules of
    /// [`MemoryBuilder::namespace`].
    pub fn extra(mut self, name: impl Into<String>, dir: impl AsRef<Path>) -> Self {
        self.extra.push((name.into(), dir.as_ref().to_path_buf()));
        self
    }

    /// Replaces the default [`Limits`].
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Whether searches are hybrid, with the embedding model compiled into
    /// the component (on by default), or keywords only (BM25) with `false`:
    /// the guest is told `MEMCAP_VECTORS=off`, says so in every search
    /// answer, and its index keeps no vectors (switching rebuilds it once).
    pub fn vectors(mut self, on: bool) -> Self {
        self.vectors = on;
        self
    }

    /// Whether [`MemoryBuilder::open`] creates a missing directory (the
    /// default). With `false` nothing is created until the first call that
    /// writes: reads answer as an empty store, so a mistyped path leaves no
    /// directories behind (the CLI opens stores this way).
    pub fn create_root(mut self, create: bool) -> Self {
        self.create_root = create;
        self
    }

    /// Whether opening adds 0o077 to the process umask (off by default), so
    /// the files the guest creates are 0600 and its directories 0700 whatever
    /// the umask was: WASI cannot pass a file mode. The umask belongs to the
    /// whole process, so this is for programs that are memcap alone (the CLI
    /// turns it on). Without it the store memcap creates is still 0700, which
    /// keeps other users out of the files inside it.
    pub fn private_umask(mut self, private: bool) -> Self {
        self.private_umask = private;
        self
    }

    /// Opens the store; see [`Memory::open`].
    pub fn open(self) -> Result<Memory, OpenError> {
        let base = match &self.namespace {
            Some(name) => {
                crate::namespace::check("namespace", name)?;
                self.root.join(name)
            }
            None => self.root.clone(),
        };
        let root = std::path::absolute(&base).map_err(|cause| OpenError::Root {
            path: base.clone(),
            cause,
        })?;
        if self.private_umask {
            tighten_umask();
        }
        let mut locks = Vec::new();
        let mut shared = Vec::new();
        let mut shared_temps = Vec::new();
        let grants = self
            .shared
            .iter()
            .map(|(name, dir, read_only)| (Place::Shared, name, dir, *read_only))
            .chain(
                self.extra
                    .iter()
                    .map(|(name, dir)| (Place::Extra, name, dir, true)),
            );
        for (place, name, dir, read_only) in grants {
            let what = match place {
                Place::Shared => "shared directory name",
                Place::Extra => "extra directory name",
            };
            crate::namespace::check(what, name)?;
            if shared
                .iter()
                .any(|s: &SharedDir| s.place == place && &s.name == name)
            {
                return Err(OpenError::BadName {
                    what,
                    name: name.clone(),
                    why: "is given twice",
                });
            }
            let path = std::path::absolute(dir).map_err(|cause| OpenError::Root {
                path: dir.clone(),
                cause,
            })?;
            let prepared = match store::open_shared(&path, read_only) {
                Err(OpenError::SharedMissing { path }) if place == Place::Extra => {
                    return Err(OpenError::ExtraMissing { path });
                }
                other => other?,
            };
            locks.extend(prepared.lock);
            shared_temps.extend(prepared.temp);
            shared.push(SharedDir {
                place,
                name: name.clone(),
                path,
                read_only,
            });
        }
        let found = match store::open(&root)? {
            Found::Missing if self.create_root => Found::Present(store::create(&root)?),
            found => found,
        };
        let (lock, served) = match found {
            Found::Present(prepared) => (
                prepared.lock,
                Served {
                    shared_temps,
                    temp: prepared.temp,
                    empty: None,
                    warm: None,
                },
            ),
            Found::Missing => (
                None,
                Served {
                    shared_temps,
                    temp: None,
                    empty: Some(EmptyDir::new().map_err(|cause| OpenError::Root {
                        path: root.clone(),
                        cause,
                    })?),
                    warm: None,
                },
            ),
        };
        let memory = Memory {
            shared,
            root,
            limits: self.limits,
            vectors: self.vectors,
            runtime: runtime::get()?,
            instance: StoreLock::new(locks.into_iter().chain(lock).collect(), served),
        };
        // Instantiate now so a broken setup fails here, not on the first call.
        let mut held = memory.instance.lock().map_err(|cause| OpenError::Store {
            path: memory.root.clone(),
            cause,
        })?;
        let warm = memory
            .instantiate(&held)
            .map_err(|e| OpenError::Component(format!("{e:#}")))?;
        held.warm = Some(warm);
        drop(held);
        Ok(memory)
    }
}

/// WASI cannot pass a file mode, so the guest's files get the process umask:
/// tighten it so they are 0600 and directories 0700. Bits are only ever
/// removed from the umask, never added back.
fn tighten_umask() {
    use rustix::fs::Mode;
    use rustix::process::umask;
    let previous = umask(Mode::from_raw_mode(0o077));
    umask(previous | Mode::from_raw_mode(0o077));
}

impl Memory {
    /// Opens the memory directory `root`, creating it (mode 0700, with its
    /// parents) if missing; see [`MemoryBuilder::create_root`] to leave that
    /// to the first write. A directory memcap may not write is served for
    /// reading. Leftovers of writes interrupted by a crash are removed. The
    /// first open in a process loads the compiled component from the
    /// on-disk cache (see `MEMCAP_CACHE_DIR`) or compiles it. The process
    /// umask is left alone unless [`MemoryBuilder::private_umask`] asks.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, OpenError> {
        Self::builder(root).open()
    }

    /// Like [`Memory::open`], with options.
    pub fn builder(root: impl AsRef<Path>) -> MemoryBuilder {
        MemoryBuilder {
            root: root.as_ref().to_path_buf(),
            namespace: None,
            shared: Vec::new(),
            extra: Vec::new(),
            limits: Limits::default(),
            vectors: true,
            create_root: true,
            private_umask: false,
        }
    }

    /// The host directory served as `/memories`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every directory the guest is granted, as the agent sees it and on
    /// disk: `/memories` (the root), then each `/memories/shared/NAME` and
    /// `/memories/extra/NAME`.
    pub fn grants(&self) -> Vec<(String, PathBuf)> {
        let mut grants = vec![(GUEST_ROOT.to_owned(), self.root.clone())];
        grants.extend(self.shared.iter().map(|s| {
            (
                format!("{GUEST_ROOT}/{}/{}", s.place.dir(), s.name),
                s.path.clone(),
            )
        }));
        grants
    }

    /// Tells the guest that other programs changed `paths` (`/memories/...`,
    /// as a file watcher reports them), so the index and every derived
    /// index take them in now rather than at the next sweep; see
    /// [`crate::watch::Watcher`].
    pub fn changed(&self, paths: &[String]) -> Result<String, ToolError> {
        let input = serde_json::json!({"command": "changed", "paths": paths}).to_string();
        let result = self.call(&input);
        if result.is_error {
            // The kind is not kept by `call`; the message says it all.
            return Err(ToolError::new(ToolErrorKind::Io, result.content));
        }
        Ok(result.content)
    }

    /// The limits every call runs under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Shows a directory listing or a file with line numbers (WIT `view`).
    pub fn view(&self, path: &str, view_range: Option<(i64, i64)>) -> Result<String, ToolError> {
        self.typed(path.len(), false, |b, s| {
            b.memcap_memory_files().call_view(s, path, view_range)
        })
    }

    /// Creates a new file; never overwrites (WIT `create`).
    pub fn create(&self, path: &str, file_text: &str) -> Result<String, ToolError> {
        self.typed(path.len() + file_text.len(), true, |b, s| {
            b.memcap_memory_files().call_create(s, path, file_text)
        })
    }

    /// Replaces the single occurrence of `old_str` (WIT `str-replace`).
    pub fn str_replace(
        &self,
        path: &str,
        old_str: &str,
        new_str: &str,
    ) -> Result<String, ToolError> {
        self.typed(path.len() + old_str.len() + new_str.len(), true, |b, s| {
            b.memcap_memory_files()
                .call_str_replace(s, path, old_str, new_str)
        })
    }

    /// Inserts text after line `insert_line` (WIT `insert`).
    pub fn insert(
        &self,
        path: &str,
        insert_line: i64,
        insert_text: &str,
    ) -> Result<String, ToolError> {
        self.typed(path.len() + insert_text.len(), true, |b, s| {
            b.memcap_memory_files()
                .call_insert(s, path, insert_line, insert_text)
        })
    }

    /// Deletes a file or directory tree (WIT `delete`).
    pub fn delete(&self, path: &str) -> Result<String, ToolError> {
        self.typed(path.len(), true, |b, s| {
            b.memcap_memory_files().call_delete(s, path)
        })
    }

    /// Renames or moves a file or directory; never overwrites (WIT `rename`).
    pub fn rename(&self, old_path: &str, new_path: &str) -> Result<String, ToolError> {
        self.typed(old_path.len() + new_path.len(), true, |b, s| {
            b.memcap_memory_files().call_rename(s, old_path, new_path)
        })
    }

    /// The index, or with `topics` those notes in full (WIT `memory-read`),
    /// first page.
    pub fn memory_read(&self, topics: &[String]) -> Result<String, ToolError> {
        self.memory_read_page(topics, None)
    }

    /// Page `page` (from 1) of [`Memory::memory_read`]'s answer.
    pub fn memory_read_page(
        &self,
        topics: &[String],
        page: Option<u32>,
    ) -> Result<String, ToolError> {
        let bytes = topics.iter().map(String::len).sum();
        self.typed(bytes, false, |b, s| {
            b.memcap_memory_notes().call_memory_read(s, topics, page)
        })
    }

    /// The index, or with `all` every note and its metadata (WIT
    /// `memory-view`), first page.
    pub fn memory_view(&self, all: bool) -> Result<String, ToolError> {
        self.memory_view_page(all, None)
    }

    /// Page `page` (from 1) of [`Memory::memory_view`]'s answer.
    pub fn memory_view_page(&self, all: bool, page: Option<u32>) -> Result<String, ToolError> {
        self.typed(0, false, |b, s| {
            b.memcap_memory_notes().call_memory_view(s, all, page)
        })
    }

    /// Saves a typed note, creating or replacing it (WIT `memory-write`).
    pub fn memory_write(
        &self,
        filename: &str,
        name: &str,
        description: &str,
        note_type: NoteType,
        content: &str,
    ) -> Result<String, ToolError> {
        let bytes = filename.len() + name.len() + description.len() + content.len();
        self.typed(bytes, true, |b, s| {
            b.memcap_memory_notes().call_memory_write(
                s,
                filename,
                name,
                description,
                note_type,
                content,
            )
        })
    }

    /// Replaces the single occurrence of `old_str` in a note (WIT `memory-update`).
    pub fn memory_update(
        &self,
        filename: &str,
        old_str: &str,
        new_str: &str,
    ) -> Result<String, ToolError> {
        self.typed(
            filename.len() + old_str.len() + new_str.len(),
            true,
            |b, s| {
                b.memcap_memory_notes()
                    .call_memory_update(s, filename, old_str, new_str)
            },
        )
    }

    /// Deletes one note (WIT `memory-delete`).
    pub fn memory_delete(&self, filename: &str) -> Result<String, ToolError> {
        self.typed(filename.len(), true, |b, s| {
            b.memcap_memory_notes().call_memory_delete(s, filename)
        })
    }

    /// The whole protocol for keeping memory, with examples of structured
    /// notes (WIT `memory-guide`).
    pub fn memory_guide(&self) -> Result<String, ToolError> {
        self.typed(0, false, |b, s| {
            b.memcap_memory_notes().call_memory_guide(s)
        })
    }

    /// The passages that best answer `query` (WIT `memory-search`): at most
    /// `max_results` (1 to 20, default 6) scoring at least `min_score` (0 to
    /// 1, default 0.35), from `source` (default all), kept by `filters`
    /// (categories, tags, types, after-date; none keeps every passage).
    pub fn memory_search(
        &self,
        query: &str,
        max_results: Option<u32>,
        min_score: Option<f32>,
        source: Option<Source>,
        filters: Option<&SearchFilters>,
    ) -> Result<SearchAnswer, ToolError> {
        self.invoke(query.len(), false, |b, s| {
            b.memcap_memory_search().call_memory_search(
                s,
                query,
                max_results,
                min_score,
                source,
                filters,
            )
        })?
        .map_err(ToolError::from)
    }

    /// Lines `first..=last` of a file (WIT `memory-get`); no `first` is the
    /// top, no `last` reads on to the 12,000-character cap.
    pub fn memory_get(
        &self,
        path: &str,
        first: Option<u32>,
        last: Option<u32>,
    ) -> Result<GetAnswer, ToolError> {
        self.invoke(path.len(), false, |b, s| {
            b.memcap_memory_search()
                .call_memory_get(s, path, first, last)
        })?
        .map_err(ToolError::from)
    }

    /// How the search index stands (WIT `memory-stats`).
    pub fn memory_stats(&self) -> Result<StatsAnswer, ToolError> {
        self.invoke(0, false, |b, s| {
            b.memcap_memory_search().call_memory_stats(s)
        })?
        .map_err(ToolError::from)
    }

    /// The notes `url` names (`memory://projects/alpha`, `memory://projects/*`)
    /// with their observations and relations, and the notes those reach, up
    /// to `depth` steps (WIT `graph.build-context`).
    pub fn build_context(
        &self,
        url: &str,
        depth: Option<u32>,
        timeframe: Option<&str>,
        max_related: Option<u32>,
        page: Option<u32>,
    ) -> Result<ContextAnswer, ToolError> {
        let size = url.len() + timeframe.map_or(0, str::len);
        self.invoke(size, false, |b, s| {
            b.memcap_memory_graph()
                .call_build_context(s, url, depth, timeframe, max_related, page)
        })?
        .map_err(ToolError::from)
    }

    /// What changed in the timeframe (default `7d`), newest first: notes,
    /// or `item_type` `observation`, `relation` or a note type (WIT
    /// `graph.recent-activity`).
    pub fn recent_activity(
        &self,
        timeframe: Option<&str>,
        item_type: Option<&str>,
        page: Option<u32>,
    ) -> Result<ActivityAnswer, ToolError> {
        let size = timeframe.map_or(0, str::len) + item_type.map_or(0, str::len);
        self.invoke(size, false, |b, s| {
            b.memcap_memory_graph()
                .call_recent_activity(s, timeframe, item_type, page)
        })?
        .map_err(ToolError::from)
    }

    /// Appends one turn of conversation `session` to
    /// `/memories/chat/SESSION.md`, where `memory_search` finds it as the
    /// `chat` source (WIT `history.record-turn`); bounded as the WIT docs
    /// say. Returns what was recorded, in words.
    pub fn record_turn(&self, session: &str, role: Role, text: &str) -> Result<String, ToolError> {
        self.typed(session.len() + text.len(), true, |b, s| {
            b.memcap_memory_history()
                .call_record_turn(s, session, role, text)
        })
    }

    /// The system-prompt text: the memory protocol and the index (WIT `prompt`).
    pub fn prompt(&self) -> Result<String, ToolError> {
        self.typed(0, false, |b, s| b.memcap_memory_tool().call_prompt(s))
    }

    /// The tools the component offers (WIT `describe`): `memory` and one per
    /// note command, each with its description and input schema, for a host
    /// or an MCP server to list. Run them with [`Memory::call`].
    pub fn describe(&self) -> Result<Vec<ToolDefinition>, ToolError> {
        let tools = self.invoke(0, false, |b, s| b.memcap_memory_tool().call_describe(s))?;
        tools
            .into_iter()
            .map(|tool| {
                let input_schema = serde_json::from_str(&tool.input_schema).map_err(|_| {
                    ToolError::new(
                        ToolErrorKind::GuestFailure,
                        format!(
                            "memcap described the tool {} with a schema that is not JSON",
                            tool.name
                        ),
                    )
                })?;
                Ok(ToolDefinition {
                    name: tool.name,
                    description: tool.description,
                    input_schema,
                })
            })
            .collect()
    }

    /// Runs one `tool_use` input given as JSON (WIT `call`). Never fails:
    /// every problem, including a bad input or a stopped guest, is an error
    /// result with a message for the model.
    pub fn call(&self, input: &str) -> ToolResult {
        self.raw(input, |b, s| b.memcap_memory_tool().call_call(s, input))
            .unwrap_or_else(ToolError::into_result)
    }

    /// [`Memory::call`] for programs (WIT `call-json`): the same input and
    /// effects, with `content` a JSON object: `{"output": KIND, ...}` with the
    /// result's data on success, `{"error": {"kind", "message"}}` on failure
    /// (a call the host stopped included).
    pub fn call_json(&self, input: &str) -> ToolResult {
        self.raw(input, |b, s| {
            b.memcap_memory_tool().call_call_json(s, input)
        })
        .unwrap_or_else(|e| {
            ToolResult::error(memcap_core::render::json::failure(e.kind, &e.message).to_string())
        })
    }

    /// [`Memory::call`] and [`Memory::call_json`] from one run (WIT
    /// `call-with-data`): the model's text and the program's data for the
    /// same result, as an MCP server answers with `content` and
    /// `structuredContent`. A command that writes runs once.
    pub fn call_with_data(&self, input: &str) -> DataResult {
        self.invoke(input.len(), call_writes(input), |b, s| {
            b.memcap_memory_tool().call_call_with_data(s, input)
        })
        .map(|r| DataResult {
            content: r.content,
            data: r.data,
            is_error: r.is_error,
        })
        .unwrap_or_else(|e| DataResult {
            data: memcap_core::render::json::failure(e.kind, &e.message).to_string(),
            content: e.message,
            is_error: true,
        })
    }

    /// Runs a raw tool input through `f`; `Err` only when the host stopped
    /// the call.
    fn raw(
        &self,
        input: &str,
        f: impl FnOnce(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<WitResult>,
    ) -> Result<ToolResult, ToolError> {
        self.invoke(input.len(), call_writes(input), f)
            .map(|r| ToolResult {
                content: r.content,
                is_error: r.is_error,
            })
    }

    fn typed(
        &self,
        input_bytes: usize,
        writes: bool,
        f: impl FnOnce(
            &Memcap,
            &mut Store<StoreData>,
        ) -> wasmtime::Result<Result<String, crate::bindings::WitError>>,
    ) -> Result<String, ToolError> {
        self.invoke(input_bytes, writes, f)?
            .map_err(ToolError::from)
    }

    /// Runs `f` on the warm instance under the store lock, within the limits.
    /// `writes`: whether the call may change files (then a missing store is
    /// created first).
    fn invoke<R>(
        &self,
        input_bytes: usize,
        writes: bool,
        f: impl FnOnce(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<R>,
    ) -> Result<R, ToolError> {
        let max = self.limits.max_input_bytes;
        if input_bytes > max {
            return Err(ToolError::new(
                ToolErrorKind::TooLarge,
                format!(
                    "The tool input is {input_bytes} bytes; memcap accepts up to {max} bytes per call. \
                     Split the content into several smaller files."
                ),
            ));
        }
        let mut held = self.instance.lock().map_err(|_| {
            ToolError::new(
                ToolErrorKind::Io,
                "Could not lock the memory directory; nothing was changed. Try again.",
            )
        })?;
        // A missing store is created by its first write, and served as soon
        // as somebody else creates it.
        if held.empty.is_some() && (writes || self.root.is_dir()) {
            self.create_store(&mut held)?;
        }
        if held.warm.is_none() {
            let warm = self.instantiate(&held).map_err(|_| guest_failure(writes))?;
            held.warm = Some(warm);
        }
        let warm = held.warm.as_mut().expect("instance was just created");
        let ticks = (self.limits.call_timeout.as_millis() / runtime::EPOCH_TICK.as_millis()).max(1);
        warm.store.set_epoch_deadline(ticks as u64);
        warm.store.data_mut().limiter.refused = false;
        match f(&warm.bindings, &mut warm.store) {
            Ok(r) => Ok(r),
            Err(trap) => {
                let out_of_memory = warm.store.data().limiter.refused;
                // A trapped instance may be in any state: never reuse it. It
                // may have stopped mid-write; the lock is still held, so no
                // other write is in flight and its temp file can go.
                held.warm = None;
                for temp in held.temp.iter().chain(&held.shared_temps) {
                    let _ = store::remove_leftovers(temp);
                }
                Err(self.stopped(&trap, out_of_memory, writes))
            }
        }
    }

    /// Creates the store's directory for its first write; from then on the
    /// instance serves it instead of the empty stand-in.
    fn create_store(&self, held: &mut Held<'_, Served>) -> Result<(), ToolError> {
        let prepared = store::create(&self.root).map_err(|_| {
            ToolError::new(
                ToolErrorKind::Io,
                "Could not create the memory directory, so nothing was written. \
                 The host must let memcap create it, or create it first.",
            )
        })?;
        if let Some(lock) = prepared.lock {
            held.add_file(lock).map_err(|_| {
                ToolError::new(
                    ToolErrorKind::Io,
                    "Could not lock the memory directory; nothing was changed. Try again.",
                )
            })?;
        }
        held.temp = prepared.temp;
        held.empty = None;
        held.warm = None;
        Ok(())
    }

    fn stopped(&self, trap: &wasmtime::Error, out_of_memory: bool, writes: bool) -> ToolError {
        let after = if writes { AFTER_WRITE } else { "" };
        if trap.downcast_ref::<wasmtime::Trap>() == Some(&wasmtime::Trap::Interrupt) {
            ToolError::new(
                ToolErrorKind::TimedOut,
                format!(
                    "The memory command was stopped after {} s, memcap's time limit per call.{after}",
                    self.limits.call_timeout.as_secs_f32()
                ),
            )
        } else if out_of_memory {
            ToolError::new(
                ToolErrorKind::OutOfMemory,
                format!(
                    "The memory command needed more than {} MiB of memory and was stopped.{after}",
                    self.limits.memory_bytes >> 20
                ),
            )
        } else {
            guest_failure(writes)
        }
    }

    fn instantiate(&self, served: &Served) -> wasmtime::Result<Warm> {
        let (dir, perms) = match &served.empty {
            Some(empty) => (empty.path(), FsPerms::ReadOnly),
            None => (self.root.as_path(), FsPerms::ReadWrite),
        };
        let mut wasi = WasiCtxBuilder::new();
        // No args, stdio or network, and no environment but the quota (and
        // vectors off, when asked): the one directory is all it gets.
        wasi.allow_blocking_current_thread(true)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .env("MEMCAP_MAX_FILES", self.limits.max_store_files.to_string())
            .env("MEMCAP_MAX_BYTES", self.limits.max_store_bytes.to_string())
            .preopened_dir(dir, GUEST_ROOT, perms)?;
        if !self.vectors {
            wasi.env("MEMCAP_VECTORS", "off");
        }
        for shared in &self.shared {
            let perms = if shared.read_only {
                FsPerms::ReadOnly
            } else {
                FsPerms::ReadWrite
            };
            wasi.preopened_dir(
                &shared.path,
                format!("{GUEST_ROOT}/{}/{}", shared.place.dir(), shared.name),
                perms,
            )?;
        }
        let mut table = ResourceTable::new();
        table.set_max_capacity(1024);
        let data = StoreData {
            wasi: wasi.build(),
            table,
            limiter: GuestLimiter {
                memory_bytes: self.limits.memory_bytes,
                refused: false,
            },
        };
        let mut store = Store::new(&self.runtime.engine, data);
        store.limiter(|d| &mut d.limiter);
        store.set_epoch_deadline(u64::MAX / 2);
        let bindings = self.runtime.pre.instantiate(&mut store)?;
        Ok(Warm { store, bindings })
    }
}

/// Whether a `call` input may change files, as the command table says
/// (`memcap_core::tools::COMMANDS`); an unknown command counts as a write (the
/// guest refuses it anyway). A missing store is created by the first call
/// that may write.
fn call_writes(input: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Command<'a> {
        #[serde(borrow)]
        command: Option<std::borrow::Cow<'a, str>>,
    }
    match serde_json::from_str::<Command>(input) {
        Ok(Command { command: Some(c) }) => {
            memcap_core::tools::command(&c).is_none_or(|spec| spec.writes)
        }
        _ => false,
    }
}

/// Said after a stopped call that may have been writing.
const AFTER_WRITE: &str = " A file it was changing holds either its old or its new content; \
                           view it before retrying.";

fn guest_failure(writes: bool) -> ToolError {
    ToolError::new(
        ToolErrorKind::GuestFailure,
        format!(
            "The memory command failed inside memcap (an internal error).{}",
            if writes { AFTER_WRITE } else { "" }
        ),
    )
}
