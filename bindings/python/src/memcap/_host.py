"""Runs memcap.wasm in wasmtime's Python host, granted one directory.

The component gets exactly one preopened directory, the memory root, seen as
`/memories`: no other file, no network, no environment but the store quota (and vectors off, when asked).
One warm instance serves the calls of one `Store`; a call that traps or runs
past its time or memory bound is reported as an error and the next call gets
a fresh instance. Calls are serialised across threads (a lock) and processes
(an exclusive `flock` on `.memcap/lock`, the lock memcap's own host takes).
"""

from __future__ import annotations

import fcntl
import math
import os
import shutil
import stat
import threading
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
import re
from typing import Any, Dict, Optional

from wasmtime import Config, Engine, Store as WasmStore, WasiConfig
from wasmtime import Trap, TrapCode, WasmtimeError
from wasmtime.component import Component, Linker

GUEST_ROOT = "/memories"
RESERVED = ".memcap"
API = "@0.2.0"

# The same words memcap's own host uses for a call it had to stop.
AFTER_WRITE = (
    " A file it was changing holds either its old or its new content; view it before retrying."
)


@dataclass(frozen=True)
class Limits:
    """Bounds on one call and on the store (memcap's defaults)."""

    call_timeout: float = 10.0
    memory_mib: int = 256
    max_store_files: int = 200_000
    max_store_bytes: int = 1 << 30


# How often the engine's epoch moves on: a call's deadline is counted in ticks.
EPOCH_TICK = 0.01


class _Runtime:
    """The engine and the compiled component, shared by every store in the
    process. wasmtime's compilation cache keeps the compiled code on disk, so
    only the first process on a machine pays for compiling it. One daemon
    thread moves the engine's epoch on, which is what stops a call that runs
    past its deadline."""

    _lock = threading.Lock()
    _shared: Optional["_Runtime"] = None

    def __init__(self) -> None:
        config = Config()
        config.epoch_interruption = True
        try:
            config.cache = True
        except WasmtimeError:
            pass  # no usable cache directory: compile in memory each time
        self.engine = Engine(config)
        wasm = resources.files("memcap").joinpath("memcap.wasm").read_bytes()
        self.component = Component(self.engine, wasm)
        self.linker = Linker(self.engine)
        self.linker.add_wasip2()
        ticker = threading.Thread(target=self._tick, name="memcap-epoch", daemon=True)
        ticker.start()

    def _tick(self) -> None:
        while True:
            time.sleep(EPOCH_TICK)
            self.engine.increment_epoch()

    @classmethod
    def get(cls) -> "_Runtime":
        with cls._lock:
            if cls._shared is None:
                cls._shared = _Runtime()
            return cls._shared


def secure_mkdir(path: Path) -> None:
    """Creates `path` and its missing parents as 0700, whatever the umask
    (as Anthropic's SDK does); existing directories are left alone."""
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            continue
        os.chmod(directory, 0o700)


_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


