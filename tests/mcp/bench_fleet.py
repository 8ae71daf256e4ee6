"""Fairness and fleet figures for the team server.

1. A token holder's latency (bob: one client, `view` calls one after
   another, ~150 a second, under a --rate-limit of 300) while nobody else calls, then while another token (mallory)
   floods the server: calls as fast as 32 clients can send them, 1 MB
   writes from 4 clients, and 600 silent connections with 200 idle GET
   streams. Each row gives bob's p50/p99 and his p99 over the quiet one.
2. Throughput of 1, 2 and 3 processes behind haproxy (the configuration
   docs/team-server.md shows) on one store: `view` and `create` from 32
   clients over 8 namespaces, with the cores the servers, haproxy and the
   client used, so the row names what limited it.

    python tests/mcp/bench_fleet.py --memcap target/release/memcap [--seconds 4] [--store URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import sys
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent))
import team_harness  # noqa: E402
from bench_team import Client, cpu_seconds  # noqa: E402
from team_fleet import every_process_served, start_haproxy  # noqa: E402
from team_harness import Base, Server  # noqa: E402

NAMESPACES = 8


def percentiles(latencies: list[float]) -> tuple[float, float]:
    latencies = sorted(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return statistics.median(latencies) * 1000, p99 * 1000


async def bob_calls(url: str, token: str, seconds: float) -> list[float]:
    async with httpx2.AsyncClient(timeout=60) as http:
        bob = Client(http, url, token)
        await bob.open()
        await bob.call("memory", {"command": "view", "path": "/memories/note.md"})
        out: list[float] = []
        stop = time.perf_counter() + seconds
        while time.perf_counter() < stop:
            t = time.perf_counter()
            await bob.call("memory", {"command": "view", "path": "/memories/note.md"})
            out.append(time.perf_counter() - t)
            # ~150 calls a second at most: well within his rate limit.
            await asyncio.sleep(0.005)
        return out


async def flood_calls(url: str, token: str, stop: asyncio.Event, size: int, clients: int) -> int:
    """mallory's clients calling until `stop`; returns how many got through."""
    limits = httpx2.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    done = [0]
    async with httpx2.AsyncClient(timeout=60, limits=limits) as http:
        sessions = [Client(http, url, token) for _ in range(clients)]
        await asyncio.gather(*(s.open() for s in sessions))

        async def loop(i: int, s: Client) -> None:
            n = 0
            while not stop.is_set():
                n += 1
                if size:
                    args = {"command": "create", "path": f"/memories/big-{i}-{n}.md", "file_text": "x" * size}
                else:
                    args = {"command": "view", "path": "/memories"}
                s.id += 1
                body = {"jsonrpc": "2.0", "id": s.id, "method": "tools/call", "params": {"name": "memory", "arguments": args}}
                try:
                    r = await http.post(s.url, content=json.dumps(body), headers=s.headers)
                except httpx2.HTTPError:
                    continue
                if r.status_code == 200:
                    done[0] += 1
                elif r.status_code == 429:
                    # A client that honours Retry-After a little, as real ones do.
                    await asyncio.sleep(0.05)

        await asyncio.gather(*(loop(i, s) for i, s in enumerate(sessions)))
    return done[0]


def idle_sockets(server: Server, mallory: str) -> list[socket.socket]:
    """600 silent connections and 200 idle GET streams of mallory's."""
    held = []
    for i in range(600):
        s = socket.socket()
        s.bind((f"127.0.2.{1 + i % 5}", 0))
        s.connect(("127.0.0.1", server.port))
        held.append(s)
    raw = team_harness.Raw(server.url, [("authorization", f"Bearer {mallory}")])
    for i in range(200):
        raw.session = None
        raw.open()
        s = socket.socket()
        s.bind((f"127.0.1.{1 + i % 5}", 0))
        s.connect(("127.0.0.1", server.port))
        s.sendall((f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {mallory}\r\n"
                   f"Accept: text/event-stream\r\nMcp-Session-Id: {raw.session}\r\n\r\n").encode())
        held.append(s)
    return held


