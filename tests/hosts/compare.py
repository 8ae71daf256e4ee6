"""The same memcap.wasm under other hosts gives memcap's own results.

Runs one script of tool calls through `memcap call` (memcap's wasmtime host),
Python's wasmtime (PyPI `wasmtime`) and Node (jco + preview2-shim), each on a
fresh directory, and compares every result and the final trees.

    python compare.py --memcap target/release/memcap --wasm dist/memcap.wasm \
        --transpiled target/jco
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
EXTRA = [
    {"command": "create", "path": "/memories/crlf.txt", "file_text": "a\r\nb\r\nc"},
    {"command": "str_replace", "path": "/memories/crlf.txt", "old_str": "b", "new_str": "B"},
    {"command": "insert", "path": "/memories/crlf.txt", "insert_line": 1, "insert_text": "é 😀\n"},
    {"command": "view", "path": "/memories/crlf.txt", "view_range": [2, -1]},
    {"command": "str_replace", "path": "/memories/crlf.txt", "old_str": "\r\n", "new_str": ""},
    {"command": "create", "path": "/memories/crlf.txt/child", "file_text": "x"},
    {"command": "rename", "old_path": "/memories/user", "new_path": "/memories/user/inner"},
    {"command": "rename", "old_path": "/memories/crlf.txt", "new_path": "/memories/deep/er/c.txt"},
    {"command": "delete", "path": "/memories/"},
    {"command": "create", "path": "/memoriesX.md", "file_text": "x"},
    {"command": "view", "path": "/memories/.memcap"},
    {"command": "insert", "path": "/memories/deep/er/c.txt", "insert_line": 99, "insert_text": "x"},
    {"command": "view", "path": "/memories"},
]


def tree(root: Path) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d != ".memcap"]
        for f in filenames:
            out[os.path.join(rel, f)] = Path(dirpath, f).read_bytes()
        for d in dirnames:
            out[os.path.join(rel, d) + "/"] = None
    return out


def serve(argv: list, inputs: str) -> list:
    done = subprocess.run(argv, input=inputs, capture_output=True, text=True, encoding="utf-8", check=False)
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines()]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--wasm", required=True)
    parser.add_argument("--transpiled", required=True)
    args = parser.parse_args()

    session = (HERE / "../../examples/session.jsonl").read_text().splitlines()
    lines = [l for l in session if l.strip()] + [json.dumps(c) for c in EXTRA]
    inputs = "\n".join(lines) + "\n"
    work = Path(tempfile.mkdtemp())
    dirs = {name: work / name for name in ("memcap", "python", "node")}
    for d in dirs.values():
        # The shape memcap's host gives a store (`.memcap` in the root), so the
        # root's size, which `view` shows, agrees on any file system (tmpfs
        # counts entries).
        (d / ".memcap").mkdir(parents=True)
    results = {
        "memcap": serve([args.memcap, "--root", str(dirs["memcap"]), "call"], inputs),
        "python": serve([sys.executable, str(HERE / "run_python.py"), args.wasm, str(dirs["python"])], inputs),
        "node": serve(["node", str(HERE / "run_node.mjs"), args.transpiled, str(dirs["node"])], inputs),
    }
    passed = failed = 0
    for host in ("python", "node"):
        if len(results[host]) != len(lines):
            print(f"MISMATCH {host}: {len(results[host])} results for {len(lines)} inputs")
            failed += 1
            continue
        for line, ours, theirs in zip(lines, results["memcap"], results[host]):
            if ours == theirs:
                passed += 1
            else:
                failed += 1
                print(f"MISMATCH {host} on {line}\n  memcap: {ours}\n  {host}: {theirs}")
        if tree(dirs[host]) == tree(dirs["memcap"]):
            passed += 1
        else:
            failed += 1
            print(f"MISMATCH {host}: final tree differs")
    assert any(r["is_error"] for r in results["memcap"]) and not all(r["is_error"] for r in results["memcap"])
    print(f"hosts: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
