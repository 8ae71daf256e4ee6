//! One call into the component: within the limits, on the warm instance
//! (made anew after a trap), between the backend's begin and end, and
//! every way it can stop turned into a [`ToolError`].

use super::*;

impl Memory {
    /// Runs a raw tool input through `f`; `Err` only when the host stopped
    /// the call.
    pub(super) fn raw(
        &self,
        input: &str,
        f: impl FnMut(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<WitResult> + Send + 'static,
    ) -> Result<ToolResult, ToolError> {
        self.run(None, input.len(), call_writes(input), f)
            .map(|r| ToolResult {
                content: r.content,
                is_error: r.is_error,
            })
    }

    /// [`Memory::invoke`] for a function that answers in words.
    pub(super) fn typed(
        &self,
        function: &'static str,
        input_bytes: usize,
        f: impl FnMut(
            &Memcap,
            &mut Store<StoreData>,
        ) -> wasmtime::Result<Result<String, crate::bindings::WitError>>
        + Send
        + 'static,
    ) -> Result<String, ToolError> {
        self.invoke(function, input_bytes, f)?
            .map_err(ToolError::from)
    }

    /// Runs `f`, a call of the component's `function` (a command of the
    /// table, or one of [`HOST_FUNCTIONS`]: whether it may write is theirs
    /// to say, see [`writes`]).
    pub(super) fn invoke<R: Send + 'static>(
        &self,
        function: &'static str,
        input_bytes: usize,
        f: impl FnMut(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<R> + Send + 'static,
    ) -> Result<R, ToolError> {
        self.invoke_as(None, function, input_bytes, f)
    }

    /// [`Memory::invoke`] for `actor` (the store's own when `None`).
    pub(super) fn invoke_as<R: Send + 'static>(
        &self,
        actor: Option<&Actor>,
        function: &'static str,
        input_bytes: usize,
        f: impl FnMut(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<R> + Send + 'static,
    ) -> Result<R, ToolError> {
        self.run(actor, input_bytes, writes(function), f)
    }

    /// Runs `f` on the warm instance within the limits, between the
    /// backend's begin and end. `writes`: whether the call may change files
    /// (then a missing store is created first; a read-only memory refuses
    /// it).
    pub(super) fn run<R: Send + 'static>(
        &self,
        actor: Option<&Actor>,
        input_bytes: usize,
        writes: bool,
        f: impl FnMut(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<R> + Send + 'static,
    ) -> Result<R, ToolError> {
        let wanted = actor.cloned().or_else(|| self.actor.lock().ok()?.clone());
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
        if writes && self.read_only {
            return Err(read_only_refusal());
        }
        let mut served = self.lock();
        let served = &mut *served;
        self.settle(served)?;
        let mut f = f;
        // A read runs ahead of its freshness check where the backend can;
        // found stale, it runs once more after a plain check.
        let mut ahead = !writes;
        loop {
            let begun = if ahead {
                served.backend.begin_read_ahead()?
            } else {
                served.backend.begin(writes)?
            };
            // Ends the call if anything below unwinds, so no lock stays held.
            let mut call = Call {
                backend: served.backend.as_mut(),
                ended: false,
            };
            if begun.stale {
                served.warm = None;
            }
            if served.warm.is_none() {
                match self.instantiate(call.backend) {
                    Ok(warm) => served.warm = Some(warm),
                    Err(_) => {
                        let _ = call.end(Outcome::Stopped);
                        return Err(guest_failure(writes));
                    }
                }
            }
            let mut warm = served.warm.take().expect("instance was just created");
            warm.store
                .set_epoch_deadline(runtime::deadline_ticks(self.limits.call_timeout));
            warm.store.data_mut().limiter.refused = false;
            let runtime = self.runtime;
            let wanted = wanted.clone();
            let ran = served.worker.run(
                self.wait_limit(),
                || runtime.tick(),
                move || {
                    let r = tell_actor(&mut warm, wanted)
                        .and_then(|()| f(&warm.bindings, &mut warm.store));
                    (warm, f, r)
                },
            );
            let (warm, returned, r) = match ran {
                Ran::Done(done) => done,
                Ran::Late(stuck) => {
                    // Its end (and the lock's release) waits for it.
                    call.ended = true;
                    served.stuck = Some(stuck);
                    return Err(self.unanswered(writes));
                }
                Ran::Lost => {
                    let _ = call.end(Outcome::Stopped);
                    return Err(guest_failure(writes));
                }
            };
            f = returned;
            match r {
                Ok(r) => {
                    self.warm_bytes
                        .store(warm.store.data().limiter.held, Ordering::Relaxed);
                    served.warm = Some(warm);
                    match call.end(Outcome::Returned) {
                        Ok(ended) => {
                            if ended.stale {
                                served.warm = None;
                            }
                            if ended.again && ahead {
                                ahead = false;
                                continue;
                            }
                            return Ok(r);
                        }
                        Err(e) => {
                            // The instance saw changes that were not saved.
                            served.warm = None;
                            return Err(e);
                        }
                    }
                }
                Err(trap) => {
                    let out_of_memory = warm.store.data().limiter.refused;
                    // A trapped instance may be in any state: never reuse it.
                    drop(warm);
                    let _ = call.end(Outcome::Stopped);
                    return Err(self.stopped(&trap, out_of_memory, writes));
                }
            }
        }
    }

    /// How long a caller waits for the guest: the time limit, and a little
    /// more for the epoch's interrupt to land on a guest that computes (its
    /// ticks run late on a busy machine). Past it the guest is waiting in
    /// a host call.
    pub(super) fn wait_limit(&self) -> Duration {
        let limit = self.limits.call_timeout;
        limit + (limit / 10).max(Duration::from_secs(1))
    }

    /// Before a call: waits, at most the time limit, for a call left stuck
    /// in a host call to end, and then ends it as stopped.
    pub(super) fn settle(&self, served: &mut Served) -> Result<(), ToolError> {
        let Some(stuck) = &mut served.stuck else {
            return Ok(());
        };
        if !stuck.wait(self.limits.call_timeout) {
            return Err(ToolError::new(
                ToolErrorKind::TimedOut,
                format!(
                    "An earlier memory command is still waiting for the file system that \
                     holds this memory, which has not answered for over {} s, so this \
                     command did not run and nothing was changed. Try again later.",
                    self.limits.call_timeout.as_secs_f32()
                ),
            ));
        }
        served.stuck = None;
        let _ = served.backend.end(Outcome::Stopped);
        Ok(())
    }

    /// Said when the time limit passed while the guest waited in a host call.
    pub(super) fn unanswered(&self, writes: bool) -> ToolError {
        ToolError::new(
            ToolErrorKind::TimedOut,
            format!(
                "The memory command was stopped after {} s, memcap's time limit per call: \
                 the file system that holds this memory did not answer. Until it does, \
                 other commands on this memory wait for it.{}",
                self.limits.call_timeout.as_secs_f32(),
                if writes { AFTER_WRITE } else { "" }
            ),
        )
    }

    pub(super) fn stopped(
        &self,
        trap: &wasmtime::Error,
        out_of_memory: bool,
        writes: bool,
    ) -> ToolError {
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

    pub(super) fn instantiate(&self, backend: &dyn Backend) -> wasmtime::Result<Warm> {
        let mut wasi = WasiCtxBuilder::new();
        // No args, stdio or network, and no environment but the quota,
        // the time limit and the memory limit (and vectors off, when
        // asked): the store is all it gets.
        wasi.allow_blocking_current_thread(true)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .env(settings::MAX_FILES, self.limits.max_store_files.to_string())
            .env(settings::MAX_BYTES, self.limits.max_store_bytes.to_string())
            .env(
                settings::CALL_TIMEOUT_MS,
                self.limits.call_timeout.as_millis().to_string(),
            )
            .env(
                settings::MEMORY_MIB,
                (self.limits.memory_bytes >> 20).to_string(),
            )
            .env(settings::HISTORY_DAYS, self.limits.history_days.to_string())
            .env(settings::HISTORY_MIB, self.limits.history_mib.to_string());
        if !self.vectors {
            wasi.env(settings::VECTORS, "off");
        }
        #[cfg(feature = "testing")]
        if let Some(clock) = &self.clock {
            wasi.wall_clock(clock.clone());
        }
        let granted = backend.grant(&mut wasi)?;
        let pre = self.runtime.pre_for(&granted)?;
        let mut table = ResourceTable::new();
        table.set_max_capacity(1024);
        let data = StoreData {
            wasi: wasi.build(),
            table,
            #[cfg(feature = "served")]
            fs: match granted {
                Granted::Served(fs) => fs,
                Granted::Preopens => Fs::default(),
            },
            limiter: GuestLimiter {
                memory_bytes: self.limits.memory_bytes,
                refused: false,
                held: 0,
            },
        };
        let mut store = Store::new(&self.runtime.engine, data);
        store.limiter(|d| &mut d.limiter);
        store.set_epoch_deadline(u64::MAX / 2);
        let bindings = instantiate_retrying(|| pre.instantiate(&mut store))?;
        Ok(Warm {
            store,
            bindings,
            actor: None,
        })
    }
}

/// Tells the instance who the call is for, when it was told otherwise.
pub(super) fn tell_actor(warm: &mut Warm, wanted: Option<Actor>) -> wasmtime::Result<()> {
    let Some(actor) = wanted else {
        return Ok(());
    };
    if warm.actor.as_ref() == Some(&actor) {
        return Ok(());
    }
    warm.bindings.memcap_memory_versions().call_set_actor(
        &mut warm.store,
        &actor.name,
        actor.id.as_deref(),
    )?;
    warm.actor = Some(actor);
    Ok(())
}

/// The first instance maps the component's memory image into a sealed
/// memfd, and Linux now and then refuses the seal for a moment (EBUSY while
/// the new pages settle: "cannot add seals to the memfd", seen once in
/// thousands of process starts): a failure there is tried again, twice.
pub(super) fn instantiate_retrying<T>(
    mut make: impl FnMut() -> wasmtime::Result<T>,
) -> wasmtime::Result<T> {
    let mut tries = 0;
    loop {
        match make() {
            Err(e) if tries < 2 && format!("{e:#}").contains("memfd") => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// A call between [`Backend::begin`] and [`Backend::end`].
pub(super) struct Call<'a> {
    pub(super) backend: &'a mut dyn Backend,
    pub(super) ended: bool,
}

impl Call<'_> {
    pub(super) fn end(&mut self, outcome: Outcome) -> Result<Instance, ToolError> {
        self.ended = true;
        self.backend.end(outcome)
    }
}

impl Drop for Call<'_> {
    fn drop(&mut self) {
        if !self.ended {
            let _ = self.backend.end(Outcome::Stopped);
        }
    }
}

/// The component's functions that are no agent command (hosts call them
/// for people and for upkeep), by the typed method that calls each, and
/// whether each may change files.
pub const HOST_FUNCTIONS: &[(&str, bool)] = &[
    ("describe", false),
    ("memory_counts", false),
    ("record_turn", true),
    ("changed", true),
    ("history_list", false),
    ("history_recent", false),
    ("history_show", false),
    ("history_blame", false),
    ("history_restore", true),
    ("history_revert", true),
    ("history_record", true),
    ("history_redact", true),
];

/// Whether the component's function `function` may change files: a
/// command as the command table says (`memcap_core::tools::COMMANDS`),
/// another function as [`HOST_FUNCTIONS`] says. A name in neither counts
/// as a write, so a read-only memory refuses it.
pub fn writes(function: &str) -> bool {
    match memcap_core::tools::command(function) {
        Some(spec) => spec.writes,
        None => HOST_FUNCTIONS
            .iter()
            .find(|(name, _)| *name == function)
            .is_none_or(|&(_, writes)| writes),
    }
}

/// Whether a `call` input may change files, as the command table says
/// (`memcap_core::tools::COMMANDS`); an unknown command counts as a write (the
/// guest refuses it anyway). A missing store is created by the first call
/// that may write.
pub(super) fn call_writes(input: &str) -> bool {
    // Parsed as the guest parses it (a JSON value, so of a repeated key the
    // last counts): a spelling that reads as a view here cannot run as a
    // create there. A command memcap does not know counts as a change.
    match serde_json::from_str::<serde_json::Value>(input) {
        Ok(serde_json::Value::Object(input)) => match input.get("command") {
            Some(serde_json::Value::String(c)) => {
                memcap_core::tools::command(c).is_none_or(|spec| spec.writes)
            }
            _ => false,
        },
        _ => false,
    }
}

/// What a call that would change files gets from a read-only memory.
pub(super) fn read_only_refusal() -> ToolError {
    ToolError::new(
        ToolErrorKind::Denied,
        "This memory is read-only here: the command would change files, so it was refused \
         and nothing was changed. Read, view and search work; to save notes, ask for access \
         that may write.",
    )
}

/// Said after a stopped call that may have been writing.
pub(super) const AFTER_WRITE: &str = " A file it was changing holds either its old or its new content; \
                           view it before retrying.";

pub(super) fn guest_failure(writes: bool) -> ToolError {
    ToolError::new(
        ToolErrorKind::GuestFailure,
        format!(
            "The memory command failed inside memcap (an internal error).{}",
            if writes { AFTER_WRITE } else { "" }
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::{HOST_FUNCTIONS, writes};
    use memcap_core::tools::{COMMANDS, command};

    /// Each typed method of the API with the function it names: the first
    /// `typed("…"`, `invoke("…"` or `invoke_as(actor, "…"` in its body.
    fn typed_methods() -> Vec<(String, String)> {
        let sources = [
            include_str!("api.rs"),
            include_str!("history.rs"),
            include_str!("mod.rs"),
        ];
        let mut found = Vec::new();
        for source in sources {
            for method in source.split("    pub fn ").skip(1) {
                // As written, whatever rustfmt's line breaks.
                let method: String = method.chars().filter(|c| !c.is_whitespace()).collect();
                let name = method[..method.find('(').unwrap()].to_owned();
                let named = ["typed(\"", "invoke(\"", "invoke_as(actor,\""]
                    .iter()
                    .filter_map(|call| Some(method.find(call)? + call.len()))
                    .min()
                    .map(|at| method[at..at + method[at..].find('"').unwrap()].to_owned());
                if let Some(function) = named {
                    found.push((name, function));
                }
            }
        }
        found
    }

    #[test]
    fn every_command_has_a_typed_method_of_its_name_and_one_names_it() {
        let methods = typed_methods();
        let sources = [include_str!("api.rs"), include_str!("history.rs")];
        for spec in COMMANDS {
            let method = format!("    pub fn {}(", spec.name);
            assert!(
                sources.iter().any(|s| s.contains(&method)),
                "no typed method Memory::{}",
                spec.name
            );
            assert!(
                methods.iter().any(|(_, f)| f == spec.name),
                "no typed method calls the component's {:?}",
                spec.name
            );
        }
    }

    #[test]
    fn every_function_a_typed_method_names_is_in_one_table() {
        let methods = typed_methods();
        assert!(methods.len() > COMMANDS.len(), "{methods:?}");
        for (method, function) in &methods {
            let host = HOST_FUNCTIONS.iter().any(|(name, _)| name == function);
            assert!(
                command(function).is_some() != host,
                "Memory::{method} names {function:?}: in {} tables",
                if host { "both" } else { "neither of the" }
            );
        }
    }

    #[test]
    fn whether_a_function_writes_is_its_tables_and_an_unknown_one_writes() {
        for spec in COMMANDS {
            assert_eq!(writes(spec.name), spec.writes, "{}", spec.name);
        }
        for &(name, w) in HOST_FUNCTIONS {
            assert_eq!(writes(name), w, "{name}");
        }
        assert!(!writes("view") && writes("create") && !writes("history_list"));
        assert!(writes("no_such_function"));
    }
}
