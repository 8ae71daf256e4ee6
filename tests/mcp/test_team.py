"""The team server (`memcap mcp --http` with tokens) through the official MCP
Python SDK and raw HTTP: tokens, the attacker suite (no token, wrong,
revoked, expired, header tricks, alice toward bob), read-only tokens,
Origin, rate limits, body and slow-client bounds, 200 sessions over 50
namespaces within the warm-memory cap, two server processes on one store,
the log and a clean SIGTERM.

    python tests/mcp/test_team.py --memcap target/release/memcap [--store URL]

With --store (a PostgreSQL URL), every namespace and token lives in that
database instead of a directory, and the two servers of the two-process
check run in network namespaces of their own when `ip netns` works: two
hosts sharing nothing but the database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import logging

import httpx2

# The SDK logs a warning when a session's DELETE gets 202 (accepted): noise.
logging.getLogger("mcp.client.streamable_http").setLevel(logging.ERROR)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import team_harness  # noqa: E402
from checks import eventually  # noqa: E402
from team_harness import ACCEPT, CHECKS, INIT, Base, Raw, Server, call_text, free_port, session  # noqa: E402
from test_mcp import SECRET, attempts  # noqa: E402

MEMCAP = ""
STORE: str | None = None

check = CHECKS.check


@check("token create prints 256 random bits once, on the last line; list shows everything but the token")
def tokens_cli():
    with Base() as base:
        out = subprocess.run([MEMCAP, *base.args(), "token", "create", "--namespace", base.ns("alice"),
                              "--shared", base.ns("team") + ":ro", "--label", "laptop", "--expires", "90d"],
                             capture_output=True, text=True, check=True).stdout
        token = out.strip().splitlines()[-1]
        assert re.fullmatch(r"memcap_[0-9a-f]{12}_[0-9a-f]{64}", token), out
        assert out.endswith(token + "\n"), out
        listed = subprocess.run([MEMCAP, *base.args(), "token", "list"], capture_output=True, text=True, check=True).stdout
        token_id = token.split("_")[1]
        assert token_id in listed and "laptop" in listed and ":ro" in listed and "active" in listed, listed
        assert token.split("_")[2] not in listed, "list showed the secret"
        if not STORE:
            f = base.dir / ".memcap" / "tokens.json"
            assert f.stat().st_mode & 0o777 == 0o600, oct(f.stat().st_mode)
            assert token.split("_")[2] not in f.read_text(), "the file kept the secret"
        r = subprocess.run([MEMCAP, *base.args(), "token", "create"], capture_output=True, text=True)
        assert r.returncode == 2 and "--namespace" in r.stderr, r.stderr
        r = subprocess.run([MEMCAP, *base.args(), "token", "revoke", "000000000000"], capture_output=True, text=True)
        assert r.returncode == 1 and "token list" in r.stderr, r.stderr
        r = subprocess.run([MEMCAP, *base.args(), "token", "revoke", token_id], capture_output=True, text=True, check=True)
        listed = subprocess.run([MEMCAP, *base.args(), "token", "list"], capture_output=True, text=True, check=True).stdout
        assert "revoked" in listed, listed


@check("without tokens the server listens on loopback only and says how to make a token")
def loopback_only():
    with Base() as base:
        if STORE:
            return  # a database with tokens from other checks: covered on a directory
        r = subprocess.run([MEMCAP, *base.args(), "mcp", "--http", f"0.0.0.0:{free_port()}"], capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and "memcap token create" in r.stderr, r.stderr


def refused_to_start(base: Base, *args: str) -> str:
    """`memcap … mcp --http` that must not start: its standard error."""
    r = subprocess.run([MEMCAP, *base.args(), *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    return r.stderr


@check("without tokens a server meant for others does not start, unless told --no-auth")
def fails_closed_without_tokens():
    with Base() as base:
        if STORE:
            return  # a database with tokens from other checks: covered on a directory
        base.dir.mkdir(parents=True)
        # The README's systemd line with tokens.json gone (a failed restore, a fresh volume).
        err = refused_to_start(base, "mcp", "--http", f"127.0.0.1:{free_port()}", "--allow-host", "memory.example.com")
        assert "--allow-host" in err and "memcap token create" in err and "--no-auth" in err, err
        with Server(base, "--allow-host", "memory.example.com", "--no-auth") as server:
            assert "--no-auth" in server.banner, server.banner
            raw = Raw(server.url, [("host", "memory.example.com")])
            assert raw.open().status_code == 200


@check("a base that holds namespaces is never served as one store without tokens")
def base_never_served_whole():
    with Base() as base:
        if STORE:
            return  # a database's namespaces are never one store
        base.plant("alice", "a.md", SECRET + "\n")
        base.plant("bob", "b.md", "bob\n")
        err = refused_to_start(base, "mcp", "--http", f"127.0.0.1:{free_port()}")
        assert "alice" in err and "bob" in err and "--namespace" in err, err
        assert not (base.dir / "MEMORY.md").exists(), "the base was written as a store"
        with Server(base, "--namespace", "alice") as server:
            token = re.search(r"Bearer (memcap_local_[0-9a-f]{64})", server.banner).group(1)
            raw = Raw(server.url, [("authorization", f"Bearer {token}")])
            assert raw.open().status_code == 200
            _, msgs = raw.call("memory", {"command": "view", "path": "/memories"})
            assert "a.md" in json.dumps(msgs) and "b.md" not in json.dumps(msgs), msgs


@check("without tokens only the token the server printed opens it; a token made while it runs locks it")
def local_token_and_tokens_made_later():
    with Base() as base:
        ns = base.ns("solo")
        if STORE:
            return  # a database with tokens from other checks: covered on a directory
        base.plant("solo", "n.md", "solo note\n")
        with Server(base, "--namespace", ns) as server:
            token = re.search(r"Bearer (memcap_local_[0-9a-f]{64})", server.banner).group(1)
            # One character off (never the same one: a token may end in 0).
            wrong = token[:-1] + ("1" if token.endswith("0") else "0")
            for headers in [[], [("authorization", f"Bearer {wrong}")], [("authorization", "Bearer memcap_local_")]]:
                r = Raw(server.url, headers).post(INIT)
                assert r.status_code == 401 and "solo note" not in r.text, (headers, r.status_code)
            raw = Raw(server.url, [("authorization", f"Bearer {token}")])
            assert raw.open().status_code == 200
            _, msgs = raw.call("memory", {"command": "view", "path": "/memories/n.md"})
            assert "solo note" in json.dumps(msgs), msgs
            base.token("solo", "--label", "made-later")
            # The server looks at the store's tokens once a second.
            eventually("the local token still works after a token was made", lambda: Raw(server.url, [("authorization", f"Bearer {token}")]).post(INIT).status_code == 401, limit=5, every=0.2)
            eventually("no refusal logged", lambda: any(e.get("status") == 401 and "tokens-made-since-start" in json.dumps(e) for e in server.log()))


@check("a token file another user could write, a hand-written grant and a duplicated id are refused")
def token_file_trusted_only_when_safe():
    with Base() as base:
        if STORE:
            return  # the file is a directory store's
        token = base.token("alice", "--label", "alice")
        base.plant("alice", "mine.md", "alice\n")
        base.plant("bob", "secret.md", SECRET + "\n")
        tokens = base.dir / ".memcap" / "tokens.json"
        port = free_port()
        for target, mode in [(tokens, 0o666), (tokens, 0o620), (base.dir / ".memcap", 0o777)]:
            before = target.stat().st_mode & 0o777
            target.chmod(mode)
            err = refused_to_start(base, "mcp", "--http", f"127.0.0.1:{port}")
            assert "writable by other users" in err and str(target) in err, err
            r = subprocess.run([MEMCAP, *base.args(), "token", "create", "--namespace", "mallory"], capture_output=True, text=True)
            assert r.returncode != 0 and "writable by other users" in r.stderr, r.stderr
            target.chmod(before)
        # A grant written in by hand: another namespace, a path, a parent.
        original = tokens.read_text()
        for field, value in [("namespace", "../bob"), ("namespace", "/etc"), ("shared", [{"name": "x", "target": "/etc", "read_only": True}]),
                             ("shared", [{"name": "x", "target": "../bob", "read_only": False}])]:
            data = json.loads(original)
            data["tokens"][0]["access"][field] = value
            tokens.write_text(json.dumps(data))
            tokens.chmod(0o600)
            with Server(base) as server:
                r = Raw(server.url, [("authorization", f"Bearer {token}")]).post(INIT)
                assert r.status_code == 401 and SECRET not in r.text, (value, r.status_code)
                eventually(f"no invalid-grant logged: {server.lines[-5:]}", lambda: any("invalid-grant" in json.dumps(e) for e in server.log()))
        assert not Path("/etc/MEMORY.md").exists() and not (base.dir / "MEMORY.md").exists()
        # The same id twice (a revoked record and a copy that is not): refused whatever the order.
        data = json.loads(original)
        revoked = dict(data["tokens"][0], revoked=1)
        for records in ([revoked, data["tokens"][0]], [data["tokens"][0], revoked]):
            tokens.write_text(json.dumps(dict(data, tokens=records)))
            tokens.chmod(0o600)
            err = refused_to_start(base, "mcp", "--http", f"127.0.0.1:{port}")
            assert "twice" in err, err
        tokens.write_text(original)
        tokens.chmod(0o600)
        with Server(base) as server:
            raw = Raw(server.url, [("authorization", f"Bearer {token}")])
            assert raw.open().status_code == 200


def raw_post_from(source: str, port: int, headers: dict[str, str]) -> int:
    """An initialize POST sent from the loopback address `source`: its status."""
    body = json.dumps(INIT).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    request = (f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
               f"accept: {ACCEPT}\r\ncontent-length: {len(body)}\r\nconnection: close\r\n{head}\r\n").encode() + body
    with socket.socket() as s:
        s.settimeout(10)
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(request)
        status = s.recv(64).split(b" ")[1]
    return int(status)


@check("failed sign-ins are limited per peer address and logged with it; other peers are not slowed")
def failed_sign_ins_per_peer():
    with Base() as base:
        token = base.token("alice", "--label", "alice")
        with Server(base, "--max-failed-sign-ins", "5") as server:
            wrong = token[:-1] + ("0" if token[-1] != "0" else "1")
            for _ in range(5):
                assert raw_post_from("127.0.0.1", server.port, {"authorization": f"Bearer {wrong}"}) == 401
            # Past the limit even a good token from that address waits.
            r = Raw(server.url, [("authorization", f"Bearer {token}")]).post(INIT)
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1, (r.status_code, r.headers)
            # Another address is let in at once.
            assert raw_post_from("127.0.0.2", server.port, {"authorization": f"Bearer {token}"}) == 200
            eventually("the refusals were not logged", lambda: any(e.get("outcome") == "too-many-failed-sign-ins" for e in server.log()))
            refusals = [e for e in server.log() if e.get("status") in (401, 429)]
            assert len(refusals) >= 6 and all(e.get("peer") == "127.0.0.1" for e in refusals), refusals
            assert any(e.get("outcome") == "too-many-failed-sign-ins" for e in refusals), refusals
            assert token.split("_")[2] not in "".join(server.lines)


@check("attacker suite: no token, bad tokens and header tricks get 401; alice's token reaches only alice and team")
def attacker_suite():
    with Base() as base:
        alice = base.token("alice", "--shared", base.ns("team"), "--label", "alice")
        bob = base.token("bob", "--label", "bob")
        revoked = base.token("carol", "--label", "carol")
        expiring = base.token("dave", "--label", "dave", "--expires", "1s")
        subprocess.run([MEMCAP, *base.args(), "token", "revoke", revoked.split("_")[1]], check=True, capture_output=True)
        base.plant("bob", "secret.md", SECRET + "\n")
        base.plant("alice", "mine.md", "alice\n")
        bob_before = base.listing("bob")
        time.sleep(1.2)  # the 1 s token is past its expiry
        counts = {"401": 0, "403": 0, "404": 0, "typed-error": 0, "protocol-error": 0, "cross-reads": 0, "cross-writes": 0, "attempts": 0}
        with Server(base, "--rate-limit", "1000") as server:
            assert httpx2.get(f"http://127.0.0.1:{server.port}/healthz").json() == {"status": "ok"}
            wrong = alice[:-1] + ("0" if alice[-1] != "0" else "1")
            header_sets = [
                [],
                [("authorization", f"Bearer {wrong}")],
                [("authorization", f"Bearer {revoked}")],
                [("authorization", f"Bearer {expiring}")],
                [("authorization", f"Basic {alice}")],
                [("authorization", alice)],
                [("authorization", f"Bearer {alice}"), ("authorization", f"Bearer {bob}")],
                [("authorization", f"Bearer {bob}"), ("authorization", f"Bearer {alice}")],
                [("authorization", f"Bearer {alice.upper()}")],
                [("authorization", f"Bearer {alice}x")],
                [("authorization", "Bearer")],
                [("x-memcap-token", alice)],
                [("cookie", f"token={alice}")],
            ]
            for headers in header_sets:
                raw = Raw(server.url, headers)
                r = raw.post(INIT)
                counts["attempts"] += 1
                assert r.status_code == 401, (headers, r.status_code, r.text)
                assert r.headers.get("www-authenticate", "").startswith("Bearer"), r.headers
                assert SECRET not in r.text
                counts["401"] += 1
            # The token in the query string is not a credential.
            r = Raw(f"{server.url}?access_token={alice}&token={alice}", []).post(INIT)
            counts["attempts"] += 1
            assert r.status_code == 401, r.status_code
            counts["401"] += 1
            # Case and whitespace of the scheme are free (RFC 9110); the token still decides.
            for scheme in ["bearer", "BEARER", "Bearer "]:
                raw = Raw(server.url, [("authorization", f"{scheme} {alice}")])
                assert raw.open().status_code == 200
                _, msgs = raw.call("memory", {"command": "view", "path": "/memories"})
                text = json.dumps(msgs)
                assert "mine.md" in text and SECRET not in text, text
            # A browser page's origin is refused.
            r = Raw(server.url, [("authorization", f"Bearer {alice}"), ("origin", "https://evil.example")]).post(INIT)
            counts["attempts"] += 1
            assert r.status_code == 403, r.status_code
            counts["403"] += 1
            # A Host that is not this server's (DNS rebinding) is refused.
            r = Raw(server.url, [("authorization", f"Bearer {alice}"), ("host", "evil.example")]).post(INIT)
            counts["attempts"] += 1
            assert r.status_code == 403, r.status_code
            counts["403"] += 1
            # Bob's token cannot ride alice's session.
            raw = Raw(server.url, [("authorization", f"Bearer {alice}")])
            assert raw.open().status_code == 200
            raw.headers = [h for h in raw.headers if h[0] != "authorization"] + [("authorization", f"Bearer {bob}")]
            r, _ = raw.call("memory", {"command": "view", "path": "/memories"})
            counts["attempts"] += 1
            assert r.status_code == 404, r.status_code
            counts["404"] += 1

            # Alice, with her own valid token, tries every tool and parameter toward bob.
            tricks = {"X-Memcap-Namespace": base.ns("bob"), "X-Namespace": base.ns("bob"), "Mcp-Namespace": base.ns("bob")}
            bob_dir = (base.dir / base.ns("bob")) if not STORE else Path("/nonexistent") / base.ns("bob")

            async def alice_tries(s):
                answers = []
                tried = list(attempts(bob_dir, base.dir))
                tried += [("memory", {"command": "view", "path": f"/memories/{base.ns('bob')}/secret.md"}),
                          ("memory", {"command": "view", "path": f"/memories/shared/{base.ns('bob')}/secret.md"}),
                          ("memory", {"command": "view", "path": "/memories", "namespace": base.ns("bob")}),
                          ("memory_search", {"query": SECRET.replace("-", " ").lower()}),
                          ("memory_search", {"query": "secret", "source": "custom"}),
                          ("memory_get", {"path": f"/memories/../{base.ns('bob')}/secret.md"}),
                          ("build_context", {"url": f"memory://../{base.ns('bob')}/secret"}),
                          ("memory_write", {"filename": f"../{base.ns('bob')}/pwn", "name": "x", "type": "user", "content": "pwned"})]
                for tool, args in tried:
                    try:
                        result = await s.call_tool(tool, args)
                    except Exception as exc:  # a JSON-RPC error: refused before any store
                        answers.append((tool, args, None, str(exc), None))
                        continue
                    answers.append((tool, args, result.is_error, call_text(result), result.structured_content))
                return answers

            answers = asyncio.run(asyncio.wait_for(session(server.url, alice, alice_tries, tricks), 300))
            for tool, args, is_error, text, data in answers:
                counts["attempts"] += 1
                if SECRET in text or SECRET in json.dumps(data or {}):
                    counts["cross-reads"] += 1
                    print(f"  CROSS-READ by {tool} {args}: {text[:200]}")
                if is_error is None:
                    counts["protocol-error"] += 1
                elif is_error:
                    assert data and data.get("error", {}).get("kind"), (tool, args, text)
                    counts["typed-error"] += 1
            # The control: bob's own token finds what alice's never did.
            async def bob_searches(s):
                return call_text(await s.call_tool("memory_search", {"query": SECRET.replace("-", " ").lower()}))
            assert SECRET in asyncio.run(session(server.url, bob, bob_searches)), "the search cannot find the secret at all"
        bob_after = base.listing("bob")
        if bob_after != bob_before or base.read("bob", "secret.md") != SECRET + "\n":
            counts["cross-writes"] += 1
        if not STORE:
            stray = [p for p in base.dir.rglob("*pwn*")] + [p for p in base.dir.rglob("stolen*")]
            counts["cross-writes"] += sum(1 for p in stray if base.ns("alice") not in p.parts)
        print("  attacker suite: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        assert counts["cross-reads"] == 0 and counts["cross-writes"] == 0, counts


@check("a read-only token gets the same tools; every change is a typed denied error and nothing changes")
def read_only_token():
    with Base() as base:
        writer = base.token("alice")
        reader = base.token("alice", "--read-only", "--label", "viewer")
        base.plant("alice", "a.md", "alpha\n")
        with Server(base) as server:
            async def tools(s):
                return sorted(t.name for t in (await s.list_tools()).tools)

            async def tries(s):
                out = []
                for tool, args in [
                    ("memory", {"command": "create", "path": "/memories/new.md", "file_text": "x"}),
                    ("memory", {"command": "str_replace", "path": "/memories/a.md", "old_str": "alpha", "new_str": "beta"}),
                    ("memory", {"command": "delete", "path": "/memories/a.md"}),
                    ("memory", {"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"}),
                    ("memory_write", {"filename": "n", "name": "n", "type": "user", "content": "x"}),
                    ("memory_delete", {"filename": "a"}),
                ]:
                    r = await s.call_tool(tool, args)
                    out.append((r.is_error, (r.structured_content or {}).get("error", {}).get("kind")))
                view = await s.call_tool("memory", {"command": "view", "path": "/memories/a.md"})
                found = await s.call_tool("memory_search", {"query": "alpha"})
                return out, call_text(view), found.is_error

            assert asyncio.run(session(server.url, writer, tools)) == asyncio.run(session(server.url, reader, tools))
            refused, view, search_failed = asyncio.run(session(server.url, reader, tries))
            assert all(e and k == "denied" for e, k in refused), refused
            assert "alpha" in view and not search_failed, view
        assert base.read("alice", "a.md") == "alpha\n"
        assert "new.md" not in base.listing("alice") and "b.md" not in base.listing("alice")


@check("versions name the token's label and id, never the token; agents read them with memory_history")
def versions_name_the_token():
    with Base() as base:
        alice = base.token("team", "--label", "alice-laptop")
        bob = base.token("team", "--label", "bob-ci")
        with Server(base) as server:
            async def write(s, text):
                r = await s.call_tool("memory", {"command": "create", "path": f"/memories/{text}.md", "file_text": text})
                assert not r.is_error, call_text(r)

            async def history(s):
                r = await s.call_tool("memory_history", {"path": "/memories"})
                return call_text(r), r.is_error

            asyncio.run(session(server.url, alice, lambda s: write(s, "a")))
            asyncio.run(session(server.url, bob, lambda s: write(s, "b")))
            text, is_error = asyncio.run(session(server.url, bob, history))
            assert not is_error and "by alice-laptop" in text and "by bob-ci" in text, text
        listed = subprocess.run(
            [MEMCAP, *base.args(), "--namespace", base.ns("team"), "history", "list", "--json"],
            capture_output=True, text=True, check=True,
        ).stdout
        versions = [json.loads(line) for line in listed.splitlines()]
        by_path = {v["path"]: v for v in versions}
        assert by_path["/memories/a.md"]["actor"] == "alice-laptop", versions
        assert by_path["/memories/b.md"]["actor"] == "bob-ci", versions
        ids = {by_path["/memories/a.md"]["actor_id"], by_path["/memories/b.md"]["actor_id"]}
        assert len(ids) == 2 and None not in ids, versions
        for v in versions:
            assert v["actor_id"] not in (alice, bob) and alice not in listed and bob not in listed


@check("a 50 MB body is refused unread; slow clients are cut off and hold nothing")
def body_and_slow_clients():
    with Base() as base:
        token = base.token("alice")
        with Server(base, "--read-timeout-secs", "2", "--max-connections", "64") as server:
            # 50 MB announced: 413 before the body is read, the connection closed.
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                      f"Content-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: {50 << 20}\r\n\r\n".encode())
            sent = 0
            chunk = b"x" * (1 << 20)
            s.settimeout(10)
            try:
                while sent < (50 << 20):
                    s.sendall(chunk)
                    sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError, socket.timeout):
                pass
            reply = b""
            try:
                reply = s.recv(4096)
            except (ConnectionResetError, socket.timeout):
                pass
            s.close()
            assert sent < (50 << 20) or reply.startswith(b"HTTP/1.1 413"), (sent, reply[:80])
            if reply:
                assert reply.startswith(b"HTTP/1.1 413"), reply[:80]
            # Chunked, no length given: cut at the cap.
            def chunks():
                for _ in range(50):
                    yield b"x" * (1 << 20)
            r = httpx2.post(server.url, content=chunks(), headers={"authorization": f"Bearer {token}", "content-type": "application/json", "accept": ACCEPT}, timeout=30)
            assert r.status_code == 413, r.status_code

            # A byte a second in the headers: closed after the read timeout.
            slow = socket.create_connection(("127.0.0.1", server.port))
            started = time.monotonic()
            closed_after = None
            for b in b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 20:
                try:
                    slow.sendall(bytes([b]))
                    slow.settimeout(1.0)
                    if slow.recv(1024) == b"":
                        closed_after = time.monotonic() - started
                        break
                except socket.timeout:
                    continue
                except (BrokenPipeError, ConnectionResetError):
                    closed_after = time.monotonic() - started
                    break
            slow.close()
            assert closed_after is not None and closed_after < 8, closed_after

            # A body that trickles: 408 after the read timeout.
            trickle = socket.create_connection(("127.0.0.1", server.port))
            trickle.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                            f"Content-Type: application/json\r\nAccept: {ACCEPT}\r\nContent-Length: 1000\r\n\r\n{{".encode())
            trickle.settimeout(8)
            started = time.monotonic()
            reply = trickle.recv(4096)
            trickle.close()
            assert reply.startswith(b"HTTP/1.1 408") and time.monotonic() - started < 6, reply[:60]



# Fairness between tokens: rates, sessions, streams, revocation, metrics.
import team_fairness  # noqa: E402,F401
# A store that stops answering.
import team_faults  # noqa: E402,F401
# Several processes behind haproxy.
import team_fleet  # noqa: E402,F401
# Connection slots and unread answers.
import team_slots  # noqa: E402,F401


@check("200 sessions over 50 namespaces: memory stays under the warm cap; an idle store comes back with the same answers")
def many_namespaces():
    with Base() as base:
        tokens = {i: base.token(f"user{i:02}") for i in range(50)}
        # A warm namespace holds ~4 MiB of linear memory: 16 MiB keeps a few,
        # so the memory cap (not the count) is what bounds the pool here.
        cap_mib = 16
        # Sessions, connections and buffers besides the instances.
        slack_mib = 64
        # 200 sessions at once from this one address: more connections than one
        # peer may hold by default.
        with Server(base, "--warm-stores", "50", "--warm-memory-mib", str(cap_mib), "--warm-idle-secs", "3",
                    "--max-sessions", "400", "--max-connections-per-peer", "512") as server:
            async def first(s):
                return (await s.call_tool("memory", {"command": "view", "path": "/memories"})).is_error
            asyncio.run(session(server.url, tokens[0], first))
            floor = server.rss_mib()
            peak = [floor]
            stop = threading.Event()

            def sample():
                while not stop.is_set():
                    peak[0] = max(peak[0], server.rss_mib())
                    time.sleep(0.05)

            sampler = threading.Thread(target=sample)
            sampler.start()

            async def one(i):
                ns = i % 50

                async def work(s):
                    name = f"/memories/s{i}.md"
                    c = await s.call_tool("memory", {"command": "create", "path": name, "file_text": f"session {i} of user{ns:02}\n"})
                    v = await s.call_tool("memory", {"command": "view", "path": name})
                    return c.is_error, call_text(v)
                return await session(server.url, tokens[ns], work)

            async def all_sessions():
                sem = asyncio.Semaphore(200)

                async def bounded(i):
                    async with sem:
                        return await one(i)
                return await asyncio.gather(*(bounded(i) for i in range(200)))

            results = asyncio.run(asyncio.wait_for(all_sessions(), 600))
            stop.set()
            sampler.join()
            for i, (failed, text) in enumerate(results):
                assert not failed and f"session {i} of user{i % 50:02}" in text, (i, text)
            grown = peak[0] - floor
            by_memory = [e for e in server.log() if e.get("event") == "store-dropped" and e["detail"]["why"] == "memory"]
            print(f"  200 sessions / 50 namespaces: RSS {floor:.0f} MiB after the first call, peak {peak[0]:.0f} MiB (+{grown:.0f}); "
                  f"warm cap {cap_mib} MiB, {len(by_memory)} stores dropped for it")
            assert by_memory, "the memory cap never dropped a store"
            assert grown < cap_mib + slack_mib, (floor, peak[0])

            async def listing(s):
                return call_text(await s.call_tool("memory", {"command": "view", "path": "/memories"}))
            before = asyncio.run(session(server.url, tokens[7], listing))
            opened = sum(1 for e in server.log() if e.get("event") == "store-opened")
            # Dropped once idle 3 s, at the server's next 5 s tick: up to 8 s
            # after the call, waited for up to 15 s.
            deadline = time.monotonic() + 15
            while True:
                dropped = [e for e in server.log() if e.get("event") == "store-dropped"
                           and e["detail"] == {**e["detail"], "why": "idle", "namespace": base.ns("user07")}]
                if dropped or time.monotonic() > deadline:
                    break
                time.sleep(0.25)
            assert dropped, "the idle store was not dropped within 15 s"
            after = asyncio.run(session(server.url, tokens[7], listing))
            assert after == before and "s7.md" in after and "s57.md" in after, after
            assert sum(1 for e in server.log() if e.get("event") == "store-opened") > opened


def netns_pair() -> list[str] | None:
    """Two network namespaces joined by a veth pair (10.77.0.1, .2), or None."""
    if not STORE or os.geteuid() != 0:
        return None
    names = [f"mc{os.getpid()}a", f"mc{os.getpid()}b"]
    try:
        for n in names:
            subprocess.run(["ip", "netns", "add", n], check=True, capture_output=True)
            subprocess.run(["ip", "netns", "exec", n, "ip", "link", "set", "lo", "up"], check=True, capture_output=True)
        return names
    except (subprocess.CalledProcessError, FileNotFoundError):
        for n in names:
            subprocess.run(["ip", "netns", "del", n], capture_output=True)
        return None


@check("two server processes on one store, 8 clients each on one namespace: no update is lost")
def two_processes():
    base = Base()
    spaces = None
    try:
        tokens = [base.token("shared", "--label", f"client{i}") for i in range(16)]
        base.plant("shared", "log.md", "end\n")
        # On a database each server runs in a network namespace of its own
        # (a host of its own) when it can reach PostgreSQL from there; the
        # database is on a unix socket, which a network namespace still reaches.
        on_socket = STORE and re.search(r"@%2F|host=(/|%2F)", STORE)
        spaces = netns_pair() if on_socket else None
        servers = [Server(base, "--rate-limit", "1000", netns=spaces[i] if spaces else None) for i in range(2)]
        rounds = 12
        try:
            async def client(i):
                server = servers[i % 2]
                if spaces:
                    # Inside the server's namespace: reach it through its loopback.
                    return await asyncio.to_thread(run_in_netns, spaces[i % 2], server.port, tokens[i], rounds, i)
                return await session(server.url, tokens[i], lambda s: one_client(s, i, rounds))

            async def everyone():
                return await asyncio.gather(*(client(i) for i in range(16)))

            asyncio.run(asyncio.wait_for(everyone(), 600))
        finally:
            for s in servers:
                s.stop()
        text = base.read("shared", "log.md") or ""
        lines = [l for l in text.splitlines() if l.startswith("c")]
        expected = {f"c{i} r{r}" for i in range(16) for r in range(rounds)}
        lost = len(expected - set(lines))
        listing = base.listing("shared")
        missing = [f"c{i}-{r}.md" for i in range(16) for r in range(rounds) if f"c{i}-{r}.md" not in listing]
        print(f"  two processes{' in two network namespaces' if spaces else ''}: {len(lines)} of {len(expected)} inserts kept, {len(missing)} files missing")
        assert lost == 0 and len(lines) == len(expected) and not missing, (lost, missing[:5])
    finally:
        if spaces:
            for n in spaces:
                subprocess.run(["ip", "netns", "del", n], capture_output=True)
        base.close()


async def one_client(s, i: int, rounds: int) -> None:
    """Client i's share of the two-process check: inserts into one shared
    file and notes of its own."""
    for r in range(rounds):
        res = await s.call_tool("memory", {"command": "insert", "path": "/memories/log.md", "insert_line": 0, "insert_text": f"c{i} r{r}"})
        assert not res.is_error, call_text(res)
        res = await s.call_tool("memory", {"command": "create", "path": f"/memories/c{i}-{r}.md", "file_text": f"{i} {r}\n"})
        assert not res.is_error, call_text(res)


def run_in_netns(space: str, port: int, token: str, rounds: int, i: int) -> None:
    """One client's work from inside a network namespace (a child Python)."""
    code = (
        "import asyncio, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "from test_team import session, one_client\n"
        f"asyncio.run(session('http://127.0.0.1:{port}/mcp', {token!r}, lambda s: one_client(s, {i}, {rounds})))\n"
    )
    subprocess.run(["ip", "netns", "exec", space, sys.executable, "-c", code], check=True, capture_output=True, timeout=600)


