"""A synchronous handle on one `memcap mcp` server, driven by the official
MCP Python SDK (PyPI `mcp`) over stdio: the client a test or a benchmark
needs without writing async code.

    with McpMemory(memcap, ["--root", str(root)]) as server:
        text, is_error, data = server.call("memory", {"command": "view", "path": "/memories"})
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


class McpMemory:
    def __init__(
        self,
        binary: str,
        args: list[str],
        timeout: float = 60.0,
        subcommand: str = "mcp",
        env: dict[str, str] | None = None,
    ):
        """Spawns `binary subcommand args...` (any stdio MCP server)."""
        self.params = StdioServerParameters(command=binary, args=[subcommand, *args], env=env)
        self.timeout = timeout
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.ready: concurrent.futures.Future = concurrent.futures.Future()
        self.queue: asyncio.Queue | None = None
        # The SDK's contexts must be entered and left by one task: it runs
        # for the server's life and takes requests from a queue.
        self.task = asyncio.run_coroutine_threadsafe(self._serve(), self.loop)
        self.initialized = self.ready.result(timeout)

    async def _serve(self) -> None:
        self.queue = asyncio.Queue()
        try:
            async with stdio_client(self.params) as (read, write):
                async with ClientSession(read, write) as session:
                    self.ready.set_result(await session.initialize())
                    while (item := await self.queue.get()) is not None:
                        coro_fn, done = item
                        try:
                            done.set_result(await coro_fn(session))
                        except Exception as exc:  # handed to the caller
                            done.set_exception(exc)
        except Exception as exc:
            if not self.ready.done():
                self.ready.set_exception(exc)
            raise

    def request(self, coro_fn):
        """Runs `coro_fn(session)` (any SDK call) and returns its result."""
        done: concurrent.futures.Future = concurrent.futures.Future()
        self.loop.call_soon_threadsafe(self.queue.put_nowait, (coro_fn, done))
        return done.result(self.timeout)

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool, Any]:
        """One tool call: the text content, whether it is an error, and the
        structured content."""
        result = self.request(lambda s: s.call_tool(tool, arguments))
        text = "".join(block.text for block in result.content if block.type == "text")
        return text, bool(result.is_error), result.structured_content

    def close(self) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, None)
            self.task.result(self.timeout)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)

    def __enter__(self) -> "McpMemory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
