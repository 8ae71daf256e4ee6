"""Nothing above the backend seam names a kind of store: outside
`host/src/backend/`, `host/src/location.rs` and the builder
(`host/src/memory/builder.rs`), no source names a `Location` variant or a
backend's module. Prints each line that does and fails.

    python3 tests/arch/seam.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host" / "src"
ALLOWED = ("backend/", "location.rs", "memory/builder.rs")
KIND = re.compile(r"Location::(Database|Directory|InMemory)\b|backend::(database|directory|in_memory)\b")


def main() -> int:
    files = sorted(HOST.rglob("*.rs"))
    if not files:
        print("seam: no host sources found", file=sys.stderr)
        return 1
    found = []
    for path in files:
        rel = path.relative_to(HOST).as_posix()
        if rel.startswith(ALLOWED):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if KIND.search(line):
                found.append(f"host/src/{rel}:{n}: {line.strip()}")
    for line in found:
        print(line)
    if found:
        print(f"seam: {len(found)} line(s) above the backend seam name a kind of store; "
              "move the code behind `Backend`, `Location` or the builder", file=sys.stderr)
        return 1
    print(f"seam: ok ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
