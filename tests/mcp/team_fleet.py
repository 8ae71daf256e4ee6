"""A fleet: three `memcap mcp --http` processes on one store behind haproxy
with the configuration docs/team-server.md shows (stateless requests round
robin, a legacy session kept on the process that opened it by its
Mcp-Session-Id, /readyz as the health check). One process is killed with
SIGKILL mid-run: clients that lose their session open another through the
proxy, and no write that was acknowledged is lost. Run by test_team.py."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import team_harness as h
from team_harness import CHECKS, Base, Raw, Server, free_port, sse_json

check = CHECKS.check

HAPROXY_CFG = """\
global
    maxconn 2000
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 2
    option redispatch
frontend mcp
    bind 127.0.0.1:{front}
    default_backend memcap
backend memcap
    balance roundrobin
    stick-table type string len 64 size 100k expire 30m
    stick on req.hdr(mcp-session-id)
    stick store-response res.hdr(mcp-session-id)
    option httpchk GET /readyz
    http-check expect status 200
    default-server check inter 500ms fall 2 rise 2
{servers}
"""

STATELESS = "2026-07-28"
# Writes per client; six clients.
WRITES = 60


def start_haproxy(haproxy: str, servers: list[Server]) -> tuple[subprocess.Popen, str, Path]:
    """haproxy with the documented configuration in front of `servers`:
    the process, the URL it serves MCP at, and its configuration file."""
    front = free_port()
    cfg = Path(tempfile.mkdtemp()) / "haproxy.cfg"
    lines = "\n".join(f"    server m{i} 127.0.0.1:{s.port}" for i, s in enumerate(servers))
    cfg.write_text(HAPROXY_CFG.format(front=front, servers=lines))
    proxy = subprocess.Popen([haproxy, "-f", str(cfg), "-db"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proxy, f"http://127.0.0.1:{front}/mcp", cfg


def every_process_served(url: str, token: str, servers: list[Server], within: float = 20) -> None:
    """Waits until haproxy at `url` passes requests on and stateless calls
    have reached each of `servers`: haproxy takes a process out until its
    health checks pass (rise 2 at 500 ms), so on a busy machine one can
    start out of rotation."""
    deadline = time.monotonic() + within
    while True:
        try:
            if Raw(url, [("authorization", f"Bearer {token}")]).open().status_code == 200:
                break
        except Exception:  # noqa: BLE001 - not listening yet
            pass
        assert time.monotonic() < deadline, "haproxy never passed a request on"
        time.sleep(0.2)
    raw = Raw(url, [("authorization", f"Bearer {token}")])
    while not all(memory_calls(s) for s in servers):
        assert time.monotonic() < deadline, \
            f"round robin never reached a process: {[memory_calls(s) for s in servers]}"
        stateless_memory(raw, {"command": "view", "path": "/memories"})
        time.sleep(0.05)


def stateless_memory(raw: Raw, args: dict):
    """One stateless `memory` call: the response and the messages answering it."""
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "memory", "arguments": args,
                       "_meta": {"io.modelcontextprotocol/protocolVersion": STATELESS,
                                 "io.modelcontextprotocol/clientCapabilities": {}}}}
    headers = [*raw.headers, ("mcp-protocol-version", STATELESS), ("mcp-method", "tools/call"), ("mcp-name", "memory")]
    r = raw.post(body, headers=headers)
    return r, [m for m in sse_json(r) if m.get("id") == 9] if r.status_code == 200 else []


def memory_calls(server: Server) -> int:
    return sum(1 for line in server.log() if line.get("tool") == "memory")


def create(raw: Raw, path: str, stateless: bool):
    """One create through the proxy: (acknowledged, already there, status)."""
    args = {"command": "create", "path": path, "file_text": "kept\n"}
    if stateless:
        r, msgs = stateless_memory(raw, args)
    else:
        r, msgs = raw.call("memory", args)
    if not msgs or "result" not in msgs[0]:
        return False, False, r.status_code
    result = msgs[0]["result"]
    text = "".join(c.get("text", "") for c in result.get("content", []))
    if result.get("isError"):
        # A retry of a create that landed before its answer was lost.
        return False, "already exists" in text, r.status_code
    return True, False, r.status_code


@check("three processes behind haproxy (the documented config), one killed mid-run: clients move on, nothing acknowledged is lost")
def fleet_behind_haproxy():
    haproxy = shutil.which("haproxy")
    assert haproxy, "haproxy is not installed: ./dev setup installs it (apt-get install haproxy)"
    with Base() as base:
        token = base.token("fleet")
        servers = [Server(base, "--rate-limit", "1000", "--max-connections-per-peer", "512") for _ in range(3)]
        proxy, url, cfg = start_haproxy(haproxy, servers)
        acknowledged: set[str] = set()
        # Landed before an answer the kill cut off: a retry found them there.
        landed: set[str] = set()
        retries = [0]
        lock = threading.Lock()
        errors: list[str] = []
        try:
            # A run killed before a process is back in rotation would test
            # no kill at all.
            every_process_served(url, token, servers)
            raw = Raw(url, [("authorization", f"Bearer {token}")])
            before = [memory_calls(s) for s in servers]

            def client(i: int) -> None:
                try:
                    writes(i)
                except Exception as e:  # noqa: BLE001 - said by the main loop, not lost in a thread
                    errors.append(f"client {i} stopped: {e!r}")
                    raise

            def session() -> Raw:
                """A new session through the proxy; one that fails to open is
                retried with the next write, as a client would."""
                raw = Raw(url, [("authorization", f"Bearer {token}")])
                try:
                    raw.open()
                except Exception:  # noqa: BLE001 - a connection the kill cut
                    pass
                return raw

            def writes(i: int) -> None:
                stateless = i % 2 == 1
                raw = session() if not stateless else Raw(url, [("authorization", f"Bearer {token}")])
                for k in range(WRITES):
                    path = f"/memories/c{i}-{k}.md"
                    for attempt in range(60):
                        try:
                            done, there, status = create(raw, path, stateless)
                        except Exception:  # noqa: BLE001 - a connection the kill cut
                            done, there, status = False, False, 0
                        if done or there:
                            with lock:
                                (acknowledged if done else landed).add(path)
                            break
                        with lock:
                            retries[0] += 1
                        time.sleep(0.2)
                        if not stateless and (status in (0, 404, 502, 503) or raw.session is None):
                            # The session's process is gone (or it never opened): open another through the proxy.
                            raw = session()
                    else:
                        errors.append(f"client {i} never got {path} through")

            threads = [threading.Thread(target=client, args=(i,)) for i in range(6)]
            for t in threads:
                t.start()
            # Killed once the run is well under way and the victim has taken
            # some of its writes, with most of the run still to come.
            while len(acknowledged) < 60 or memory_calls(servers[1]) == before[1]:
                assert all(t.is_alive() for t in threads), \
                    f"the clients stopped early: {errors[:3]}, {len(acknowledged)} acknowledged, " \
                    f"calls per process {[memory_calls(s) - b for s, b in zip(servers, before)]}"
                assert len(acknowledged) <= 6 * WRITES // 2, \
                    f"half the run went by and process 1 took none of it: {[memory_calls(s) - b for s, b in zip(servers, before)]}"
                time.sleep(0.01)
            servers[1].proc.kill()
            killed_at = len(acknowledged)
            for t in threads:
                t.join(300)
            assert not errors, errors[:3]
            served = [memory_calls(s) - b for s, b in zip(servers, before)]
            listing = base.listing("fleet")
            missing = sorted(p for p in acknowledged | landed if p.removeprefix("/memories/") not in listing)
            print(f"  haproxy, 3 processes, one killed after {killed_at} acknowledged writes: "
                  f"{len(acknowledged)} acknowledged, {len(landed)} found landed on a retry, {retries[0]} retries, "
                  f"{len(missing)} lost; calls per process {served}")
            assert not missing, missing[:5]
            assert len(acknowledged | landed) == 6 * WRITES, len(acknowledged | landed)
            assert killed_at <= 6 * WRITES // 2, f"the kill came after {killed_at} of {6 * WRITES} writes"
            assert all(n > 0 for n in served), f"round robin never reached a process: {served}"
        finally:
            proxy.terminate()
            proxy.wait(10)
            for s in servers:
                if s.proc.poll() is None:
                    s.stop()
            shutil.rmtree(cfg.parent, ignore_errors=True)
