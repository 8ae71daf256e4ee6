"""The team server's fairness checks, run by test_team.py in its order: one
token's calls, bytes, sessions and streams cannot take the server from the
others, a revoked token loses its sessions and streams, and the metrics
page shows it all without a token, namespace or note."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time

import httpx2

import team_harness as h
from team_harness import ACCEPT, CHECKS, INIT, Base, Raw, Server, free_port, sse_json

check = CHECKS.check


@check("one token past its rate gets 429 with Retry-After; another token is not slowed")
def rate_limit():
    with Base() as base:
        fast = base.token("alice")
        calm = base.token("bob")
        with Server(base, "--rate-limit", "5") as server:
            statuses = []
            with httpx2.Client(timeout=30) as http:
                for _ in range(30):
                    r = http.post(server.url, content=json.dumps(INIT), headers={"authorization": f"Bearer {fast}", "content-type": "application/json", "accept": ACCEPT})
                    statuses.append(r.status_code)
                    if r.status_code == 429:
                        assert int(r.headers["retry-after"]) >= 1, r.headers
                assert 429 in statuses and statuses[0] == 200, statuses
                r = http.post(server.url, content=json.dumps(INIT), headers={"authorization": f"Bearer {calm}", "content-type": "application/json", "accept": ACCEPT})
                assert r.status_code == 200, r.status_code


@check("bytes count too: one token's large writes past --rate-limit-mib get 429 with Retry-After, nothing written; another token is served")
def byte_rate_limit():
    with Base() as base:
        heavy, light = base.token("alice"), base.token("bob")
        with Server(base, "--rate-limit-mib", "1") as server:
            raw = Raw(server.url, [("authorization", f"Bearer {heavy}")])
            assert raw.open().status_code == 200
            # 6 MB each: the burst (the largest request, 16 MiB) holds two, not three.
            statuses = []
            for i in range(3):
                r, _ = raw.call("memory", {"command": "create", "path": f"/memories/big{i}.md", "file_text": "x" * 6_000_000})
                statuses.append(r.status_code)
                if r.status_code == 429:
                    assert int(r.headers["retry-after"]) >= 1, r.headers
            assert statuses[:2] == [200, 200] and statuses[2] == 429, statuses
            assert base.read("alice", "big2.md") is None, "a refused write landed"
            other = Raw(server.url, [("authorization", f"Bearer {light}")])
            assert other.open().status_code == 200
            _, msgs = other.call("memory", {"command": "create", "path": "/memories/small.md", "file_text": "y"})
            assert msgs and msgs[0]["result"]["isError"] is False, msgs


@check("revoking a token closes its sessions and their open streams within seconds; other tokens' stay")
def revoke_closes_streams():
    with Base() as base:
        alice, bob = base.token("alice"), base.token("bob")
        with Server(base) as server:
            ended: dict[str, float] = {}

            def stream(name: str, raw: Raw) -> None:
                # A GET stream of the session, read until the server ends it.
                headers = [*raw.headers, ("mcp-session-id", raw.session)]
                headers = [(k, "text/event-stream" if k == "accept" else v) for k, v in headers]
                try:
                    with httpx2.Client(timeout=httpx2.Timeout(60, read=60)) as http:
                        with http.stream("GET", server.url, headers=headers) as r:
                            if r.status_code != 200:
                                ended[name] = -r.status_code
                                return
                            for _ in r.iter_bytes():
                                pass
                except httpx2.HTTPError:
                    pass
                ended[name] = time.monotonic()

            raws = {name: Raw(server.url, [("authorization", f"Bearer {t}")]) for name, t in [("alice", alice), ("bob", bob)]}
            threads = []
            for name, raw in raws.items():
                assert raw.open().status_code == 200
                t = threading.Thread(target=stream, args=(name, raw), daemon=True)
                t.start()
                threads.append(t)
            time.sleep(1)
            assert not ended, f"a stream ended before any revocation: {ended}"
            revoked_at = time.monotonic()
            subprocess.run([h.MEMCAP, *base.args(), "token", "revoke", alice.split("_")[1]],
                           capture_output=True, check=True)
            threads[0].join(15)
            assert "alice" in ended and ended["alice"] > 0, f"alice's stream still open 15 s after the revocation: {ended}"
            took = ended["alice"] - revoked_at
            print(f"  alice's stream closed {took:.1f} s after her token was revoked")
            assert took < 10, took
            # bob's session and stream are untouched.
            assert "bob" not in ended, ended
            _, msgs = raws["bob"].call("memory", {"command": "view", "path": "/memories"})
            assert msgs and msgs[0]["result"]["isError"] is False, msgs


def scrape(port: int) -> dict[str, float]:
    """The metrics page as {series: value}, every line checked for the format."""
    text = httpx2.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    assert text.rstrip().endswith("# EOF"), text[-200:]
    series = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        name, value = line.rsplit(" ", 1)
        series[name] = float(value)
    return series, text


@check("--metrics serves Prometheus text on its own port: calls, latency, refusals, sessions, streams, stores; no token, namespace or note")
def metrics_page():
    with Base() as base:
        alice = base.token("alice")
        base.plant("alice", "secret.md", "the launch code is 0000")
        port = free_port()
        with Server(base, "--metrics", f"127.0.0.1:{port}") as server:
            raw = Raw(server.url, [("authorization", f"Bearer {alice}")])
            assert raw.open().status_code == 200
            for _ in range(3):
                _, msgs = raw.call("memory", {"command": "view", "path": "/memories/secret.md"})
                assert msgs and msgs[0]["result"]["isError"] is False, msgs
            raw.call("memory", {"command": "view", "path": "/memories/none.md"})
            raw.call("no_such_tool", {})
            bad = Raw(server.url, [("authorization", "Bearer memcap_000000000000_" + "0" * 64)])
            assert bad.open().status_code == 401
            # A GET stream, counted while open.
            headers = [(k, "text/event-stream" if k == "accept" else v) for k, v in raw.headers]
            headers.append(("mcp-session-id", raw.session))
            with httpx2.Client(timeout=30) as http, http.stream("GET", server.url, headers=headers) as stream:
                assert stream.status_code == 200
                series, text = scrape(port)
                assert series.get("memcap_streams") == 1, {k: v for k, v in series.items() if "stream" in k}
            m = series
            assert m.get('memcap_calls_total{tool="memory",outcome="ok"}', 0) >= 3, text
            assert m.get('memcap_calls_total{tool="memory",outcome="error:not-found"}', 0) >= 1, text
            assert m.get('memcap_call_seconds_count{tool="memory"}', 0) >= 4, text
            assert m.get('memcap_refusals_total{reason="unknown-token"}', 0) >= 1, text
            assert m.get("memcap_sessions") == 1 and m.get("memcap_warm_stores") == 1, text
            assert m.get("memcap_warm_bytes", 0) > 0, text
            if h.STORE:
                assert m.get("memcap_database_round_trips_total", 0) > 0, text
            # Labels come from fixed sets: nothing a client or a note wrote.
            for leak in (alice, alice.split("_")[1], alice.split("_")[2], base.ns("alice"), "launch code", "secret.md", "no_such_tool"):
                assert leak not in text, f"{leak!r} is on the metrics page"
            deadline = time.monotonic() + 10
            while scrape(port)[0].get("memcap_streams") != 0:
                assert time.monotonic() < deadline, "a closed stream is still counted"
                time.sleep(0.2)


@check("GET streams are counted per token (429 past its share, others unaffected) and end after --max-stream-secs")
def stream_bounds():
    with Base() as base:
        alice, bob = base.token("alice"), base.token("bob")
        with Server(base, "--max-streams-per-token", "2", "--max-stream-secs", "3") as server:
            raws = {t: Raw(server.url, [("authorization", f"Bearer {t}")]) for t in (alice, bob)}
            for raw in raws.values():
                assert raw.open().status_code == 200
            ended: list[float] = []
            opened = threading.Barrier(3)

            def hold(raw: Raw) -> None:
                headers = [(k, "text/event-stream" if k == "accept" else v) for k, v in raw.headers]
                headers.append(("mcp-session-id", raw.session))
                with httpx2.Client(timeout=30) as http, http.stream("GET", server.url, headers=headers) as r:
                    assert r.status_code == 200, r.status_code
                    opened.wait(10)
                    for _ in r.iter_bytes():
                        pass
                ended.append(time.monotonic())

            threads = [threading.Thread(target=hold, args=(raws[alice],), daemon=True) for _ in range(2)]
            for t in threads:
                t.start()
            opened.wait(10)
            started = time.monotonic()
            headers = [(k, "text/event-stream" if k == "accept" else v) for k, v in raws[alice].headers]
            headers.append(("mcp-session-id", raws[alice].session))
            r = httpx2.get(server.url, headers=headers, timeout=10)
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1, r.status_code
            # bob's share is his own.
            headers = [(k, "text/event-stream" if k == "accept" else v) for k, v in raws[bob].headers]
            headers.append(("mcp-session-id", raws[bob].session))
            with httpx2.Client(timeout=30) as http, http.stream("GET", server.url, headers=headers) as r:
                assert r.status_code == 200, r.status_code
            for t in threads:
                t.join(10)
            assert len(ended) == 2, "alice's streams outlived --max-stream-secs"
            lived = max(ended) - started
            print(f"  streams ended {lived:.1f} s after the third was refused (lifetime 3 s)")
            assert lived < 6, lived
            # Their slots came back: a new stream opens.
            headers = [(k, "text/event-stream" if k == "accept" else v) for k, v in raws[alice].headers]
            headers.append(("mcp-session-id", raws[alice].session))
            with httpx2.Client(timeout=30) as http, http.stream("GET", server.url, headers=headers) as r:
                assert r.status_code == 200, r.status_code


STATELESS = "2026-07-28"


def stateless_view(url: str, token: str):
    """One tools/call in the stateless protocol: no session, the version in
    the request's _meta and headers."""
    body = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "memory", "arguments": {"command": "view", "path": "/memories"},
                       "_meta": {"io.modelcontextprotocol/protocolVersion": STATELESS,
                                 "io.modelcontextprotocol/clientCapabilities": {}}}}
    headers = [("authorization", f"Bearer {token}"), ("mcp-protocol-version", STATELESS),
               ("mcp-method", "tools/call"), ("mcp-name", "memory")]
    raw = Raw(url, headers)
    r = raw.post(body)
    msgs = [m for m in sse_json(r) if m.get("id") == 5] if r.status_code == 200 else []
    return r, msgs


