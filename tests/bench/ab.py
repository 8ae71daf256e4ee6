"""Two memcap builds side by side in one sitting, call by call in turns,
so a slow spell of the machine falls on both (docs/benchmarks.md: these
machines vary more between runs than most changes move a figure).

    python tests/bench/ab.py --a OLD/memcap --b NEW/memcap [--notes 10000] [--rounds 8] [--store URL]

Prints, for each figure, the median of each build and their ratio B/A:
`memcap --version`, a one-shot `view` of a small store, one-shot `view`,
`create` and `memory_search` in a store of --notes notes (on tmpfs where
there is one), and a warm 100-byte `create` through one `memcap call`.
Both builds share one store, so their guests must read the same formats.
With --store (a PostgreSQL URL), the store of --notes notes is a namespace
there (`tests/postgres/with-cluster` gives one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import speed  # noqa: E402  (the store speed.py fills)


def timed(args: list[str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(args, input=stdin, capture_output=True, text=True, check=True)
    return (time.perf_counter() - start) * 1000


def warm_create(memcap: str, root: Path, calls: int) -> float:
    """Median ms of a 100-byte `create` through one `memcap call` process."""
    proc = subprocess.Popen([memcap, "--root", str(root), "call"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    times = []
    try:
        for i in range(calls):
            command = {"command": "create", "path": f"/memories/w/{i}.md", "file_text": "x" * 100}
            start = time.perf_counter()
            proc.stdin.write(json.dumps(command) + "\n")
            proc.stdin.flush()
            if json.loads(proc.stdout.readline()).get("is_error"):
                raise RuntimeError("a warm create failed")
            times.append((time.perf_counter() - start) * 1000)
    finally:
        proc.stdin.close()
        proc.wait(30)
    return statistics.median(times[calls // 10:])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--a", required=True, help="the build to compare against")
    parser.add_argument("--b", required=True, help="the build measured")
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--store", help="a PostgreSQL URL: the notes' store is a namespace there")
    args = parser.parse_args()
    builds = {"A": str(Path(args.a).resolve()), "B": str(Path(args.b).resolve())}
    tmp = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    samples: dict[str, dict[str, list[float]]] = {k: {} for k in builds}
    with tempfile.TemporaryDirectory(dir=tmp) as scratch_dir:
        scratch = Path(scratch_dir)
        store, small = scratch / "store", scratch / "small"
        if args.store:
            namespace = f"ab{int(time.time())}"
            speed.fill(builds["A"], f"{args.store}#{namespace}", args.notes, scratch)
            where = ["--store", args.store, "--namespace", namespace]
        else:
            speed.fill(builds["A"], str(store), args.notes, scratch)
            where = ["--root", str(store)]
        k = 742 % args.notes
        focus = f"/memories/n/d{k // 100}/note-{k}.md"
        search = json.dumps({"command": "memory_search", "query": f"widget {k} budget"}) + "\n"
        subprocess.run([builds["A"], "--root", str(small), "create", "/memories/a.md", "a\n"],
                       check=True, capture_output=True)
        for memcap in builds.values():
            # Each build's compiled code cached, the store indexed, before timing.
            subprocess.run([memcap, *where, "call"], input=search, check=True,
                           capture_output=True, text=True)
        made = 0
        for _ in range(args.rounds):
            for name, memcap in builds.items():
                for _ in range(8):
                    made += 1
                    figures = {
                        "memcap --version": ([memcap, "--version"], None),
                        "one-shot view, small store": ([memcap, "--root", str(small), "view", "/memories"], None),
                        f"one-shot view, {args.notes:,} notes": ([memcap, *where, "view", focus], None),
                        f"one-shot create, {args.notes:,} notes": (
                            [memcap, *where, "create", f"/memories/ab/{name}{made}.md", "x\n"], None),
                        f"one-shot memory_search, {args.notes:,} notes": ([memcap, *where, "call"], search),
                    }
                    for figure, (argv, stdin) in figures.items():
                        samples[name].setdefault(figure, []).append(timed(argv, stdin))
                samples[name].setdefault("warm create, 100 bytes", []).append(
                    warm_create(memcap, scratch / f"warm-{name}-{made}", 300))
    print(f"A = {builds['A']}\nB = {builds['B']}")
    for figure in samples["A"]:
        a, b = (statistics.median(samples[k][figure]) for k in ("A", "B"))
        print(f"  {figure:40} A {a:8.2f} ms   B {b:8.2f} ms   B/A {b / a:.3f}")
    for name in builds:
        cold = statistics.median(samples[name]["one-shot view, small store"]) / statistics.median(
            samples[name]["memcap --version"])
        print(f"  cold start of {name} (small view / --version): {cold:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