def fairness(base: Base, seconds: float) -> None:
    bob, mallory = base.token("bob"), base.token("mallory")
    base.plant("bob", "note.md", "bob's note\n" * 20)
    flags = ("--max-sessions-per-token", "256", "--max-streams-per-token", "256", "--rate-limit", "300")
    with Server(base, *flags) as server:
        quiet = asyncio.run(bob_calls(server.url, bob, seconds))
        q50, q99 = percentiles(quiet)
        print(f"A token holder's `view` while another token floods ({os.cpu_count()} cores, {seconds:g} s a row):\n")
        print("| mallory does | her calls served | bob p50 ms | bob p99 ms | p99 / quiet p99 |")
        print("|---|---|---|---|---|")
        print(f"| nothing | - | {q50:.2f} | {q99:.2f} | 1.0× |")

        async def under(size: int, clients: int) -> tuple[list[float], int]:
            stop = asyncio.Event()
            flood = asyncio.create_task(flood_calls(server.url, mallory, stop, size, clients))
            await asyncio.sleep(0.5)
            mine = await bob_calls(server.url, bob, seconds)
            stop.set()
            return mine, await flood

        for what, size, clients in (("calls, 32 clients", 0, 32), ("1 MB writes, 4 clients", 1 << 20, 4)):
            mine, served = asyncio.run(under(size, clients))
            p50, p99 = percentiles(mine)
            print(f"| {what} | {served} | {p50:.2f} | {p99:.2f} | {p99 / q99:.1f}× |", flush=True)
        held = idle_sockets(server, mallory)
        try:
            mine = asyncio.run(bob_calls(server.url, bob, seconds))
        finally:
            for s in held:
                s.close()
        p50, p99 = percentiles(mine)
        print(f"| 600 silent connections + 200 idle streams | - | {p50:.2f} | {p99:.2f} | {p99 / q99:.1f}× |")


async def fleet_row(url: str, tokens: list[str], op: str, clients: int, seconds: float) -> tuple[float, float, float]:
    limits = httpx2.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    async with httpx2.AsyncClient(timeout=60, limits=limits) as http:
        sessions = [Client(http, url, tokens[i % len(tokens)]) for i in range(clients)]
        await asyncio.gather(*(s.open() for s in sessions))
        latencies: list[float] = []
        stop_at = time.perf_counter() + seconds

        async def loop(i: int, s: Client) -> None:
            n = 0
            while time.perf_counter() < stop_at:
                n += 1
                args = ({"command": "view", "path": "/memories/seed.md"} if op == "view" else
                        {"command": "create", "path": f"/memories/f/{i}-{n}-{time.monotonic_ns()}.md", "file_text": "x\n"})
                t = time.perf_counter()
                await s.call("memory", args)
                latencies.append(time.perf_counter() - t)

        started = time.perf_counter()
        await asyncio.gather(*(loop(i, s) for i, s in enumerate(sessions)))
        wall = time.perf_counter() - started
    p50, p99 = percentiles(latencies)
    return len(latencies) / wall, p50, p99


def fleet(base: Base, seconds: float) -> None:
    haproxy = shutil.which("haproxy")
    if not haproxy:
        print("\nhaproxy is not installed (./dev setup installs it): no fleet rows")
        return
    tokens = [base.token(f"fleet{i}") for i in range(NAMESPACES)]
    for i in range(NAMESPACES):
        base.plant(f"fleet{i}", "seed.md", "a note every process reads\n")
    print(f"\nThroughput behind haproxy ({'PostgreSQL' if team_harness.STORE else 'one directory'}, "
          f"{NAMESPACES} namespaces, 32 clients, {os.cpu_count()} cores, {seconds:g} s a row):\n")
    print("| processes | call | calls/s | p50 ms | p99 ms | cores used (servers + haproxy + client) |")
    print("|---|---|---|---|---|---|")
    flags = ("--rate-limit", "1000000", "--max-connections-per-peer", "1024")
    for n in (1, 2, 3):
        servers = [Server(base, *flags) for _ in range(n)]
        proxy, url, cfg = start_haproxy(haproxy, servers)
        try:
            every_process_served(url, tokens[0], servers)
            for op in ("view", "create"):
                before = sum(cpu_seconds(s.proc.pid) for s in servers) + cpu_seconds(proxy.pid)
                mine = sum(os.times()[:2])
                t = time.perf_counter()
                rate, p50, p99 = asyncio.run(fleet_row(url, tokens, op, 32, seconds))
                wall = time.perf_counter() - t
                used = (sum(cpu_seconds(s.proc.pid) for s in servers) + cpu_seconds(proxy.pid) - before) / wall
                client = (sum(os.times()[:2]) - mine) / wall
                print(f"| {n} | {op} | {rate:.0f} | {p50:.1f} | {p99:.1f} | {used:.1f} + {client:.1f} |", flush=True)
        finally:
            proxy.terminate()
            proxy.wait(10)
            for s in servers:
                s.stop()
            shutil.rmtree(cfg.parent, ignore_errors=True)
    cores = os.cpu_count() or 1
    print(f"\nOn {cores} cores the processes, haproxy and the client share the same CPUs: more "
          "processes add capacity only where cores are free (or for surviving one's death).")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--store", help="a PostgreSQL URL instead of a directory")
    args = parser.parse_args()
    team_harness.MEMCAP = str(Path(args.memcap).resolve())
    team_harness.STORE = args.store
    with Base() as base:
        fairness(base, args.seconds)
    with Base() as base:
        fleet(base, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
