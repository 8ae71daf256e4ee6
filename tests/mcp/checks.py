"""Named checks for the MCP suites: each runs on its own, a failure is
reported with the others, and the run ends with a count."""

from __future__ import annotations

import time
import traceback
from pathlib import Path

from typing import Callable

HERE = Path(__file__).resolve().parent


class Checks:
    def __init__(self) -> None:
        self.all: list[tuple[str, Callable[[], None]]] = []

    def check(self, name: str):
        """Registers the decorated function as the check `name`."""

        def wrap(fn):
            self.all.append((name, fn))
            return fn

        return wrap

    def run(self, title: str, only: str | None = None) -> int:
        """Runs the checks (those whose function name holds `only`), prints
        each outcome and the count; 1 when any failed."""
        passed = failed = 0
        for name, fn in self.all:
            if only and only not in fn.__name__:
                continue
            try:
                fn()
                passed += 1
                print(f"ok   {name}", flush=True)
            except BaseException as exc:  # reported with the others
                while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
                    exc = exc.exceptions[0]
                if isinstance(exc, KeyboardInterrupt):
                    raise
                failed += 1
                # Where in the check it failed: its own innermost line.
                frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).parent == HERE]
                at = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
                print(f"FAIL {name}\n     {type(exc).__name__}: {exc}{at}", flush=True)
        print(f"{title}: {passed} passed, {failed} failed")
        return 1 if failed else 0


def eventually(what: str, done: Callable[[], object], limit: float = 10.0, every: float = 0.02):
    """Polls `done` every `every` seconds (20 ms) until it returns something true, and returns
    that; fails with `what` once `limit` seconds have passed. The way a
    check waits for an event (a watcher's report, a log line, a reload)
    rather than for a fixed time."""
    deadline = time.monotonic() + limit
    while True:
        got = done()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} (waited {limit} s)")
        time.sleep(every)
