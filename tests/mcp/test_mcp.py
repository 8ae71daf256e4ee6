"""`memcap mcp` through the official MCP Python SDK (PyPI `mcp`): tools and
their schemas, errors as results, two servers on one store, edits by other
programs, a stopped call, malformed JSON-RPC, and the namespace suite (no
command or parameter reaches another user's directory).

    python tests/mcp/test_mcp.py --memcap target/release/memcap
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import jsonschema

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checks import Checks, eventually  # noqa: E402
from client import McpMemory  # noqa: E402

MEMCAP = ""
CHECKS = Checks()
check = CHECKS.check


def tree(root: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath, f)
            out[str(p.relative_to(root))] = p.read_bytes() if not p.is_symlink() else b"->"
    return out


@check("every tool is listed with the description and schema describe gives, and its schema is valid")
def tools_match_describe():
    with tempfile.TemporaryDirectory() as d:
        described = json.loads(
            subprocess.run([MEMCAP, "--root", d, "describe"], capture_output=True, check=True).stdout
        )
        with McpMemory(MEMCAP, ["--root", d]) as server:
            listed = server.request(lambda s: s.list_tools()).tools
            assert [t.name for t in listed] == [t["name"] for t in described]
            for tool, want in zip(listed, described):
                assert tool.description == want["description"], tool.name
                assert tool.input_schema == want["input_schema"], tool.name
                jsonschema.Draft202012Validator.check_schema(tool.input_schema)
            memory = next(t for t in listed if t.name == "memory")
            assert memory.input_schema["properties"]["command"]["enum"] == [
                "view", "create", "str_replace", "insert", "delete", "rename"
            ]
            # A valid input round-trips: accepted by the schema and by the tool.
            for tool, args in [
                ("memory", {"command": "create", "path": "/memories/a.md", "file_text": "x\n"}),
                ("memory_write", {"filename": "n", "name": "N", "type": "user", "content": "unique body"}),
                ("memory_view", {"all": True}),
                ("memory_read", {"topics": ["n"]}),
                ("memory_update", {"filename": "n", "old_str": "unique body", "new_str": "new body"}),
                ("build_context", {"url": "memory://N", "depth": 2, "timeframe": "7d"}),
                ("recent_activity", {"timeframe": "1d", "type": "entity"}),
                ("memory_guide", {}),
                ("memory_review", {"timeframe": "1d"}),
                ("memory_delete", {"filename": "n"}),
            ]:
                schema = next(t for t in listed if t.name == tool).input_schema
                jsonschema.validate(args, schema)
                text, is_error, data = server.call(tool, args)
                assert not is_error, (tool, text)
                assert "output" in data, data


@check("errors are isError results with call's message and typed data; unknown tools are protocol errors")
def errors_are_results():
    with tempfile.TemporaryDirectory() as d:
        with McpMemory(MEMCAP, ["--root", d]) as server:
            text, is_error, data = server.call("memory", {"command": "view", "path": "/memories/nope.md"})
            assert is_error
            assert text == "The path /memories/nope.md does not exist. Please provide a valid path.", text
            assert data == {"error": {"kind": "not-found", "message": text}}, data
            text, is_error, _ = server.call("memory", {"command": "explode"})
            assert is_error and "Unknown command: explode" in text, text
            text, is_error, _ = server.call("memory_write", {"filename": "x"})
            assert is_error and "name" in text, text
            try:
                server.call("no_such_tool", {})
            except Exception as exc:
                assert "unknown tool" in str(exc), exc
            else:
                raise AssertionError("an unknown tool answered")
            text, is_error, _ = server.call("memory", {"command": "view", "path": "/memories"})
            assert not is_error, text


@check("the prompt and MEMORY.md are offered as an MCP prompt and resource")
def prompt_and_resource():
    with tempfile.TemporaryDirectory() as d:
        with McpMemory(MEMCAP, ["--root", d]) as server:
            server.call("memory_write", {"filename": "coffee", "name": "Coffee", "description": "flat white", "type": "user", "content": "x"})
            prompts = server.request(lambda s: s.list_prompts()).prompts
            assert [p.name for p in prompts] == ["memory"]
            got = server.request(lambda s: s.get_prompt("memory"))
            prompt = subprocess.run([MEMCAP, "--root", d, "prompt"], capture_output=True, text=True, check=True).stdout
            assert got.messages[0].content.text.strip() == prompt.strip(), (got.messages[0].content.text, prompt)
            resources = server.request(lambda s: s.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["memory://MEMORY.md"]
            read = server.request(lambda s: s.read_resource("memory://MEMORY.md"))
            assert read.contents[0].text == Path(d, "MEMORY.md").read_text()
            assert "flat white" in read.contents[0].text


@check("versions made over stdio name the client; the CLI's name its --actor")
def versions_name_the_client():
    with tempfile.TemporaryDirectory() as d:
        with McpMemory(MEMCAP, ["--root", d]) as server:
            text, is_error, _ = server.call("memory", {"command": "create", "path": "/memories/a.md", "file_text": "x\n"})
            assert not is_error, text
        subprocess.run([MEMCAP, "--root", d, "--actor", "ops", "delete", "/memories/a.md"], check=True, capture_output=True)
        listed = subprocess.run([MEMCAP, "--root", d, "history", "list", "--json"], capture_output=True, text=True, check=True).stdout
        got = [(v["op"], v["actor"]) for v in map(json.loads, listed.splitlines())]
        # The Python SDK's client calls itself "mcp"; a stdio client is recorded as one.
        assert got == [("deleted", "ops"), ("created", "mcp:mcp")], got


@check("a stdio client's name is marked as the client's, bounded and on one line: it can take no name memcap or a person uses")
def client_names_are_honest():
    hostile = ["(outside memcap)", "ops", "alice\n2026-01-01T00:00:00Z  deleted  /memories/x  admin", "x" * (1 << 20)]
    with tempfile.TemporaryDirectory() as d:
        for i, name in enumerate(hostile):
            proc = subprocess.Popen([MEMCAP, "--root", d, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                def send(obj):
                    proc.stdin.write(json.dumps(obj) + "\n")
                    proc.stdin.flush()
                send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": name, "version": "1"}}})
                assert json.loads(proc.stdout.readline())["id"] == 1
                send({"jsonrpc": "2.0", "method": "notifications/initialized"})
                send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory", "arguments": {
                    "command": "create", "path": f"/memories/c{i}.md", "file_text": "x\n"}}})
                for _ in range(10):
                    reply = json.loads(proc.stdout.readline())
                    if reply.get("id") == 2:
                        break
                assert reply["result"]["isError"] is False, reply
            finally:
                proc.stdin.close()
                proc.wait(10)
        listed = subprocess.run([MEMCAP, "--root", d, "history", "list", "--json"], capture_output=True, text=True, check=True).stdout
        actors = {v["path"]: v["actor"] for v in map(json.loads, listed.splitlines())}
        assert actors["/memories/c0.md"] == "mcp:(outside memcap)", actors
        assert actors["/memories/c1.md"] == "mcp:ops", actors
        assert actors["/memories/c2.md"].startswith("mcp:alice 2026-01-01T00:00:00Z deleted"), actors
        assert len(actors["/memories/c3.md"]) == 64 and actors["/memories/c3.md"].startswith("mcp:xxx"), actors
        text = subprocess.run([MEMCAP, "--root", d, "history", "list"], capture_output=True, text=True, check=True).stdout
        assert len(text.splitlines()) == 4, text
        # Revert does not skip a client that called itself another program.
        subprocess.run([MEMCAP, "--root", d, "--actor", "ops", "history", "revert", "--since", "1h", "--by", "mcp:(outside memcap)"],
                       check=True, capture_output=True)
        assert not Path(d, "c0.md").exists()
        # Nor can the CLI take such a name.
        for bad in ("(outside memcap)", "mcp:claude", "a\nb", "y" * 65, " "):
            r = subprocess.run([MEMCAP, "--root", d, "--actor", bad, "view", "/memories"], capture_output=True, text=True)
            assert r.returncode == 2 and "--actor" in r.stderr, (bad, r.stderr)


@check("two servers on one store writing at once lose nothing")
def two_servers_concurrent():
    with tempfile.TemporaryDirectory() as d:
        a = McpMemory(MEMCAP, ["--root", d])
        b = McpMemory(MEMCAP, ["--root", d])
        try:
            a.call("memory", {"command": "create", "path": "/memories/log.md", "file_text": ""})
            errors = []

            def writer(server, who):
                for i in range(40):
                    text, is_error, _ = server.call(
                        "memory", {"command": "insert", "path": "/memories/log.md", "insert_line": 0, "insert_text": f"{who}{i}\n"}
                    )
                    if is_error:
                        errors.append(text)
                    _, is_error, _ = server.call(
                        "memory", {"command": "create", "path": f"/memories/{who}/{i}.md", "file_text": f"{who} {i}\n"}
                    )
                    if is_error:
                        errors.append(text)

            threads = [threading.Thread(target=writer, args=(s, w)) for s, w in ((a, "a"), (b, "b"))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors[:3]
            lines = Path(d, "log.md").read_text().splitlines()
            assert sorted(lines) == sorted([f"a{i}" for i in range(40)] + [f"b{i}" for i in range(40)]), len(lines)
            for who in "ab":
                assert len(list(Path(d, who).iterdir())) == 40
            listing, _, _ = b.call("memory_read", {})
            assert listing.count("/memories/a/") == 40 and listing.count("/memories/b/") == 40
        finally:
            a.close()
            b.close()


@check("files other programs create, edit in place or delete show in the next call")
def external_edits():
    with tempfile.TemporaryDirectory() as d:
        with McpMemory(MEMCAP, ["--root", d]) as server:
            server.call("memory_write", {"filename": "tea", "name": "Tea", "description": "green", "type": "user", "content": "x"})
            Path(d, "new.md").write_text("---\nname: New\ndescription: planted\ntype: project\n---\n")
            index, _, _ = server.call("memory_view", {})
            assert "planted" in index, index
            note = Path(d, "tea.md")
            note.write_text(note.read_text().replace("green", "black"))
            # Shown once the watcher's report is in: no fixed wait.
            def shown():
                index, _, _ = server.call("memory_view", {})
                return index if "black" in index else None

            index = eventually("the edit in place never showed", shown)
            assert "green" not in index, index
            Path(d, "new.md").unlink()
            index, _, _ = server.call("memory_view", {})
            assert "planted" not in index, index


@check("a call stopped at its time limit is an error result and the next call works")
def stopped_call():
    with tempfile.TemporaryDirectory() as d:
        Path(d, "long.txt").write_text("x\n" * 990_000)
        # Numbering a million lines takes over 0.1 s; listing the tools at
        # start and viewing the root take a few ms, well inside 0.04 s.
        with McpMemory(MEMCAP, ["--root", d, "--call-timeout-ms", "40"]) as server:
            text, is_error, data = server.call("memory", {"command": "view", "path": "/memories/long.txt"})
            assert is_error and "stopped after 0.04 s" in text, text
            assert data["error"]["kind"] == "timed-out", data
            text, is_error, _ = server.call("memory", {"command": "view", "path": "/memories"})
            assert not is_error and "long.txt" in text, text


@check("malformed JSON-RPC gets a protocol error and the server lives on")
def malformed_jsonrpc():
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen([MEMCAP, "--root", d, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            def send(obj_or_text):
                line = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
                proc.stdin.write(line + "\n")
                proc.stdin.flush()

            def answer():
                return json.loads(proc.stdout.readline())

            send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            assert answer()["id"] == 1
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send("{this is not json")
            reply = answer()
            assert reply["error"]["code"] == -32700 and reply["id"] is None, reply
            send({"id": 9, "method": "tools/list"})
            reply = answer()
            assert reply["error"]["code"] == -32600 and reply["id"] == 9, reply
            send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory", "arguments": {"command": "view", "path": "/memories"}}})
            reply = answer()
            while reply.get("id") != 2:
                reply = answer()
            assert reply["result"]["isError"] is False, reply
        finally:
            proc.stdin.close()
            proc.wait(10)


# Bob's note: found in any answer, it was read across namespaces.
SECRET = "BOB-SECRET-7f3a9c"


@check("with --http the same tools answer over streamable HTTP")
def streamable_http():
    import asyncio
    import socket

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen([MEMCAP, "--root", d, "mcp", "--http", f"127.0.0.1:{port}"], stderr=subprocess.PIPE, text=True)
        try:
            # Log lines (JSON) may come first: the store is opened before listening.
            line = proc.stderr.readline()
            while line.startswith("{"):
                line = proc.stderr.readline()
            assert "serving MCP at" in line, line
            # Without tokens the server is for the one user who started it:
            # the token it printed, and nothing else, opens it.
            token = re.search(r"Bearer (memcap_local_[0-9a-f]{64})", line).group(1)
            import httpx2
            bare = httpx2.post(f"http://127.0.0.1:{port}/mcp", content="{}", headers={"content-type": "application/json"})
            assert bare.status_code == 401, bare.status_code

            async def session():
                async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
                    async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http) as (read, write, *_):
                        async with ClientSession(read, write) as s:
                            await s.initialize()
                            names = [t.name for t in (await s.list_tools()).tools]
                            created = await s.call_tool("memory", {"command": "create", "path": "/memories/h.md", "file_text": "over http\n"})
                            return names, created

            names, created = asyncio.run(asyncio.wait_for(session(), 60))
            assert "memory" in names and "memory_write" in names, names
            assert not created.is_error, created
            assert Path(d, "h.md").read_text() == "over http\n"
        finally:
            proc.terminate()
            proc.wait(10)


def attempts(secret_dir: Path, base: Path):
    """Every way in: traversal, encodings, lookalikes, links, host paths."""
    paths = [
        "/memories/../bob/secret.md",
        "/memories/../../bob/secret.md",
        "/memories/%2e%2e/bob/secret.md",
        "/memories/\uff0e\uff0e/bob/secret.md",
        "/memories/..\u2215bob/secret.md",
        "/memories/shared/team/../../../bob/secret.md",
        "/memories/shared/../../bob/secret.md",
        "/memories/shared/team/to-bob/secret.md",
        "/memories/shared/team/bob-secret.md",
        "/memories/to-bob-in-own/secret.md",
        f"/memories/{secret_dir}/secret.md",
        str(secret_dir / "secret.md"),
        "../bob/secret.md",
        "/memories/shared/bob/secret.md",
    ]
    names = ["../bob/secret", "..", "shared/team/to-bob/secret", "%2e%2e/bob/secret", f"{secret_dir}/secret"]
    for p in paths:
        yield "memory", {"command": "view", "path": p}
        yield "memory", {"command": "create", "path": p, "file_text": "pwned"}
        yield "memory", {"command": "str_replace", "path": p, "old_str": "BOB", "new_str": "pwned"}
        yield "memory", {"command": "insert", "path": p, "insert_line": 0, "insert_text": "pwned"}
        yield "memory", {"command": "delete", "path": p}
        yield "memory", {"command": "rename", "old_path": p, "new_path": "/memories/stolen.md"}
        yield "memory", {"command": "rename", "old_path": "/memories/mine.md", "new_path": p}
    for n in names:
        yield "memory_read", {"topics": [n]}
        yield "memory_write", {"filename": n, "name": "x", "type": "user", "content": "pwned"}
        yield "memory_update", {"filename": n, "old_str": "BOB", "new_str": "pwned"}
        yield "memory_delete", {"filename": n}
    yield "memory_view", {"all": True}
    yield "memory_read", {}


@check("namespace suite: no command or parameter reads or writes another user's directory")
def namespace_suite():
    with tempfile.TemporaryDirectory() as d:
        base = Path(d, "users")
        team = Path(d, "team")
        (base / "bob").mkdir(parents=True)
        (base / "bob" / "secret.md").write_text(SECRET + "\n")
        team.mkdir()
        # Bob plants links where Alice's server looks: in the shared
        # directory, and one in Alice's own store (as if an editor made it).
        (team / "to-bob").symlink_to(base / "bob")
        (team / "bob-secret.md").symlink_to(base / "bob" / "secret.md")
        (base / "alice").mkdir()
        (base / "alice" / "to-bob-in-own").symlink_to(base / "bob")
        before = tree(base / "bob")
        for bad in ["../bob", "..", ".", "bob/../alice", "%2e%2e", "\uff0e\uff0e", "a/b", "x" * 65, ""]:
            r = subprocess.run([MEMCAP, "--root", str(base), "--namespace", bad, "view", "/memories"], capture_output=True, text=True)
            assert r.returncode == 2 and "namespace" in r.stderr, (bad, r.returncode, r.stderr)
        tried = reads = writes = 0
        with McpMemory(MEMCAP, ["--root", str(base), "--namespace", "alice", "--shared", f"team={team}"]) as server:
            server.call("memory", {"command": "create", "path": "/memories/mine.md", "file_text": "alice\n"})
            for tool, args in attempts(base / "bob", base):
                tried += 1
                text, _, data = server.call(tool, args)
                if SECRET in text or SECRET in json.dumps(data):
                    reads += 1
                    print(f"  READ through {tool} {args}: {text[:200]!r}", file=sys.stderr)
                if tree(base / "bob") != before:
                    writes += 1
                    print(f"  WRITE through {tool} {args}", file=sys.stderr)
                    before = tree(base / "bob")
                # No host path, unless the attempt itself sent it.
                assert str(base) not in text or str(base) in json.dumps(args), text
        print(f"  namespace suite: {tried} attempts, {reads} cross-namespace reads, {writes} cross-namespace writes")
        assert tried > 100 and reads == 0 and writes == 0, (tried, reads, writes)


def main() -> int:
    global MEMCAP
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memcap", required=True)
    MEMCAP = str(Path(parser.parse_args().memcap).resolve())
    return CHECKS.run("mcp")

if __name__ == "__main__":
    sys.exit(main())
