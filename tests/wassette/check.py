"""The manual Wassette check (Wassette is on no package registry, so this
stays out of CI): serve memcap's Wassette flavour with a policy granting one
directory, list the tools, call each one, and try to reach past the grant
(`..`, a symlink inside the grant pointing out, an absolute host path, a
create through that symlink).

    python tests/wassette/check.py PATH/TO/wassette dist/memcap-tools.wasm

Needs PyPI `mcp` (tests/requirements.txt). Prints every tool and result,
then whether anything outside the grant was read or written.
"""

import asyncio
import json
import os
import shutil
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

WASSETTE, WASM = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp()
plugins, store = os.path.join(work, "plugins"), os.path.join(work, "memories")
os.makedirs(plugins)
os.makedirs(store)
secret = os.path.join(work, "secret.txt")
with open(secret, "w") as f:
    f.write("outside the grant")
# Wassette (v0.2.0) takes the component id from the file name.
shutil.copy(WASM, os.path.join(plugins, "memcap.wasm"))
with open(os.path.join(plugins, "memcap.policy.yaml"), "w") as f:
    f.write(f'version: "1.0"\npermissions:\n  storage:\n    allow:\n'
            f'      - uri: "fs://{store}"\n        access: ["read", "write"]\n')
os.symlink(work, os.path.join(store, "up"))

CALLS = [
    ("file-create", {"path": "/memories/notes/a.md", "file-text": "hello\nworld\n"}),
    ("file-view", {"path": "/memories", "view-range": None}),
    ("file-str-replace", {"path": "/memories/notes/a.md", "old-str": "world", "new-str": "there"}),
    ("file-insert", {"path": "/memories/notes/a.md", "insert-line": 0, "insert-text": "top"}),
    ("file-view", {"path": "/memories/notes/a.md", "view-range": [1, 2]}),
    ("file-rename", {"old-path": "/memories/notes/a.md", "new-path": "/memories/notes/b.md"}),
    ("memory-write", {"filename": "db", "name": "DB", "description": "which db", "type": "project",
                      "content": "Postgres 16"}),
    ("memory-update", {"filename": "db", "old-str": "16", "new-str": "17"}),
    ("memory-read", {"topics": ["db"], "page": None}),
    ("memory-view", {"all": True, "page": None}),
    ("prompt", {}),
    ("memory-delete", {"filename": "db"}),
    ("file-delete", {"path": "/memories/notes/b.md"}),
]
ESCAPES = [
    ("file-view", {"path": "/memories/../secret.txt", "view-range": None}),
    ("file-view", {"path": "/memories/up/secret.txt", "view-range": None}),
    ("file-view", {"path": secret, "view-range": None}),
    ("file-create", {"path": "/memories/up/evil.txt", "file-text": "x"}),
]


async def main() -> bool:
    params = StdioServerParameters(command=WASSETTE, args=["serve", "--stdio", "--plugin-dir", plugins])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for tool in (await session.list_tools()).tools:
                print("TOOL", tool.name, "|", (tool.description or "")[:60].replace("\n", " "))
            leaked = False
            for name, args in CALLS + ESCAPES:
                result = await session.call_tool(name, args)
                text = " ".join(c.text for c in result.content if hasattr(c, "text"))
                print("CALL", name, json.dumps(args)[:70], "->", text[:160].replace("\n", "\\n"))
                if (name, args) in ESCAPES and ("outside the grant" in text or '"ok"' in text):
                    leaked = True
            leaked |= os.path.exists(os.path.join(work, "evil.txt"))
            return not leaked


ok = asyncio.run(main())
shutil.rmtree(work)
print("PASS: nothing outside the grant was read or written" if ok else "FAIL: the guest reached past its grant")
sys.exit(0 if ok else 1)
