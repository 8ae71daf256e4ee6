"""One exception class per `tool-error` case of the component's WIT.

Each carries the exact message the agent would see (no host path, no OS
error text) and the case name as `kind`.
"""

from __future__ import annotations

from typing import Dict, Type


class MemcapError(Exception):
    """A memory command did nothing. `str(error)` is the agent's message."""

    kind = "io"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidPath(MemcapError):
    """The path is not a valid memory path (or the tool input is malformed)."""

    kind = "invalid-path"


class Escape(MemcapError):
    """The path would leave `/memories`; such paths never work."""

    kind = "escape"


class Protected(MemcapError):
    """The command would delete or rename `/memories` itself."""

    kind = "protected"


class NotFound(MemcapError):
    """Nothing exists at the path."""

    kind = "not-found"


class AlreadyExists(MemcapError):
    """`create` or `rename` found its target taken; memcap never overwrites."""

    kind = "already-exists"


class NotAFile(MemcapError):
    kind = "not-a-file"


class NotADirectory(MemcapError):
    kind = "not-a-directory"


class NoMatch(MemcapError):
    """`str_replace` found no occurrence of `old_str`."""

    kind = "no-match"


class MultipleMatches(MemcapError):
    """`str_replace` found `old_str` more than once; nothing was replaced."""

    kind = "multiple-matches"


class InvalidLine(MemcapError):
    kind = "invalid-line"


class NotText(MemcapError):
    kind = "not-text"


class TooLarge(MemcapError):
    """A file, an input or the store is over its bound; nothing was written."""

    kind = "too-large"


class Conflict(MemcapError):
    """Another writer changed the file during the edit; read it again and retry."""

    kind = "conflict"


class IoFailure(MemcapError):
    """The store could not be read or written, or the call was stopped."""

    kind = "io"


class InvalidNote(MemcapError):
    kind = "invalid-note"


BY_KIND: Dict[str, Type[MemcapError]] = {
    cls.kind: cls
    for cls in (
        InvalidPath, Escape, Protected, NotFound, AlreadyExists, NotAFile, NotADirectory,
        NoMatch, MultipleMatches, InvalidLine, NotText, TooLarge, Conflict, IoFailure, InvalidNote,
    )
}
# The JSON data keeps two kinds apart that share a WIT case.
BY_KIND["invalid-input"] = InvalidPath


def error_class(kind: str) -> Type[MemcapError]:
    """The class for a `tool-error` case (or JSON error kind)."""
    return BY_KIND.get(kind, IoFailure)
