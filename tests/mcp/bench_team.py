"""Throughput of the team server over HTTP: calls per second and p50/p99
latency of `view`, `create` and `memory_search` at 8, 32 and 128
concurrent clients (8 namespaces, one token each), against one server
process and against two on the same store; then the resident memory one
warm namespace costs. Each row names what limited it, from the CPU the
server processes and this client used during the row.

    python tests/mcp/bench_team.py --memcap target/release/memcap [--seconds 3] [--store URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
import team_harness  # noqa: E402
from team_harness import ACCEPT, INIT, Base, Server, sse_json  # noqa: E402

NAMESPACES = 8
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Client:
    """One MCP session by raw JSON-RPC over one keep-alive connection."""

    def __init__(self, http: httpx2.AsyncClient, url: str, token: str):
        self.http, self.url = http, url
        self.headers = {"authorization": f"Bearer {token}", "content-type": "application/json", "accept": ACCEPT}
        self.id = 1

    async def open(self) -> None:
        r = await self.http.post(self.url, content=json.dumps(INIT), headers=self.headers)
        r.raise_for_status()
        self.headers["mcp-session-id"] = r.headers["mcp-session-id"]
        await self.http.post(self.url, content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers=self.headers)

    async def call(self, tool: str, args: dict) -> None:
        self.id += 1
        body = {"jsonrpc": "2.0", "id": self.id, "method": "tools/call", "params": {"name": tool, "arguments": args}}
        r = await self.http.post(self.url, content=json.dumps(body), headers=self.headers)
        r.raise_for_status()
        msgs = [m for m in sse_json(r) if m.get("id") == self.id]
        if not msgs or "result" not in msgs[0] or msgs[0]["result"].get("isError"):
            raise RuntimeError(f"{tool} failed: {msgs}")


def operation(op: str, client_no: int, n: int) -> tuple[str, dict]:
    if op == "view":
        return "memory", {"command": "view", "path": f"/memories/seed-{n % 50}.md"}
    if op == "create":
        return "memory", {"command": "create", "path": f"/memories/b/c{client_no}-{n}.md", "file_text": f"bench note {client_no} {n}\n"}
    return "memory_search", {"query": f"release checklist step {n % 50}", "maxResults": 5}


async def run_row(servers: list[Server], tokens: list[str], op: str, clients: int, seconds: float, row: int) -> dict:
    limits = httpx2.Limits(max_connections=clients + 8, max_keepalive_connections=clients + 8)
    async with httpx2.AsyncClient(timeout=120, limits=limits) as http:
        sessions = [Client(http, servers[i % len(servers)].url, tokens[i % NAMESPACES]) for i in range(clients)]
        await asyncio.gather(*(s.open() for s in sessions))
        latencies: list[float] = []
        stop_at = 0.0
        done = [0] * clients

        async def loop(i: int, s: Client) -> None:
            while time.perf_counter() < stop_at:
                tool, args = operation(op, row * 1000 + i, done[i])
                t = time.perf_counter()
                await s.call(tool, args)
                latencies.append(time.perf_counter() - t)
                done[i] += 1

        # A short warm-up, then the measured run.
        stop_at = time.perf_counter() + 0.5
        await asyncio.gather(*(loop(i, s) for i, s in enumerate(sessions)))
        latencies.clear()
        server_cpu = sum(cpu_seconds(s.proc.pid) for s in servers)
        client_cpu = sum(os.times()[:2])
        started = time.perf_counter()
        stop_at = started + seconds
        await asyncio.gather(*(loop(i, s) for i, s in enumerate(sessions)))
        wall = time.perf_counter() - started
        server_cores = (sum(cpu_seconds(s.proc.pid) for s in servers) - server_cpu) / wall
        client_cores = (sum(os.times()[:2]) - client_cpu) / wall
    latencies.sort()
    cores = os.cpu_count() or 1
    used = f"server {server_cores:.1f} + client {client_cores:.1f} cores"
    if server_cores + client_cores >= 0.85 * cores:
        limit = f"CPU: all {cores} cores ({used})"
    elif client_cores >= 0.85:
        limit = f"CPU: the Python client's one core ({used})"
    else:
        # Each namespace runs one call at a time (its store's lock).
        limit = f"one call at a time per namespace, {NAMESPACES} namespaces ({used})"
    return {
        "rate": len(latencies) / wall,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "limit": limit,
    }


def seed(base: Base, tokens: list[str], server: Server) -> None:
    async def fill(token: str) -> None:
        async with httpx2.AsyncClient(timeout=120) as http:
            c = Client(http, server.url, token)
            await c.open()
            for k in range(50):
                await c.call("memory", {"command": "create", "path": f"/memories/seed-{k}.md",
                                        "file_text": f"# Release checklist step {k}\n\nRun the tests, tag the build and note step {k}.\n"})
            # The search index is built by the first search, not in a measured row.
            await c.call("memory_search", {"query": "release checklist"})

    async def everyone() -> None:
        await asyncio.gather(*(fill(t) for t in tokens))

    asyncio.run(everyone())


def warm_namespace_cost(base: Base) -> tuple[float, int]:
    tokens = [base.token(f"warm{i:02}") for i in range(40)]
    with Server(base, "--warm-stores", "64", "--rate-limit", "100000") as server:
        async def touch(token: str) -> None:
            async with httpx2.AsyncClient(timeout=120) as http:
                c = Client(http, server.url, token)
                await c.open()
                await c.call("memory", {"command": "view", "path": "/memories"})

        asyncio.run(touch(tokens[0]))
        before = server.rss_mib()
        for t in tokens[1:]:
            asyncio.run(touch(t))
        after = server.rss_mib()
    return (after - before) / (len(tokens) - 1), len(tokens) - 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--store", help="a PostgreSQL URL instead of a directory")
    args = parser.parse_args()
    team_harness.MEMCAP = str(Path(args.memcap).resolve())
    team_harness.STORE = args.store
    base = Base()
    try:
        tokens = [base.token(f"team{i}") for i in range(NAMESPACES)]
        flags = ("--rate-limit", "1000000", "--max-connections", "1024")
        with Server(base, *flags) as first:
            seed(base, tokens, first)
        print(f"Team server over HTTP ({'PostgreSQL' if args.store else 'directory'}), {NAMESPACES} namespaces, "
              f"{os.cpu_count()} cores, {args.seconds:g} s per row:\n")
        print("| processes | call | clients | calls/s | p50 ms | p99 ms | limit |")
        print("|---|---|---|---|---|---|---|")
        row = 0
        for processes in (1, 2):
            servers = [Server(base, *flags) for _ in range(processes)]
            try:
                for op in ("view", "create", "memory_search"):
                    for clients in (8, 32, 128):
                        row += 1
                        r = asyncio.run(run_row(servers, tokens, op if op != "memory_search" else "search", clients, args.seconds, row))
                        print(f"| {processes} | {op} | {clients} | {r['rate']:.0f} | {r['p50']:.1f} | {r['p99']:.1f} | {r['limit']} |", flush=True)
            finally:
                for s in servers:
                    s.stop()
        per, n = warm_namespace_cost(base)
        print(f"\nResident memory per warm namespace: {per:.1f} MiB (RSS growth over {n} namespaces opened one after another)")
    finally:
        base.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