@check("every call is one log line (label, namespace, tool, duration, outcome) with no note text or token")
def log_lines():
    with Base() as base:
        token = base.token("alice", "--label", "laptop")
        with Server(base) as server:
            async def work(s):
                await s.call_tool("memory", {"command": "create", "path": "/memories/p.md", "file_text": "PRIVATE-TEXT-42\n"})
                await s.call_tool("memory", {"command": "view", "path": "/memories/missing.md"})
                await s.call_tool("memory_search", {"query": "PRIVATE-QUERY-43"})
            asyncio.run(session(server.url, token, work))
            httpx2.post(server.url, content="{}", headers={"content-type": "application/json", "accept": ACCEPT})
            eventually("the calls and the refusal were not logged", lambda: sum("tool" in e for e in server.log()) >= 3 and any(e.get("status") == 401 for e in server.log()))
            server.stop()
        calls = [e for e in server.log() if "tool" in e]
        assert [(e["tool"], e.get("command")) for e in calls] == [("memory", "create"), ("memory", "view"), ("memory_search", None)], calls
        for e in calls:
            assert e["token"] == "laptop" and e["namespace"] == base.ns("alice") and isinstance(e["ms"], (int, float)) and e["time"], e
        assert calls[0]["outcome"] == "ok" and calls[1]["outcome"] == "error:not-found", calls
        assert any(e.get("status") == 401 for e in server.log()), server.lines
        everything = "".join(server.lines)
        assert "PRIVATE-TEXT-42" not in everything and "PRIVATE-QUERY-43" not in everything
        assert token.split("_")[2] not in everything


