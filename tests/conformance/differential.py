"""Differential conformance: memcap against Anthropic's reference memory tool.

Runs seeded random command sequences on `BetaLocalFilesystemMemoryTool`
(PyPI anthropic==2.12.0, the truth) and on `memcap call`, step by step, and
compares each result's content and is_error and the file trees after each step.
Every difference must be one of memcap's documented deviations (README,
"Deviations from the reference"); anything else fails the run.

    python differential.py --memcap target/release/memcap --sequences 2000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import unicodedata
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from anthropic.lib.tools import ToolError
from anthropic.lib.tools._beta_builtin_memory_tool import BetaLocalFilesystemMemoryTool
from anthropic.lib.tools._tool_dispatch import tool_error_content, tool_result_content

import anthropic

ROOT = "/memories"

# --- the reference, rendered as the SDK's tool runner renders it -------------


def run_reference(tool: BetaLocalFilesystemMemoryTool, command: dict) -> tuple[str, bool]:
    try:
        return tool_result_content(tool.call(command)), False
    except Exception as exc:  # the runner turns every exception into a result
        return tool_error_content(exc), True


def is_repr_error(content: str) -> bool:
    """True for a non-ToolError exception rendered with repr (raw OS text)."""
    return re.match(r"^[A-Za-z]+(Error|Exception)\(", content) is not None


# --- memcap ------------------------------------------------------------------


def store_options(root: Path, store: str | None, namespace: str) -> list[str]:
    """The options that give memcap its store: the directory `root`, or the
    database namespace `namespace` (whose tree `export` copies to `root`)."""
    if store is None:
        return ["--root", str(root)]
    return ["--store", store, "--namespace", namespace]


def export(binary: str, root: Path, store: str | None, namespace: str) -> None:
    """On a database store, makes `root` hold the namespace's tree."""
    if store is not None:
        subprocess.run(
            [binary, "copy", f"{store}#{namespace}", str(root), "--replace"],
            check=True,
            stdout=subprocess.DEVNULL,
        )


class Memcap:
    def __init__(self, binary: str, options: list[str]):
        self.proc = subprocess.Popen(
            [binary, *options, "call"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def call(self, command: dict) -> tuple[str, bool]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"memcap call exited (status {self.proc.wait()})")
        result = json.loads(line)
        assert set(result) == {"content", "is_error"}, result
        return result["content"], result["is_error"]

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        if self.proc.wait(timeout=30) != 0:
            raise RuntimeError("memcap call exited with an error")


class McpMemcap:
    """The same calls through `memcap mcp` and its `memory` tool, with the
    official MCP client."""

    def __init__(self, binary: str, options: list[str]):
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mcp"))
        from client import McpMemory

        self.server = McpMemory(binary, [*options, "--no-watch"])

    def call(self, command: dict) -> tuple[str, bool]:
        text, is_error, _ = self.server.call("memory", command)
        return text, is_error

    def close(self) -> None:
        self.server.close()


# --- trees ---------------------------------------------------------------------


def tree(root: Path) -> dict[str, bytes | None]:
    """Relative path -> bytes (files) or None (directories); skips .memcap."""
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d != ".memcap"]
        for d in dirnames:
            out[os.path.normpath(os.path.join(rel_dir, d))] = None
        for f in filenames:
            out[os.path.normpath(os.path.join(rel_dir, f))] = Path(dirpath, f).read_bytes()
    return out


def without_index(files: dict[str, bytes | None]) -> dict[str, bytes | None]:
    """memcap's tree without the index it keeps, /memories/MEMORY.md."""
    return {k: v for k, v in files.items() if k != INDEX}


def unlisted_index(content: str) -> str:
    """A listing without the line of memcap's index file."""
    return re.sub(r"\n[^\t\n]+\t/memories/(?:\./|/)?MEMORY\.md(?=\n|$)", "", content)


