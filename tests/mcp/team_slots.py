"""The team server's connection and answer bounds, run by test_team.py in
its order: idle streams and silent sockets from many addresses cannot keep
a token holder out, and answers a client never reads hold a bounded part
of the server's memory."""

from __future__ import annotations

import json
import socket
import time

import httpx2

from team_harness import ACCEPT, CHECKS, Base, Raw, Server, sse_json

check = CHECKS.check


def auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def raw_request(port: int, method: str, headers: dict[str, str], body: bytes = b"",
                source: str | None = None) -> socket.socket:
    """A request sent on a socket of its own, its answer left unread."""
    s = socket.socket()
    if source:
        s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    head = f"{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    s.sendall(head.encode() + b"\r\n" + body)
    return s


def status_of(s: socket.socket, wait: float = 10) -> int:
    """The status code of the answer on `s` (0: closed or silent)."""
    s.settimeout(wait)
    try:
        line = s.recv(64).split(b"\r\n", 1)[0]
        return int(line.split()[1]) if line.startswith(b"HTTP/1.1") else 0
    except (OSError, ValueError, IndexError):
        return 0


@check("600 idle streams and 600 silent connections from many addresses: a token holder is still served within 3 s")
def idle_streams_and_silent_sockets():
    with Base() as base:
        mallory, bob = base.token("mallory"), base.token("bob")
        flags = ("--max-sessions-per-token", "600", "--max-streams-per-token", "600",
                 "--rate-limit", "5000")
        with Server(base, *flags) as server:
            # 600 sessions, each holding its GET stream open, from five addresses.
            sessions = []
            for _ in range(600):
                raw = Raw(server.url, auth(mallory))
                assert raw.open().status_code == 200
                sessions.append(raw.session)
                raw.http.close()
            streams, silent = [], []
            try:
                for i, sid in enumerate(sessions):
                    streams.append(raw_request(
                        server.port, "GET",
                        {"Authorization": f"Bearer {mallory}", "Accept": "text/event-stream",
                         "Mcp-Session-Id": sid},
                        source=f"127.0.1.{1 + i % 5}"))
                statuses = [status_of(s) for s in streams]
                held = statuses.count(200)
                # Then 600 sockets that connect and say nothing, from five more.
                for i in range(600):
                    s = socket.socket()
                    s.bind((f"127.0.2.{1 + i % 5}", 0))
                    s.connect(("127.0.0.1", server.port))
                    silent.append(s)
                time.sleep(0.3)
                started = time.monotonic()
                r = Raw(server.url, auth(bob))
                assert r.open().status_code == 200
                _, msgs = r.call("memory", {"command": "view", "path": "/memories"})
                waited = time.monotonic() - started
                assert msgs and msgs[0]["result"]["isError"] is False, msgs
            finally:
                for s in streams + silent:
                    s.close()
            print(f"  {held} of 600 streams held open (the rest refused: {sorted(set(statuses))}), "
                  f"600 silent sockets; bob served in {waited:.2f} s")
            assert held >= 500, f"only {held} streams opened: the check did not fill the slots"
            assert waited < 3, waited
            reasons = {line.get("outcome") for line in server.log()}
            assert "no-slot-for-stream" in reasons, reasons


def ending(s: socket.socket) -> str:
    """What became of a connection whose answer was left unread: "closed"
    (the server ended it), or "open" (it still waits on the client)."""
    s.settimeout(0.5)
    try:
        while s.recv(1 << 20):
            pass
        return "closed"
    except ConnectionResetError:
        return "closed"
    except OSError:
        return "open"


def rss_peak(server: Server, seconds: float) -> float:
    peak, until = 0.0, time.monotonic() + seconds
    while time.monotonic() < until:
        peak = max(peak, server.rss_mib())
        time.sleep(0.1)
    return peak


@check("30 unread 5 MB answers: the server holds at most its bound of them, refuses the token's next call, and drops them after --write-timeout-secs")
def unread_answers():
    with Base() as base:
        alice, bob = base.token("alice"), base.token("bob")
        with Server(base, "--write-timeout-secs", "4", "--rate-limit-mib", "64") as server:
            raw = Raw(server.url, auth(alice))
            assert raw.open().status_code == 200
            big = ("x" * 999 + "\n") * 5000
            _, msgs = raw.call("memory", {"command": "create", "path": "/memories/big.md", "file_text": big})
            assert msgs and msgs[0]["result"]["isError"] is False, msgs
            # One read in full first: the answer's size, and the memory a warm store holds.
            _, msgs = raw.call("memory", {"command": "view", "path": "/memories/big.md"})
            answer = len(json.dumps(msgs[0]))
            assert answer > 5_000_000, answer
            time.sleep(0.5)
            before = server.rss_mib()
            def view(n: int) -> str:
                # Each its own id: a session answers a request by its id.
                return json.dumps({"jsonrpc": "2.0", "id": 100 + n, "method": "tools/call",
                                   "params": {"name": "memory", "arguments": {"command": "view", "path": "/memories/big.md"}}})
            headers = {"Authorization": f"Bearer {alice}", "Content-Type": "application/json",
                       "Accept": ACCEPT, "Mcp-Session-Id": raw.session}
            unread = []
            try:
                for n in range(30):
                    s = socket.socket()
                    # A small receive buffer, as a client that stopped reading has.
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                    s.connect(("127.0.0.1", server.port))
                    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                            + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
                            + f"Content-Length: {len(view(n))}\r\n\r\n")
                    s.sendall(head.encode() + view(n).encode())
                    unread.append(s)
                peak = rss_peak(server, 3)
                # While they are unread, alice's next call is refused; bob's is served.
                refused = raw.post({"jsonrpc": "2.0", "id": 3, "method": "ping"})
                bobs = Raw(server.url, auth(bob))
                assert bobs.open().status_code == 200
                _, msgs = bobs.call("memory", {"command": "view", "path": "/memories"})
                assert msgs and msgs[0]["result"]["isError"] is False, msgs
                peak = max(peak, rss_peak(server, 3))
                # Past the write timeout the server has closed every unread connection.
                time.sleep(2)
                ends = [ending(s) for s in unread]
                closed = sum(1 for e in ends if e != "open")
            finally:
                for s in unread:
                    s.close()
            grew = peak - before
            print(f"  answer {answer / 1e6:.1f} MB; 30 unread: the server grew {grew:.0f} MiB at most "
                  f"(was 565 MB before the bound); alice's next call got {refused.status_code}; "
                  f"{closed} of 30 connections closed by the server ({sorted(set(ends))})")
            assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1, refused.status_code
            assert grew < 160, grew
            assert closed == 30, closed
            # Once they are gone, alice is served again.
            again = Raw(server.url, auth(alice))
            assert again.open().status_code == 200
            _, msgs = again.call("memory", {"command": "view", "path": "/memories"})
            assert msgs and msgs[0]["result"]["isError"] is False, msgs
            reasons = {line.get("outcome") for line in server.log()}
            assert "answers-unread" in reasons, reasons
