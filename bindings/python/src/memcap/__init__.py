"""memcap: persistent memory for AI agents that cannot leak or escape.

`Memory` runs memcap's WebAssembly component (carried in this package) in
wasmtime, granted one directory and nothing else: the six file commands of
Claude's memory tool, the typed notes and the index, each as a method that
returns the agent's text or raises the `tool-error` case as an exception;
search (`memory_search`, `memory_get`, `memory_stats`) and the graph
(`build_context`, `recent_activity`) return dicts.
`memcap.anthropic` has the drop-in memory tool for Anthropic's SDK.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from wasmtime.component import Record, Variant

from . import errors
from ._host import Host, Limits, Stopped
from .errors import MemcapError, error_class

__all__ = ["Memory", "Limits", "ToolResult", "DataResult", "ToolDefinition", "MemcapError", "errors"]
__version__ = "0.1.0"

# Commands that only read; any other `call` may write.
_READS = frozenset({
    "view", "memory_read", "memory_view", "prompt", "memory_search", "memory_get", "memory_stats",
    "build_context", "recent_activity", "memory_guide", "memory_history", "memory_review",
})


class ToolResult(NamedTuple):
    """A `tool_result`: the text the agent sees and whether it is an error."""

    content: str
    is_error: bool


class DataResult(NamedTuple):
    """One command's text for the agent and its JSON data for a program."""

    content: str
    data: Dict[str, Any]
    is_error: bool


class ToolDefinition(NamedTuple):
    """A tool the component offers: name, description, JSON Schema."""

    name: str
    description: str
    input_schema: Dict[str, Any]


def _writes(input: str) -> bool:
    try:
        command = json.loads(input).get("command")
    except (ValueError, AttributeError):
        return False
    return command not in _READS


def _raise(kind: str, message: str) -> None:
    error = error_class(kind)(message)
    error.kind = kind
    raise error


