"""One-shot `memory_search` calls in a store `memcap copy` just filled (as
`./dev speed` fills it): how many of them, one a second as an agent's turns
come, pay for reading the copied notes once more, and what each costs; and
then the same search once a note of the results is superseded (a search
that decoded the graph to tell it).

    python tests/bench/after_copy.py --memcap target/release/memcap [--notes 10000] [--calls 120]

Prints the calls' times in order, how many took over 25 ms and the last
that did, then the median of 25 searches in quick succession before and
after a note that supersedes one of the results is written.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import speed  # noqa: E402  (the store ./dev speed fills)


def ms(args: list[str], stdin: str | None = None) -> float:
    t = time.perf_counter()
    subprocess.run(args, input=stdin, capture_output=True, text=True, check=True)
    return (time.perf_counter() - t) * 1000


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--memcap", required=True)
    p.add_argument("--notes", type=int, default=10_000)
    p.add_argument("--calls", type=int, default=120)
    a = p.parse_args()
    base = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        scratch, store = Path(tmp), str(Path(tmp) / "store")
        speed.fill(a.memcap, store, a.notes, scratch)
        k = 5 % a.notes
        search = f'{{"command": "memory_search", "query": "widget {k} budget"}}\n'
        call = [a.memcap, "--root", store, "call"]
        times = []
        for _ in range(a.calls):
            times.append(ms(call, search))
            time.sleep(1.0)
        slow = [i for i, t in enumerate(times) if t > 25]
        print("one a second after the copy (ms):", [round(t) for t in times])
        print(f"over 25 ms: {len(slow)} of {a.calls}, the last call {slow[-1] if slow else None}")
        before = statistics.median(ms(call, search) for _ in range(25))
        subprocess.run([a.memcap, "--root", store, "create", "/memories/n/update.md"],
                       input=f"---\nname: Note {k} update\ntype: project\n---\n"
                             f"The widget {k} budget moved.\n\n- supersedes [[Note {k}]]\n",
                       capture_output=True, text=True, check=True)
        ms(call, search)
        after = statistics.median(ms(call, search) for _ in range(25))
        print(f"search in quick succession: {before:.1f} ms; "
              f"with a result superseded: {after:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