@check("sessions are capped per token (its oldest makes room) and in all; stateless calls never wait on sessions; idle ones close")
def session_bounds():
    with Base() as base:
        alice, bob, carol = base.token("alice"), base.token("bob"), base.token("carol")
        auth = lambda t: [("authorization", f"Bearer {t}")]
        flags = ("--max-sessions", "4", "--max-sessions-per-token", "2", "--session-idle-secs", "2")
        with Server(base, *flags) as server:
            # alice opens more than her share: each new one closes her least recently used.
            mine = [Raw(server.url, auth(alice)) for _ in range(5)]
            for raw in mine:
                assert raw.open().status_code == 200
            r, _ = mine[0].call("memory", {"command": "view", "path": "/memories"})
            assert r.status_code == 404, r.status_code
            for raw in mine[3:]:
                _, msgs = raw.call("memory", {"command": "view", "path": "/memories"})
                assert msgs and msgs[0]["result"]["isError"] is False, msgs
            # bob still gets his: alice holds 2 of the 4.
            bobs = [Raw(server.url, auth(bob)) for _ in range(2)]
            assert all(raw.open().status_code == 200 for raw in bobs)
            # Full, and carol holds none to give up: 503 with Retry-After...
            r = Raw(server.url, auth(carol)).open()
            assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1, r.status_code
            # ...but her stateless calls are served: they hold no session.
            r, msgs = stateless_view(server.url, carol)
            assert r.status_code == 200 and msgs and msgs[0]["result"]["isError"] is False, (r.status_code, r.text[:300])
            # A token at its share never gets 503: its own oldest makes room.
            assert Raw(server.url, auth(alice)).open().status_code == 200
            # Past the idle time the sessions are gone: the old id is unknown, a new session opens.
            time.sleep(3.5)
            r, _ = bobs[0].call("memory", {"command": "view", "path": "/memories"})
            assert r.status_code == 404, r.status_code
            late = Raw(server.url, auth(carol))
            assert late.open().status_code == 200
            _, msgs = late.call("memory", {"command": "view", "path": "/memories"})
            assert msgs and msgs[0]["result"]["isError"] is False, msgs