def copy_tree(src: Path, dst: Path) -> None:
    """Makes dst hold exactly src's tree (memcap's reserved directory and
    index left out)."""
    for entry in dst.iterdir():
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    for entry in src.iterdir():
        if entry.name in (".memcap", INDEX):
            continue
        if entry.is_dir():
            shutil.copytree(entry, dst / entry.name)
        else:
            shutil.copy2(entry, dst / entry.name)


INDEX = "MEMORY.md"

# --- the generator -------------------------------------------------------------

NAMES = [
    "notes.txt", "todo.md", "a", "b.md", "dir", "sub", "x", "é.md", "😀.txt", "my notes.md",
    "Zeta.txt", "10.txt", "9.txt", ".hidden", "node_modules", "_u.txt", "~t.txt", "%2e%2e",
    "back\\slash", "CON", "data.json",
]
PIECES = [
    "Line 1\n", "Line 2\n", "Line 3", "hello", "world", "\n", "\r\n", "\r", "", "é", "😀", "\t",
    "aa", "a", "x\ny\n", "  indented\n", "- [ ] task\n", "# Title\n", "\ufeff", "Ａ", "same\nsame\n",
    "The user prefers tabs.\n", "\n\n",
]
BAD_PATHS = ["", "/", "memories/x", "/etc/passwd", "/Memories/x", "/memorie", "\\memories\\x", "C:\\x"]


def text(rng: random.Random, max_pieces: int = 8) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, max_pieces)))


def spell(rng: random.Random, rel: str) -> str:
    """A valid spelling of /memories/<rel> in one of the forms the SDK accepts."""
    form = rng.random()
    if form < 0.7 or not rel:
        return f"{ROOT}/{rel}" if rel else rng.choice([ROOT, ROOT + "/", ROOT + "//", ROOT + "/."])
    if form < 0.8:
        return f"{ROOT}//{rel}"
    if form < 0.87:
        return f"{ROOT}/./{rel}"
    if form < 0.94:
        return f"{ROOT}/{rel}/"
    return f"{ROOT}/zz/../{rel}"