class Host:
    """One memory root served by the component."""

    def __init__(
        self, root: Path, limits: Limits = Limits(), extra: Optional[Dict[str, Path]] = None, vectors: bool = True
    ) -> None:
        self.root = Path(root)
        self.limits = limits
        self.vectors = vectors
        self.extra = {name: Path(path) for name, path in (extra or {}).items()}
        for name, path in self.extra.items():
            if not _NAME.fullmatch(name) or name.startswith("."):
                raise ValueError(f"extra directory name {name!r}: use 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'")
            if not path.is_dir():
                raise FileNotFoundError(f"the extra directory {path} does not exist")
        self._runtime = _Runtime.get()
        self._mutex = threading.Lock()
        self._warm: Optional[tuple] = None
        secure_mkdir(self.root)
        self._lock_fd = self._prepare()

    def _prepare(self) -> int:
        """Makes `.memcap/tmp` and the lock file, refusing a planted link."""
        reserved = self.root / RESERVED
        for directory in (reserved, reserved / "tmp"):
            try:
                os.mkdir(directory, 0o700)
            except FileExistsError:
                pass
            if stat.S_ISLNK(os.lstat(directory).st_mode):
                raise OSError(f"{directory} is a symbolic link; memcap will not use it")
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(reserved / "lock", flags, 0o600)
        with self._locked(fd):
            self._remove_leftovers()
        return fd

    def _remove_leftovers(self) -> None:
        temp = self.root / RESERVED / "tmp"
        for entry in os.scandir(temp):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)

    class _locked:
        def __init__(self, fd: int) -> None:
            self.fd = fd

        def __enter__(self) -> None:
            fcntl.flock(self.fd, fcntl.LOCK_EX)

        def __exit__(self, *exc: Any) -> None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)

    def _instantiate(self) -> tuple:
        runtime = self._runtime
        store = WasmStore(runtime.engine)
        wasi = WasiConfig()
        wasi.env = [
            ("MEMCAP_MAX_FILES", str(self.limits.max_store_files)),
            ("MEMCAP_MAX_BYTES", str(self.limits.max_store_bytes)),
            ("MEMCAP_MEMORY_MIB", str(self.limits.memory_mib)),
        ] + ([] if self.vectors else [("MEMCAP_VECTORS", "off")])
        wasi.preopen_dir(str(self.root), GUEST_ROOT)
        # Extra directories are granted read-only: the guest cannot change
        # them whatever it does.
        for name, path in self.extra.items():
            wasi.preopen_dir(str(path), f"{GUEST_ROOT}/extra/{name}", fs_mutable=False)
        store.set_wasi(wasi)
        store.set_limits(memory_size=self.limits.memory_mib << 20)
        # Epoch interruption is on: without a deadline the first tick stops it.
        store.set_epoch_deadline(1 << 62)
        instance = runtime.linker.instantiate(store, runtime.component)
        return store, instance, {}

    def run(self, interface: str, name: str, args: tuple, writes: bool = True) -> Any:
        """Runs one export. A stopped or failed call raises `Stopped` with
        the message the agent should see."""
        with self._mutex, self._locked(self._lock_fd):
            if self._warm is None:
                try:
                    self._warm = self._instantiate()
                except (Trap, WasmtimeError) as trap:
                    raise Stopped.from_trap(trap, self.limits, False) from None
            store, instance, funcs = self._warm
            func = funcs.get((interface, name))
            if func is None:
                iface = instance.get_export_index(store, f"memcap:memory/{interface}{API}")
                func = instance.get_func(store, instance.get_export_index(store, name, iface))
                funcs[(interface, name)] = func
            # The current tick is partly gone: one tick more keeps the limit a floor.
            store.set_epoch_deadline(math.ceil(self.limits.call_timeout / EPOCH_TICK) + 1)
            try:
                return func(store, *args)
            except (Trap, WasmtimeError) as trap:
                # A trapped instance may be in any state: never reuse it.
                self._warm = None
                self._remove_leftovers()
                raise Stopped.from_trap(trap, self.limits, writes) from None

    def close(self) -> None:
        self._warm = None
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1


class Stopped(Exception):
    """A call the host stopped: out of time, out of memory, or a guest bug."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    @classmethod
    def from_trap(cls, trap: Exception, limits: Limits, writes: bool) -> "Stopped":
        after = AFTER_WRITE if writes else ""
        # A component call raises the trap as a WasmtimeError with wasmtime's
        # own words for it; a core trap carries its code.
        interrupted = (
            trap.trap_code == TrapCode.INTERRUPT
            if isinstance(trap, Trap)
            else "wasm trap: interrupt" in str(trap)
        )
        if interrupted:
            return cls(
                "timed-out",
                f"The memory command was stopped after {limits.call_timeout:g} s, "
                f"memcap's time limit per call.{after}",
            )
        # wasmtime-py cannot tell a refused memory.grow from a guest bug: both
        # end in a trap, so the message names both.
        return cls(
            "guest-failure",
            "The memory command failed inside memcap (an internal error, or it needed more "
            f"than {limits.memory_mib} MiB of memory).{after}",
        )
