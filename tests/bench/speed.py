"""`./dev speed`: the figures memcap's speed targets name, measured in one
run and printed each against its target with PASS or MISS, so a change that
slows the core loop shows before it lands. Times on tmpfs (/dev/shm where
there is one); ratios are within this run, since the machines are noisy,
and what a ratio compares is measured in turn, call by call (the
directory's and the database's one-shot calls, `view` and `--version`,
memcap's and the SDK's writes), so drift falls on both sides alike.
Exits 0 whatever it measured (CI prints the table and does not fail on it),
1 only when a measurement could not be made.

    python tests/bench/speed.py --memcap target/release/memcap \
        --default-build target/release/memcap-default [--store URL] [--notes 10000] \
        [--against OLD_BINARY]

- one-shot CLI calls in a store of --notes notes (a fresh process each):
  `create`, `str_replace`, `view`, `prompt`, `memory_search`, `memory_view`
  (target <= 8 ms each);
- cold start: a one-shot `view` of a small store against `memcap --version`
  (<= 1.5x), and the size of the release binary with the default features
  (--default-build: no team server, page or PostgreSQL client) (<= 30 MiB);
- with --store (a PostgreSQL URL): one-shot `view` and `create` there
  against the directory's (<= 1.5x, <= 2x);
- with --against (another build, say of the last commit): its one-shot
  calls and warm writes in stores of its own, in turn with this build's,
  and each one's time as a ratio to it (a change's effect, within one run);
- warm writes against Anthropic's SDK (`BetaLocalFilesystemMemoryTool`,
  in-process): `create`, `str_replace` and `delete` of a 100-byte and a
  10 KB note through one `memcap call` process (the pipe's round trip is
  counted against memcap) (<= 1.2x).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROWS: list[tuple[str, str, float, float, str]] = []  # (what, shown, value, target, unit)


def row(what: str, value: float, target: float, unit: str) -> None:
    shown = f"{value:.2f}{unit}" if unit == "x" else f"{value:.1f} {unit}"
    ROWS.append((what, shown, value, target, unit))
    verdict = "PASS" if value <= target else "MISS"
    goal = f"<= {target:g}{unit}" if unit == "x" else f"<= {target:g} {unit}"
    print(f"  {verdict}  {what:58} {shown:>10}  (target {goal})", flush=True)


def interleaved_ms(cases: dict, rounds: int) -> dict[str, float]:
    """Median wall time of each case (`case(i)` gives round i's argv and
    stdin: a fresh process, required to succeed) over `rounds` rounds after
    one warm-up round. Within a round the cases run in turn, the order
    turned each round, so the machine's drift falls on all of them alike
    and their ratios hold within one run."""
    names = list(cases)
    times: dict[str, list[float]] = {name: [] for name in names}
    for i in range(rounds + 1):
        turn = i % len(names)
        for name in names[turn:] + names[:turn]:
            args, stdin = cases[name](i)
            t = time.perf_counter()
            r = subprocess.run(args, input=stdin, capture_output=True, text=True)
            took = (time.perf_counter() - t) * 1000
            if r.returncode != 0:
                raise RuntimeError(f"{' '.join(map(str, args[:6]))}… failed: {r.stderr[:300]}")
            if i:
                times[name].append(took)
    return {name: statistics.median(t) for name, t in times.items()}


def note(i: int, n: int) -> str:
    d = (i * 7 + 3) % n
    return (f"---\nname: Note {i}\ntype: project\n---\n# Note {i}\n\nThe widget {i} budget is {i % 97} units.\n\n"
            f"- [fact] widget {i} ships in week {i % 52} #w{i % 10}\n- depends_on [[n/d{d // 100}/note-{d}]]\n")


def fill(memcap: str, dst: str, n: int, scratch: Path) -> None:
    """n notes, written as files and copied in with one `memcap copy`, then
    indexed by one call (as a store in use is)."""
    src = scratch / "src"
    if not src.exists():
        for i in range(n):
            f = src / "n" / f"d{i // 100}" / f"note-{i}.md"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(note(i, n))
    subprocess.run([memcap, "copy", str(src), dst, "--replace"], check=True, capture_output=True)


def one_shot(memcap: str, where: list[str], tag: str, n: int) -> dict:
    """The one-shot calls in the store `where` names, as cases for
    [`interleaved_ms`]; the store indexed once first, as a store in use is."""
    call = [memcap, *where, "call"]
    k = 742 % n
    focus = f"/memories/n/d{k // 100}/note-{k}.md"
    subprocess.run(call, input='{"command": "memory_search", "query": "widget"}\n', check=True,
                   capture_output=True, text=True)
    swap = ("units.", "units, checked.")
    search = json.dumps({"command": "memory_search", "query": f"widget {k} budget"}) + "\n"
    return {
        "create": lambda i: ([memcap, *where, "create", f"/memories/speed/{tag}-{i}.md"], "hello\n"),
        "str_replace": lambda i: ([memcap, *where, "str-replace", focus, swap[i % 2], swap[(i + 1) % 2]], None),
        "view": lambda i: ([memcap, *where, "view", focus], None),
        "prompt": lambda i: ([memcap, *where, "prompt"], None),
        "memory_search": lambda i: (call, search),
        "memory_view": lambda i: (call, '{"command": "memory_view"}\n'),
    }


class Piped:
    """One warm `memcap call` process: a line in, a line out."""

    def __init__(self, memcap: str, root: str) -> None:
        self.proc = subprocess.Popen([memcap, "--root", root, "call"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def call(self, command: dict) -> dict:
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if answer.get("is_error"):
            raise RuntimeError(f"{command['command']} failed: {answer}")
        return answer

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(30)


def warm_writes(memcap: str, scratch: Path, calls: int, against: str | None = None) -> dict:
    """memcap / SDK median per-call time of each write, per note size; with
    `against` (another build, in a store of its own, taking its turn with
    the two), also memcap / that build, keyed ("against", op, size)."""
    from anthropic.lib.tools._beta_builtin_memory_tool import BetaLocalFilesystemMemoryTool
    sdk_root, mc_root = scratch / "sdk", scratch / "warm"
    sdk = BetaLocalFilesystemMemoryTool(base_path=str(sdk_root))
    mc = Piped(memcap, str(mc_root))
    old = Piped(against, str(scratch / "warm-against")) if against else None
    out = {}
    try:
        for size in (100, 10_000):
            body = ("x" * 63 + "\n") * (size // 64) + "y" * (size % 64)
            tools = {"sdk": sdk.call, "memcap": mc.call}
            if old:
                tools["against"] = old.call
            samples = {(name, op): [] for name in tools for op in ("create", "str_replace", "delete")}
            for tool in tools.values():
                tool({"command": "create", "path": f"/memories/edit-{size}.md", "file_text": "alpha\n" + body})
            swap = ("alpha", "omega")
            for i in range(calls):
                for op, command in (
                    ("create", {"command": "create", "path": f"/memories/w{size}/{i}.md", "file_text": body}),
                    ("str_replace", {"command": "str_replace", "path": f"/memories/edit-{size}.md",
                                     "old_str": swap[i % 2], "new_str": swap[(i + 1) % 2]}),
                    ("delete", {"command": "delete", "path": f"/memories/w{size}/{i}.md"}),
                ):
                    # Every order of them in turn: drift falls on all
                    # alike, and each follows each other as often (a
                    # call right after another memcap's runs faster).
                    orders = list(itertools.permutations(tools))
                    for name in orders[i % len(orders)]:
                        t = time.perf_counter()
                        tools[name](command)
                        samples[(name, op)].append(time.perf_counter() - t)
            medians = {key: statistics.median(s[calls // 10:]) for key, s in samples.items()}
            for op in ("create", "str_replace", "delete"):
                out[(op, size)] = medians[("memcap", op)] / medians[("sdk", op)]
                if old:
                    out[("against", op, size)] = medians[("memcap", op)] / medians[("against", op)]
    finally:
        mc.close()
        if old:
            old.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--default-build", required=True,
                        help="the binary built with the default features, whose size is the target")
    parser.add_argument("--store", help="a PostgreSQL URL: also compare the database with the directory")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--against", help="another memcap binary: compare its one-shot calls with this one's")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    memcap = str(Path(args.memcap).resolve())
    tmp = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    started = time.perf_counter()
    print(f"memcap speed, {time.strftime('%Y-%m-%d %H:%M')}, {args.notes:,} notes, tmpfs: {tmp is not None}")
    try:
        with tempfile.TemporaryDirectory(dir=tmp) as scratch_dir:
            scratch = Path(scratch_dir)
            root = str(scratch / "store")
            fill(memcap, root, args.notes, scratch)
            cases = one_shot(memcap, ["--root", root], "dir", args.notes)
            if args.store:
                # The database's calls in turn with the directory's, so
                # their ratio is of the same minutes.
                namespace = f"speed{int(time.time())}"
                fill(memcap, f"{args.store}#{namespace}", args.notes, scratch)
                db = one_shot(memcap, ["--store", args.store, "--namespace", namespace], "db", args.notes)
                cases.update({f"db {name}": db[name] for name in ("view", "create")})
            against = str(Path(args.against).resolve()) if args.against else None
            if against:
                # Its own store: builds may differ in what they keep there.
                old_root = str(scratch / "against")
                fill(against, old_root, args.notes, scratch)
                old = one_shot(against, ["--root", old_root], "old", args.notes)
                cases.update({f"old {name}": case for name, case in old.items()})
            medians = interleaved_ms(cases, args.rounds)
            for name in ("create", "str_replace", "view", "prompt", "memory_search", "memory_view"):
                row(f"one-shot {name}, {args.notes:,} notes", medians[name], 8, "ms")
            if against:
                print(f"  against {args.against}:")
                for name in ("create", "str_replace", "view", "prompt", "memory_search", "memory_view"):
                    new, was = medians[name], medians[f"old {name}"]
                    print(f"        one-shot {name:14} {new:5.1f} ms, was {was:5.1f} ms: {new / was:.2f}x")

            small = scratch / "small"
            subprocess.run([memcap, "--root", str(small), "create", "/memories/a.md", "a\n"], check=True, capture_output=True)
            cold = interleaved_ms({
                "view": lambda i: ([memcap, "--root", str(small), "view", "/memories"], None),
                "version": lambda i: ([memcap, "--version"], None),
            }, 21)
            row("cold one-shot view of a small store / memcap --version", cold["view"] / cold["version"], 1.5, "x")
            row("release binary, default features", os.path.getsize(args.default_build) / (1 << 20), 30, "MiB")
            print(f"  (with every feature, the team server, page and PostgreSQL client: "
                  f"{os.path.getsize(memcap) / (1 << 20):.1f} MiB)")

            if args.store:
                row(f"PostgreSQL one-shot view / directory's, {args.notes:,} notes", medians["db view"] / medians["view"], 1.5, "x")
                row(f"PostgreSQL one-shot create / directory's, {args.notes:,} notes", medians["db create"] / medians["create"], 2, "x")

            warm = warm_writes(memcap, scratch, args.calls, against)
            for key, ratio in warm.items():
                if key[0] != "against":
                    op, size = key
                    row(f"warm {op} of a {size:,}-byte note / the SDK's", ratio, 1.2, "x")
            if against:
                print(f"  against {args.against}:")
                for key, ratio in warm.items():
                    if key[0] == "against":
                        _, op, size = key
                        print(f"        warm {op} of a {size:,}-byte note: {ratio:.2f}x")
    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
        print(f"speed: could not measure: {e}", file=sys.stderr)
        return 1
    missed = sum(1 for _, _, value, target, _ in ROWS if value > target)
    print(f"speed: {len(ROWS) - missed} of {len(ROWS)} within target, {missed} missed "
          f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
