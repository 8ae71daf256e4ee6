"""Drop-in memory tools for Anthropic's Python SDK (PyPI `anthropic`).

Replace one import and nothing else changes:

    # from anthropic.tools import BetaLocalFilesystemMemoryTool
    from memcap.anthropic import BetaLocalFilesystemMemoryTool

    memory = BetaLocalFilesystemMemoryTool(base_path="./memory")
    runner = client.beta.messages.tool_runner(..., tools=[memory])

The constructor has the SDK class's shape: files live in
`base_path/memories`, created as 0700. Every command runs inside memcap's
WebAssembly component, which can reach that directory and nothing else, so
the SDK's path races cannot happen. Results match the SDK's text byte for
byte, except memcap's documented deviations (typed errors instead of raw OS
text, never a host path). A failed command raises a `ToolError` that is
also the `memcap.errors` class of its case, so the tool runner sends the
agent the message with `is_error: true`.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any, Dict, Optional, Type

from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError
from anthropic.types.beta import BetaCacheControlEphemeralParam

from . import Limits, Memory
from .errors import BY_KIND, MemcapError

__all__ = [
    "BetaLocalFilesystemMemoryTool",
    "BetaAsyncLocalFilesystemMemoryTool",
    "MemcapMemoryTool",
    "AsyncMemcapMemoryTool",
]


def _tool_error_class(base: Type[MemcapError]) -> Type[MemcapError]:
    """`base` that is also the SDK's `ToolError` (what its runner reports)."""

    def __init__(self: Any, message: str) -> None:
        ToolError.__init__(self, message)
        self.message = message

    return type(base.__name__, (base, ToolError), {"__init__": __init__, "__module__": __name__})


_TOOL_ERRORS = {kind: _tool_error_class(cls) for kind, cls in BY_KIND.items()}


def _command_input(command: Any) -> Dict[str, Any]:
    """A typed SDK command (or a plain dict) as the tool input it came from."""
    if isinstance(command, dict):
        return command
    return command.to_dict()


class BetaLocalFilesystemMemoryTool(BetaAbstractMemoryTool):
    """Claude's memory tool (`memory_20250818`) on memcap's sandbox."""

    def __init__(
        self,
        base_path: str = "./memory",
        *,
        cache_control: Optional[BetaCacheControlEphemeralParam] = None,
        limits: Limits = Limits(),
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.base_path = Path(base_path)
        self.memory_root = self.base_path / "memories"
        self.memory = Memory(self.memory_root, limits=limits)

    def call(self, input: object) -> str:
        """Runs the `tool_use` input as sent; the component parses it."""
        result = self.memory.call_with_data(json.dumps(input))
        if result.is_error:
            kind = result.data.get("error", {}).get("kind", "io")
            raise _TOOL_ERRORS.get(kind, _TOOL_ERRORS["io"])(result.content)
        return result.content

    def view(self, command: Any) -> str:
        return self.call(_command_input(command))

    def create(self, command: Any) -> str:
        return self.call(_command_input(command))

    def str_replace(self, command: Any) -> str:
        return self.call(_command_input(command))

    def insert(self, command: Any) -> str:
        return self.call(_command_input(command))

    def delete(self, command: Any) -> str:
        return self.call(_command_input(command))

    def rename(self, command: Any) -> str:
        return self.call(_command_input(command))

    def clear_all_memory(self) -> str:
        """Deletes everything in the memory directory, through the sandbox."""
        for name in sorted(os.listdir(self.memory_root)):
            if name != ".memcap":
                self.call({"command": "delete", "path": f"/memories/{name}"})
        return "All memory cleared"


class BetaAsyncLocalFilesystemMemoryTool(BetaAsyncAbstractMemoryTool):
    """The async SDK class's shape; each command runs in a worker thread."""

    def __init__(
        self,
        base_path: str = "./memory",
        *,
        cache_control: Optional[BetaCacheControlEphemeralParam] = None,
        limits: Limits = Limits(),
    ) -> None:
        super().__init__(cache_control=cache_control)
        self._sync = BetaLocalFilesystemMemoryTool(base_path, limits=limits)
        self.base_path = self._sync.base_path
        self.memory_root = self._sync.memory_root
        self.memory = self._sync.memory

    async def call(self, input: object) -> str:
        return await asyncio.to_thread(self._sync.call, input)

    async def view(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def create(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def str_replace(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def insert(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def delete(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def rename(self, command: Any) -> str:
        return await self.call(_command_input(command))

    async def clear_all_memory(self) -> str:
        return await asyncio.to_thread(self._sync.clear_all_memory)


# Names that say what they are, for code that is not replacing the SDK's.
MemcapMemoryTool = BetaLocalFilesystemMemoryTool
AsyncMemcapMemoryTool = BetaAsyncLocalFilesystemMemoryTool
