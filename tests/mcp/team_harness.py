"""What the team server's checks (test_team.py) stand on: a store to serve
(a directory, or namespaces of one PostgreSQL database), a server process
on a free port, and raw HTTP for what the MCP client never sends."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import httpx2

from checks import Checks

# Set by the script that runs the checks.
MEMCAP = ""
STORE: str | None = None
ACCEPT = "application/json, text/event-stream"
# Every check of the team suite, in the order the modules register them.
CHECKS = Checks()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Base:
    """Where the namespaces and tokens live: a fresh directory, or a fresh
    database namespace prefix on --store (a schema of its own per check)."""

    def __init__(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name, "base")
        self.prefix = f"t{os.getpid()}x{int(time.time() * 1000) % 10_000_000}"

    def args(self) -> list[str]:
        return ["--store", STORE] if STORE else ["--root", str(self.dir)]

    def ns(self, name: str) -> str:
        """A namespace name unique to this check on a shared database."""
        return f"{self.prefix}-{name}" if STORE else name

    def token(self, namespace: str, *extra: str) -> str:
        out = subprocess.run(
            [MEMCAP, *self.args(), "token", "create", "--namespace", self.ns(namespace), *extra],
            capture_output=True, text=True, check=True,
        ).stdout
        return out.strip().splitlines()[-1]

    def plant(self, namespace: str, name: str, text: str) -> None:
        subprocess.run(
            [MEMCAP, *self.args(), "--namespace", self.ns(namespace), "create", f"/memories/{name}", text],
            capture_output=True, text=True, check=True,
        )

    def read(self, namespace: str, name: str) -> str | None:
        """The file as stored, copied out of the namespace with `memcap copy`."""
        src = f"{STORE}#{self.ns(namespace)}" if STORE else str(self.dir / namespace)
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run([MEMCAP, "copy", src, str(Path(out, "c"))], capture_output=True, text=True)
            if r.returncode != 0:
                return None
            f = Path(out, "c", name)
            return f.read_text() if f.is_file() else None

    def listing(self, namespace: str) -> str:
        return subprocess.run(
            [MEMCAP, *self.args(), "--namespace", self.ns(namespace), "view", "/memories"],
            capture_output=True, text=True,
        ).stdout

    def close(self) -> None:
        self.tmp.cleanup()

    def __enter__(self) -> "Base":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Server:
    """One `memcap mcp --http` process; its stderr (the log) is kept."""

    def __init__(self, base: Base, *flags: str, port: int | None = None, netns: str | None = None,
                 host: str = "127.0.0.1", args: list[str] | None = None):
        self.port = port or free_port()
        self.host = host
        cmd = [MEMCAP, *(args or base.args()), "mcp", "--http", f"{host}:{self.port}", *flags]
        if netns:
            cmd = ["ip", "netns", "exec", netns, *cmd]
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        first = self.proc.stderr.readline()
        while first.startswith("{"):  # log lines before the server listens
            self.lines.append(first)
            first = self.proc.stderr.readline()
        if "serving MCP at" not in first:
            self.proc.kill()
            raise AssertionError(f"the server did not start: {first}{self.proc.stderr.read()}")
        self.banner = first
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/mcp"

    def log(self) -> list[dict]:
        out = []
        for line in list(self.lines):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def sse_json(response) -> list[dict]:
    """The JSON-RPC messages of a response, whether JSON or an SSE stream."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return [response.json()]
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()]


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


class Raw:
    """An MCP session by hand, for header-level checks."""

    def __init__(self, url: str, headers: list[tuple[str, str]]):
        self.url = url
        self.headers = [("content-type", "application/json"), ("accept", ACCEPT), *headers]
        self.http = httpx2.Client(timeout=30)
        self.session: str | None = None
        self.next_id = 10

    def post(self, body: dict, headers: list[tuple[str, str]] | None = None, url: str | None = None):
        h = list(headers if headers is not None else self.headers)
        if self.session:
            h.append(("mcp-session-id", self.session))
        return self.http.post(url or self.url, content=json.dumps(body), headers=h)

    def open(self):
        r = self.post(INIT)
        if r.status_code != 200:
            return r
        self.session = r.headers.get("mcp-session-id")
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def call(self, tool: str, args: dict):
        self.next_id += 1
        r = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        return r, [m for m in sse_json(r) if m.get("id") == self.next_id] if r.status_code == 200 else []


async def session(url: str, token: str, fn, headers: dict | None = None):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    h = {"Authorization": f"Bearer {token}", **(headers or {})}
    async with httpx2.AsyncClient(headers=h, timeout=120) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as s:
                await s.initialize()
                return await fn(s)


def call_text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)