@check("600 silent connections from one address take at most its share: a token holder elsewhere is served within 3 s")
def silent_connections_from_one_peer():
    with Base() as base:
        token = base.token("alice")
        with Server(base, "--max-connections-per-peer", "64") as server:
            idle = []
            try:
                for _ in range(600):
                    s = socket.socket()
                    s.bind(("127.0.0.2", 0))
                    s.connect(("127.0.0.1", server.port))
                    idle.append(s)
                time.sleep(0.5)
                started = time.monotonic()
                raw = Raw(server.url, [("authorization", f"Bearer {token}")])
                assert raw.open().status_code == 200
                _, msgs = raw.call("memory", {"command": "view", "path": "/memories"})
                waited = time.monotonic() - started
                assert msgs and msgs[0]["result"]["isError"] is False, msgs
                # The connections past the share were closed at once.
                closed = 0
                for s in idle:
                    s.settimeout(0.05)
                    try:
                        if s.recv(1) == b"":
                            closed += 1
                    except (socket.timeout, OSError):
                        pass
            finally:
                for s in idle:
                    s.close()
            print(f"  600 silent connections from 127.0.0.2: {closed} closed at once, a token holder served in {waited:.2f} s")
            assert waited < 3, waited
            assert closed >= 600 - 64, closed
            refusals = [l for l in server.log() if l.get("event") == "connections-refused"]
            assert refusals and refusals[0]["detail"]["peer"] == "127.0.0.2", refusals[:1]
            assert len(refusals) <= 3, f"{len(refusals)} log lines for one flood"