class Memory:
    """A memory directory, served to the component as `/memories`.

    `root` is the directory itself (created, mode 0700, if missing). Calls
    are serialised across threads and processes; each runs within `limits`.
    `extra` maps names to directories granted read-only, seen as
    `/memories/extra/NAME` and searched as source `custom`. `vectors=False`
    makes searches keywords only (BM25), without the compiled-in embedding
    model; the answers say so.
    """

    def __init__(
        self,
        root: Union[str, Path],
        *,
        limits: Limits = Limits(),
        extra: Optional[Dict[str, Union[str, Path]]] = None,
        vectors: bool = True,
    ) -> None:
        self._host = Host(Path(root), limits, {n: Path(p) for n, p in (extra or {}).items()}, vectors)

    @property
    def root(self) -> Path:
        return self._host.root

    # --- the six file commands ------------------------------------------

    def view(self, path: str, view_range: Optional[Tuple[int, int]] = None) -> str:
        """A directory listing (2 levels) or a file with line numbers."""
        return self._typed("files", "view", (path, tuple(view_range) if view_range else None), False)

    def create(self, path: str, file_text: str) -> str:
        """Creates a new file; never overwrites."""
        return self._typed("files", "create", (path, file_text))

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        """Replaces the one occurrence of `old_str`."""
        return self._typed("files", "str-replace", (path, old_str, new_str))

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        """Inserts lines after line `insert_line` (0: at the top)."""
        return self._typed("files", "insert", (path, insert_line, insert_text))

    def delete(self, path: str) -> str:
        """Deletes a file or a directory tree."""
        return self._typed("files", "delete", (path,))

    def rename(self, old_path: str, new_path: str) -> str:
        """Renames or moves; never overwrites."""
        return self._typed("files", "rename", (old_path, new_path))

    # --- typed notes ------------------------------------------------------

    def memory_read(self, topics: Sequence[str] = (), page: Optional[int] = None) -> str:
        return self._typed("notes", "memory-read", (list(topics), page), False)

    def memory_view(self, all: bool = False, page: Optional[int] = None) -> str:
        return self._typed("notes", "memory-view", (all, page), False)

    def memory_write(self, filename: str, name: str, description: str, type: str, content: str) -> str:
        """Saves a note; `type` is user, feedback, project or reference."""
        return self._typed("notes", "memory-write", (filename, name, description, type, content))

    def memory_update(self, filename: str, old_str: str, new_str: str) -> str:
        return self._typed("notes", "memory-update", (filename, old_str, new_str))

    def memory_delete(self, filename: str) -> str:
        return self._typed("notes", "memory-delete", (filename,))

    def memory_guide(self) -> str:
        """The whole protocol for keeping memory, with examples of structured notes."""
        return self._typed("notes", "memory-guide", (), writes=False)

    def memory_review(self, timeframe: Optional[str] = None) -> str:
        """What needs a decision, changing nothing: likely duplicates, notes
        past their `valid_until`, superseded notes still linked, and files
        others changed within `timeframe` (default `7d`)."""
        return self._typed("notes", "memory-review", (timeframe,), writes=False)

    # --- search -----------------------------------------------------------

    def memory_search(
        self,
        query: str,
        max_results: Optional[int] = None,
        min_score: Optional[float] = None,
        source: Optional[str] = None,
        *,
        categories: Sequence[str] = (),
        tags: Sequence[str] = (),
        types: Sequence[str] = (),
        after_date: Optional[str] = None,
        include_superseded: bool = False,
        by: Sequence[str] = (),
        not_by: Sequence[str] = (),
    ) -> Dict[str, Any]:
        """The passages that best answer `query`: a dict with `results` (each
        `path`, `lines`, `text`, `score`, `source`, the `observations` and
        `relations` on its lines, `superseded_by`, `expired`, and who last
        changed those lines, `changed_by` and `changed_at`),
        `total_found`, `method`, `degraded`, `total_files`, `total_chunks`,
        `left_out`. The filters keep passages holding an observation of one of
        `categories` with one of `tags`, in notes of one of `types` changed
        since `after_date` (`2026-11-01`, `7d`). Notes superseded by another
        or past their `valid_until` are left out (counted in `left_out`)
        unless `include_superseded`, which puts them last, marked. `by` keeps
        passages with a line one of these actors changed last, `not_by` those
        with none (a passage whose authors the history cannot say is left
        out by either)."""
        # A whole number is a fine threshold (0, 1): the WIT type is f32.
        min_score = None if min_score is None else float(min_score)
        filters = None
        if categories or tags or types or after_date is not None or include_superseded or by or not_by:
            filters = Record()
            for name, items in (
                ("categories", categories),
                ("tags", tags),
                ("types", types),
                ("by", by),
                ("not-by", not_by),
            ):
                # One word for a list of one, as `call` takes it.
                setattr(filters, name, [items] if isinstance(items, str) else list(items))
            setattr(filters, "after-date", after_date)
            setattr(filters, "include-superseded", bool(include_superseded))
        return self._record("memory-search", (query, max_results, min_score, source, filters))

    def memory_get(self, path: str, first: Optional[int] = None, last: Optional[int] = None) -> Dict[str, Any]:
        """Lines `first`..`last` of a file: `path`, `lines`, `text`, `total_lines`, `more`,
        and who last changed those lines, `changed_by` and `changed_at`."""
        return self._record("memory-get", (path, first, last))

    def memory_stats(self) -> Dict[str, Any]:
        """How the search index stands: files, chunks, size, freshness."""
        return self._record("memory-stats", ())

    # --- graph ------------------------------------------------------------

    def build_context(
        self,
        url: str,
        depth: Optional[int] = None,
        timeframe: Optional[str] = None,
        max_related: Optional[int] = None,
        page: Optional[int] = None,
    ) -> Dict[str, Any]:
        """The notes `url` names (`memory://projects/alpha`, `memory://projects/*`)
        with their observations and relations, and the notes those reach: a
        dict with `primary`, `related`, `page`, `pages`, `total`."""
        return self._record("build-context", (url, depth, timeframe, max_related, page), "graph")

    def recent_activity(
        self, timeframe: Optional[str] = None, type: Optional[str] = None, page: Optional[int] = None
    ) -> Dict[str, Any]:
        """What changed in `timeframe` (default 7d), newest first: a dict with
        `items` (each `item_type`, `note`, and its `observation` or `relation`)."""
        return self._record("recent-activity", (timeframe, type, page), "graph")

    def record_turn(self, session: str, role: str, text: str) -> str:
        """Records one turn of conversation `session` in
        `/memories/chat/SESSION.md`, found by `memory_search` as source
        `chat`; `role` is user, assistant, system or tool."""
        return self._typed("history", "record-turn", (session, role, text))

    def memory_history(self, path: str, version: Optional[int] = None, page: Optional[int] = None) -> str:
        """The versions of `path` (a file, or everything under a directory),
        newest first, 50 a page; with `version`, that version's text."""
        return self._typed("versions", "memory-history", (path, version, page), writes=False)

    def prompt(self) -> str:
        """The memory protocol and the current index, for a system prompt."""
        return self._typed("tool", "prompt", (), False)

    # --- tools as data ----------------------------------------------------

    def describe(self) -> List[ToolDefinition]:
        """The tools to list to a model (names, descriptions, schemas)."""
        tools = self._host.run("tool", "describe", (), writes=False)
        return [
            ToolDefinition(t.name, t.description, json.loads(getattr(t, "input-schema")))
            for t in tools
        ]

    def call(self, input: Union[str, Dict[str, Any]]) -> ToolResult:
        """Runs one `tool_use` input; never raises for a bad input."""
        text = input if isinstance(input, str) else json.dumps(input)
        try:
            result = self._host.run("tool", "call", (text,), writes=_writes(text))
        except Stopped as stopped:
            return ToolResult(stopped.message, True)
        return ToolResult(result.content, getattr(result, "is-error"))

    def call_with_data(self, input: Union[str, Dict[str, Any]]) -> DataResult:
        """`call`, with the command's result as JSON data too."""
        text = input if isinstance(input, str) else json.dumps(input)
        try:
            result = self._host.run("tool", "call-with-data", (text,), writes=_writes(text))
        except Stopped as stopped:
            data = {"error": {"kind": stopped.kind, "message": stopped.message}}
            return DataResult(stopped.message, data, True)
        return DataResult(result.content, json.loads(result.data), getattr(result, "is-error"))

    def call_json(self, input: Union[str, Dict[str, Any]]) -> Dict[str, Any]:
        """The JSON data of one `tool_use` input (an `error` object on failure)."""
        return self.call_with_data(input).data

    def close(self) -> None:
        self._host.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _record(self, name: str, args: tuple, interface: str = "search") -> Dict[str, Any]:
        """A search or graph function's record as a dict (snake_case keys)."""
        try:
            result = self._host.run(interface, name, args, writes=False)
        except Stopped as stopped:
            _raise(stopped.kind, stopped.message)
        if isinstance(result, Variant):
            _raise(result.tag, result.payload)
        return _plain(result)

    def _typed(self, interface: str, name: str, args: tuple, writes: bool = True) -> str:
        try:
            result = self._host.run(interface, name, args, writes=writes)
        except Stopped as stopped:
            _raise(stopped.kind, stopped.message)
        if isinstance(result, str):
            return result
        # wasmtime-py lifts `err(case(message))` as the case's Variant.
        _raise(result.tag, result.payload)
        raise AssertionError("unreachable")


def _plain(value: Any) -> Any:
    """A lifted WIT value as plain Python: records become dicts."""
    if isinstance(value, Record):
        return {k.replace("-", "_"): _plain(v) for k, v in vars(value).items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