class Generator:
    def __init__(self, rng: random.Random, sdk_root: Path):
        self.rng = rng
        self.sdk_root = sdk_root

    def existing(self) -> tuple[list[str], list[str]]:
        files, dirs = [], []
        for rel, content in tree(self.sdk_root).items():
            (dirs if content is None else files).append(rel)
        return sorted(files), sorted(dirs)

    def rel(self, files: list[str], dirs: list[str], want_file: bool = True) -> str:
        r = self.rng.random()
        pool = files if want_file else dirs
        if pool and r < 0.6:
            return self.rng.choice(pool)
        if dirs and r < 0.8:
            return f"{self.rng.choice(dirs)}/{self.rng.choice(NAMES)}"
        depth = self.rng.choice([1, 1, 1, 2, 3])
        return "/".join(self.rng.choice(NAMES) for _ in range(depth))

    def path(self, files: list[str], dirs: list[str], want_file: bool = True) -> str:
        if self.rng.random() < 0.04:
            return self.rng.choice(BAD_PATHS)
        return spell(self.rng, self.rel(files, dirs, want_file))

    def command(self) -> dict:
        rng = self.rng
        files, dirs = self.existing()
        kind = rng.choices(
            ["view", "create", "str_replace", "insert", "delete", "rename", "guarded", "malformed", "deviant"],
            [24, 24, 20, 14, 6, 7, 5, 2, 3],
        )[0]
        if kind == "view":
            if rng.random() < 0.1:
                path = rng.choice([ROOT, f"{ROOT}/", f"{ROOT}/."])
            else:
                path = self.path(files, dirs, rng.random() < 0.7)
            cmd: dict = {"command": "view", "path": path}
            r = rng.random()
            if r < 0.3:
                a, b = rng.randint(-3, 12), rng.choice([-1, -1, -2, rng.randint(-3, 14)])
                cmd["view_range"] = [a, b]
            elif r < 0.35:
                cmd["view_range"] = rng.choice([None, [], [2], [1, 2, 3], [1, 2**63], [2**63, -1]])
            return cmd
        if kind == "create":
            return {"command": "create", "path": self.path(files, dirs, rng.random() < 0.2), "file_text": text(rng)}
        if kind == "str_replace":
            path_rel = self.rel(files, dirs)
            old = self.substring(path_rel) if rng.random() < 0.75 else text(rng, 2)
            return {"command": "str_replace", "path": spell(rng, path_rel), "old_str": old, "new_str": text(rng, 3)}
        if kind == "insert":
            path_rel = self.rel(files, dirs)
            lines = self.line_count(path_rel)
            return {
                "command": "insert",
                "path": spell(rng, path_rel),
                "insert_line": rng.randint(-2, lines + 2),
                "insert_text": text(rng, 3),
            }
        if kind == "delete":
            return {"command": "delete", "path": self.path(files, dirs, rng.random() < 0.6)}
        if kind == "rename":
            return {
                "command": "rename",
                "old_path": self.path(files, dirs, rng.random() < 0.6),
                "new_path": self.path(files, dirs, rng.random() < 0.2),
            }
        if kind == "guarded":
            return self.guarded(files, dirs)
        if kind == "malformed":
            return rng.choice([
                {"command": "view", "path": spell(rng, self.rel(files, dirs)), "extra": 1},
                {"command": "delete", "path": spell(rng, self.rel(files, dirs)),
                 "precondtion": {"type": "content_sha256", "content_sha256": STALE}},
                {"command": "create", "path": spell(rng, "m.txt")},
                {"command": "str_replace", "path": spell(rng, self.rel(files, dirs)), "old_str": "a"},
                {"command": "insert", "path": spell(rng, self.rel(files, dirs)), "insert_line": 0},
                {"command": "view"},
                {"command": "view", "path": 7},
                {"command": "fly", "path": ROOT},
                {"path": ROOT},
                {"command": "view", "path": spell(rng, self.rel(files, dirs)), "view_range": [1.5, 2]},
            ])
        return self.deviant(files, dirs)

    def deviant(self, files: list[str], dirs: list[str]) -> dict:
        rng = self.rng
        rel = self.rel(files, dirs)
        path = rng.choice([
            f"{ROOT}{rel}", f"{ROOT}_backup/{rel}", f"{ROOT}/../{ROOT[1:]}/{rel}", f"{ROOT}/../x",
            f"{ROOT}/a/../../x", f"{ROOT}/.memcap/{rel}", f"{ROOT}/.memcap", f"{ROOT}/{'n' * 300}",
            f"{ROOT}/.MEMCAP/{rel}", f"{ROOT}/.Memcap", f"{ROOT}/.memcap./x", f"{ROOT}/.memcap /x", f"{ROOT}/MEMCAP~1/x",
            f"{ROOT}/nul\u0000.txt", f"{ROOT}/line\nbreak.md", f"{ROOT}/tab\there",
            f"{ROOT}/rlo\u202egpj.md", f"{ROOT}/zero\u200bwidth.md", f"{ROOT}/esc\u001b[31m.md",
        ])
        return rng.choice([
            {"command": "view", "path": path},
            {"command": "create", "path": path, "file_text": "x"},
            {"command": "delete", "path": path},
            {"command": "rename", "old_path": path, "new_path": spell(rng, "moved")},
            {"command": "rename", "old_path": spell(rng, rel), "new_path": path},
            {"command": "str_replace", "path": path, "old_str": "a", "new_str": "b"},
        ])

    def guarded(self, files: list[str], dirs: list[str]) -> dict:
        """A write with a content_sha256 precondition on an existing text file:
        mostly the file's true hash (the reference ignores the field, memcap
        checks it, and both must act alike), sometimes a stale one (memcap's
        conflict, a deviation)."""
        rng = self.rng
        rel = self.rel(files, dirs)
        digest = self.sha256(rel)
        if digest is None:
            return {"command": "view", "path": spell(rng, rel)}
        path = spell(rng, rel)
        cmd = rng.choice([
            {"command": "str_replace", "path": path, "old_str": self.substring(rel), "new_str": text(rng, 3)},
            {"command": "insert", "path": path, "insert_line": rng.randint(0, self.line_count(rel)), "insert_text": text(rng, 3)},
            {"command": "delete", "path": path},
            {"command": "rename", "old_path": path, "new_path": self.path(files, dirs, rng.random() < 0.2)},
        ])
        cmd["precondition"] = {"type": "content_sha256", "content_sha256": STALE if rng.random() < 0.25 else digest}
        return cmd

    def sha256(self, rel: str) -> str | None:
        """The hash of a regular text file (not a link, not MEMORY.md), else None."""
        path = self.sdk_root / rel
        if rel == INDEX or path.is_symlink() or not path.is_file():
            return None
        try:
            data = path.read_bytes()
            data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return None if b"\0" in data else hashlib.sha256(data).hexdigest()

    def substring(self, rel: str) -> str:
        try:
            content = (self.sdk_root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return text(self.rng, 2)
        if not content:
            return ""
        i = self.rng.randrange(len(content))
        return content[i : i + self.rng.randint(0, 12)]

    def line_count(self, rel: str) -> int:
        try:
            return (self.sdk_root / rel).read_text(encoding="utf-8").count("\n") + 1
        except (OSError, UnicodeDecodeError):
            return 3


# --- deviations ----------------------------------------------------------------


# A hash no file here has: a precondition on content that moved on.
STALE = "0" * 64

FIELDS = {
    "view": {"path": str},
    "create": {"path": str, "file_text": str},
    "str_replace": {"path": str, "old_str": str, "new_str": str},
    "insert": {"path": str, "insert_line": int, "insert_text": str},
    "delete": {"path": str},
    "rename": {"old_path": str, "new_path": str},
}


def malformed(command: dict) -> bool:
    """Missing or mistyped fields, or an unknown command: memcap checks the
    input's shape first, where the reference fails later (or half-acts)."""
    fields = FIELDS.get(command.get("command"))
    if fields is None:
        return True
    if unknown_field(command):
        return True
    if any(not isinstance(command.get(k), t) or isinstance(command.get(k), bool) for k, t in fields.items()):
        return True
    vr = command.get("view_range")
    return isinstance(vr, list) and len(vr) == 2 and not all(isinstance(v, int) for v in vr)


def unknown_field(command: dict) -> bool:
    """A field the command does not take, which the reference drops unread and
    memcap refuses (a misspelled precondition must not pass unnoticed)."""
    name = command.get("command")
    known = {"command", *FIELDS.get(name, {})}
    known |= {"view_range"} if name == "view" else {"precondition"}
    return any(k not in known for k in command)


INVISIBLE = set("\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff")


def unsafe_name(path: str) -> bool:
    """A control or invisible character, which memcap refuses in new names."""
    return any(unicodedata.category(c) == "Cc" or c in INVISIBLE for c in path)



# Code points HFS+ ignores in names; with case folding, an NTFS stream
# suffix, trailing dots and spaces and the 8.3 short name, what memcap
# folds before it compares a name with `.memcap` (core/src/layout.rs).
IGNORABLE = {*range(0x200C, 0x2010), *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF}


def reserved_name(name: str) -> bool:
    folded = "".join(c for c in name if ord(c) not in IGNORABLE).split(":")[0].lower().rstrip(". ")
    return folded == ".memcap" or re.fullmatch(r"memcap~[1-9]", folded) is not None


def deviation(command: dict) -> str | None:
    """The documented deviation an input falls under, judged from the input
    alone; such inputs are sent to memcap only, since the reference would act
    on them (and so change its tree) where memcap refuses."""
    if malformed(command):
        return "malformed-input-checked-first"
    for key in ("path", "old_path", "new_path"):
        value = command.get(key)
        if not isinstance(value, str):
            continue
        if value.startswith(ROOT) and value[len(ROOT):][:1] not in ("", "/"):
            return "memoriesX-prefix"
        if "\u0000" in value:
            return "nul-in-path"
        parts: list[str] = []
        for part in value[len(ROOT):].split("/"):
            if part == "..":
                if not parts:
                    return "dotdot-above-root"
                parts.pop()
            elif part not in ("", "."):
                parts.append(part)
        if parts[:1] and reserved_name(parts[0]):
            return "reserved-dir"
        if any(len(p.encode()) > 255 for p in parts):
            return "long-name"
    # Checked after every path is parsed, as memcap does: a new name (create's
    # path, rename's destination) may not hold a control or invisible character.
    new_name = {"create": "path", "rename": "new_path"}.get(command.get("command"))
    if new_name and unsafe_name(command.get(new_name, "")):
        return "unsafe-new-name"
    if (command.get("precondition") or {}).get("content_sha256") == STALE:
        return "stale-precondition"
    return None


MEMCAP_MESSAGE = {
    "malformed-input-checked-first": r"^(Missing |Parameter |Unknown command: |Unknown parameter |Invalid tool input: )",
    "stale-precondition": r"^Conflict: the precondition content_sha256 0{64} does not hold for .*Nothing was changed",
    "memoriesX-prefix": r"^Path must be /memories or start with /memories/, got: ",
    "nul-in-path": r"contains a NUL character$",
    "dotdot-above-root": r"^Path .* would escape /memories directory$",
    "reserved-dir": r"is reserved for memcap's own files",
    "long-name": r"has a name longer than 255 bytes$",
    "unsafe-new-name": r"has a control or invisible character \(U\+[0-9A-F]{4}\) in a name",
}


def leaks(content: str, *roots: Path) -> bool:
    """Host paths or raw OS error text in a message."""
    return any(str(r) in content for r in roots) or re.search(r"os error|Errno|\(\d+, '", content) is not None


# --- the run -------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    work = Path(args.workdir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    stats: Counter[str] = Counter()
    failures: list[str] = []

    for seq in range(args.sequences):
        rng = random.Random(f"{args.seed}-{seq}")
        base = Path(tempfile.mkdtemp(dir=work))
        sdk_root, mc_root = base / "sdk" / "memories", base / "mc" / "memories"
        tool = BetaLocalFilesystemMemoryTool(base_path=str(base / "sdk"))
        # The SDK makes its root when constructed; so does memcap's library,
        # while its CLI leaves that to the first write (tested in `edges`).
        mc_root.mkdir(parents=True)
        namespace = f"differential-{os.getpid()}-{seq}"
        memcap = (McpMemcap if args.mcp else Memcap)(args.memcap, store_options(mc_root, args.store, namespace))
        gen = Generator(rng, sdk_root)
        try:
            for step in range(rng.randint(args.min_steps, args.max_steps)):
                command = gen.command()
                where = f"sequence {seq} step {step} (seed {args.seed}): {json.dumps(command)}"
                stats["steps"] += 1
                mc_content, mc_error = memcap.call(command)
                if leaks(mc_content, base) or (args.store and args.store in mc_content):
                    failures.append(f"{where}\n  memcap leaked host or OS text: {mc_content!r}")
                deviant = deviation(command)
                if deviant is not None:
                    stats[f"deviation:{deviant}"] += 1
                    if not mc_error or not re.search(MEMCAP_MESSAGE[deviant], mc_content):
                        failures.append(f"{where}\n  expected memcap's {deviant} error, got {mc_content!r}")
                    continue
                ref_content, ref_error = run_reference(tool, command)
                resync = False
                if ref_error and is_repr_error(ref_content):
                    # The SDK leaks a Python exception; memcap must give a clear error instead.
                    stats["deviation:typed-error-instead-of-repr"] += 1
                    if not mc_error:
                        failures.append(f"{where}\n  reference raised {ref_content!r}; memcap succeeded: {mc_content!r}")
                    resync = True
                elif (
                    (ref_content, ref_error) != (mc_content, mc_error)
                    and (ref_content, ref_error) == (unlisted_index(mc_content), mc_error)
                ):
                    # memcap keeps the index /memories/MEMORY.md, so listings of the
                    # root show one line more.
                    stats["deviation:index-file-in-listing"] += 1
                elif (ref_content, ref_error) != (mc_content, mc_error):
                    failures.append(
                        f"{where}\n  reference: {ref_error} {ref_content!r}\n  memcap:    {mc_error} {mc_content!r}"
                    )
                    resync = True
                else:
                    stats["identical"] += 1
                    if "precondition" in command:
                        stats["identical-with-precondition"] += 1
                export(args.memcap, mc_root, args.store, namespace)
                ref_tree, mc_tree = tree(sdk_root), tree(mc_root)
                if INDEX in mc_tree and INDEX not in ref_tree:
                    stats["index-file-kept"] += 1
                    mc_tree = without_index(mc_tree)
                if ref_tree != mc_tree:
                    if (
                        command.get("command") == "rename"
                        and ref_error
                        and ref_content.startswith("The path ")
                        and all(v is None for k, v in ref_tree.items() if k not in mc_tree)
                        and all(k in ref_tree for k in mc_tree)
                    ):
                        # The SDK makes the destination's parents before finding the
                        # source missing; memcap leaves nothing behind.
                        stats["deviation:failed-rename-leaves-no-dirs"] += 1
                    elif not resync:
                        diff = sorted(set(ref_tree.items()) ^ set(mc_tree.items()))[:6]
                        failures.append(f"{where}\n  trees differ: {diff}")
                    copy_tree(mc_root, sdk_root)
                if len(failures) >= args.max_failures:
                    break
        finally:
            memcap.close()
            shutil.rmtree(base, ignore_errors=True)
        stats["sequences"] += 1
        if len(failures) >= args.max_failures:
            break

    if stats["sequences"] >= 50 and not failures:
        for seen in ("identical-with-precondition", "deviation:stale-precondition"):
            if not stats[seen]:
                failures.append(f"the run never compared a {seen}: the generator no longer sends guarded writes")
    print(f"anthropic {anthropic.__version__} vs memcap: {stats['sequences']} sequences, {stats['steps']} steps")
    print(f"  identical results and trees: {stats['identical']}")
    print(f"    of them writes with the right content_sha256 precondition: {stats['identical-with-precondition']}")
    print(f"  steps after which memcap's tree also held its index MEMORY.md: {stats['index-file-kept']}")
    for key in sorted(k for k in stats if k.startswith("deviation:")):
        print(f"  {key[len('deviation:'):]}: {stats[key]}")
    for failure in failures[:20]:
        print(f"MISMATCH {failure}")
    print(f"differential: {stats['steps'] - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memcap", required=True, help="path to the memcap binary")
    parser.add_argument("--sequences", type=int, default=2000)
    parser.add_argument("--mcp", action="store_true", help="call memcap through `memcap mcp` and its memory tool (official MCP client) instead of `memcap call`")
    parser.add_argument("--seed", default="memcap")
    parser.add_argument("--store", help="a PostgreSQL URL: memcap keeps each sequence in a namespace there (the database backend)")
    parser.add_argument("--min-steps", type=int, default=5)
    parser.add_argument("--max-steps", type=int, default=25)
    parser.add_argument("--max-failures", type=int, default=50)
    parser.add_argument("--workdir", default="target/conformance")
    args = parser.parse_args()
    if anthropic.__version__ != "2.12.0":
        print(f"differential: needs anthropic==2.12.0, found {anthropic.__version__}", file=sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
