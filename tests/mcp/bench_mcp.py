"""MCP round trips, warm, through the official Python client: p50 of
`view` and `create` via `memcap mcp`, the same commands through
`memcap call` (the component call alone, over a pipe), and the time from
spawning the server to its first answered call. With --basic-memory, the
same through basic-memory's MCP server (its `read_note`/`write_note`).

    python tests/mcp/bench_mcp.py --memcap target/release/memcap [--calls 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from client import McpMemory  # noqa: E402


def p50(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(fn, n: int) -> list[float]:
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t)
    return out


def bench_mcp(binary: str, n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        server = McpMemory(binary, ["--root", d])
        server.call("memory", {"command": "view", "path": "/memories"})
        startup = time.perf_counter() - t
        try:
            server.call("memory", {"command": "create", "path": "/memories/seed.md", "file_text": "seed\n" * 20})

            def view(_):
                _, err, _ = server.call("memory", {"command": "view", "path": "/memories/seed.md"})
                assert not err

            def create(i):
                _, err, _ = server.call("memory", {"command": "create", "path": f"/memories/n{i}.md", "file_text": f"note {i}\n"})
                assert not err

            return {"view": p50(timed(view, n)), "create": p50(timed(create, n)), "startup": startup * 1000}
        finally:
            server.close()


def bench_call(binary: str, n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        proc = subprocess.Popen([binary, "--root", d, "call"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        def call(command):
            proc.stdin.write(json.dumps(command) + "\n")
            proc.stdin.flush()
            result = json.loads(proc.stdout.readline())
            assert not result["is_error"], result

        call({"command": "create", "path": "/memories/seed.md", "file_text": "seed\n" * 20})
        startup = time.perf_counter() - t
        view = timed(lambda _: call({"command": "view", "path": "/memories/seed.md"}), n)
        create = timed(lambda i: call({"command": "create", "path": f"/memories/n{i}.md", "file_text": f"note {i}\n"}), n)
        proc.stdin.close()
        proc.wait()
        return {"view": p50(view), "create": p50(create), "startup": startup * 1000}


def bench_basic_memory(command: str, n: int) -> dict[str, float]:
    import os

    with tempfile.TemporaryDirectory() as d:
        home = Path(d, "home")
        home.mkdir()
        env = dict(os.environ, HOME=str(home), BASIC_MEMORY_HOME=str(Path(d, "notes")),
                   BASIC_MEMORY_SEMANTIC_SEARCH_ENABLED="false")
        t = time.perf_counter()
        server = McpMemory(command, [], timeout=120, env=env)
        server.call("write_note", {"title": "seed", "content": "seed\n" * 20, "directory": "bench"})
        startup = time.perf_counter() - t
        try:
            def view(_):
                text, err, _ = server.call("read_note", {"identifier": "bench/seed"})
                assert not err and "seed" in text, text

            def create(i):
                text, err, _ = server.call("write_note", {"title": f"n{i}", "content": f"note {i}", "directory": "bench"})
                assert not err, text

            return {"view": p50(timed(view, n)), "create": p50(timed(create, n)), "startup": startup * 1000}
        finally:
            server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--basic-memory", help="the basic-memory command (PyPI basic-memory), to compare")
    args = parser.parse_args()
    rows = {"memcap mcp (stdio, Python mcp client)": bench_mcp(args.memcap, args.calls),
            "memcap call (component call over a pipe)": bench_call(args.memcap, args.calls)}
    if args.basic_memory:
        rows["basic-memory mcp (read_note / write_note)"] = bench_basic_memory(args.basic_memory, max(20, args.calls // 10))
    print(f"{'':45} {'view p50':>10} {'create p50':>11} {'first call':>11}")
    for name, r in rows.items():
        print(f"{name:45} {r['view']:8.2f}ms {r['create']:9.2f}ms {r['startup']:9.0f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