@check("SIGTERM lets a request in progress finish and answer, then the server exits 0")
def clean_shutdown():
    with Base() as base:
        token = base.token("alice")
        base.plant("alice", "seed.md", "seed\n")
        with Server(base) as server:
            raw = Raw(server.url, [("authorization", f"Bearer {token}")])
            assert raw.open().status_code == 200
            # A 6.5 MB create, sent by hand: the signal lands once the server
            # holds the request, while it reads or runs it.
            body = json.dumps({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {
                "name": "memory", "arguments": {"command": "create", "path": "/memories/big.md", "file_text": "line of text\n" * 500_000}}}).encode()
            head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                    f"Content-Type: application/json\r\nAccept: {ACCEPT}\r\nMcp-Session-Id: {raw.session}\r\n"
                    f"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(head + body)
            server.proc.send_signal(signal.SIGTERM)
            s.settimeout(60)
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
            s.close()
            code = server.stop()
            stopping = [e for e in server.log() if e.get("event") == "stopping"]
            assert code == 0, code
            assert stopping and stopping[0]["detail"]["in_progress"] >= 1, stopping
            assert reply.startswith(b"HTTP/1.1 200") and b'"id":77' in reply and b'"isError":false' in reply, reply[:300]
        assert (base.read("alice", "big.md") or "").count("line of text") == 500_000


def main() -> int:
    global MEMCAP, STORE
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--store", help="a PostgreSQL URL: namespaces and tokens in the database")
    parser.add_argument("--only", help="run the checks whose function name holds this")
    args = parser.parse_args()
    MEMCAP = team_harness.MEMCAP = str(Path(args.memcap).resolve())
    STORE = team_harness.STORE = args.store
    return CHECKS.run("team server (database)" if STORE else "team server", args.only)

if __name__ == "__main__":
    sys.exit(main())
