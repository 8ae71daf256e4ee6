"""Every Rust source file of the workspace stays within 800 lines (the
house rule: small single-purpose files). Prints each file over it and
fails; `--top N` lists the N longest.

    python3 tests/arch/file_lines.py [--top 10]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

LIMIT = 800
ROOT = Path(__file__).resolve().parents[2]
# Build output and vendored or generated trees are not ours to split.
SKIP = {"target", ".git", "node_modules", ".venv", "dist"}


def sources() -> list[Path]:
    found = []
    for path in ROOT.rglob("*.rs"):
        parts = set(path.relative_to(ROOT).parts)
        if not parts & SKIP:
            found.append(path)
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=0)
    args = parser.parse_args()
    counted = sorted(((sum(1 for _ in p.open(encoding="utf-8")), p) for p in sources()), reverse=True)
    if not counted:
        print("file_lines: no Rust sources found", file=sys.stderr)
        return 1
    for lines, path in counted[: args.top]:
        print(f"{lines:6}  {path.relative_to(ROOT)}")
    over = [(n, p) for n, p in counted if n > LIMIT]
    for lines, path in over:
        print(f"{path.relative_to(ROOT)}: {lines} lines, over {LIMIT}: split it by what it does", file=sys.stderr)
    if not over:
        print(f"{len(counted)} Rust files, none over {LIMIT} lines (longest {counted[0][0]})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
