"""Per-call latency of Anthropic's reference memory tool (anthropic 2.12.0),
for `cargo bench --bench latency`: the same workload as the Rust side.
Prints one JSON object: operation -> median microseconds."""

import json
import statistics
import sys
import tempfile
import time

from anthropic.lib.tools._beta_builtin_memory_tool import BetaLocalFilesystemMemoryTool

n = int(sys.argv[1])
tool = BetaLocalFilesystemMemoryTool(base_path=tempfile.mkdtemp(dir=sys.argv[2]))
tool.call({"command": "create", "path": "/memories/note.md", "file_text": "alpha\n" + "line\n" * 20})
tool.call({"command": "create", "path": "/memories/ins.md", "file_text": ""})
tool.call({"command": "create", "path": "/memories/r0.md", "file_text": "r"})
for i in range(20):
    tool.call({"command": "create", "path": f"/memories/dir/f{i}.md", "file_text": "x"})


def median_us(make):
    samples = []
    for i in range(n):
        command = make(i)
        start = time.perf_counter()
        tool.call(command)
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


swap = ("alpha", "omega")
print(json.dumps({
    "view file": median_us(lambda i: {"command": "view", "path": "/memories/note.md"}),
    "view dir": median_us(lambda i: {"command": "view", "path": "/memories"}),
    "create": median_us(lambda i: {"command": "create", "path": f"/memories/new/{i}.md", "file_text": "hello\n"}),
    "str_replace": median_us(lambda i: {"command": "str_replace", "path": "/memories/note.md",
                                        "old_str": swap[i % 2], "new_str": swap[(i + 1) % 2]}),
    "insert": median_us(lambda i: {"command": "insert", "path": "/memories/ins.md", "insert_line": 0, "insert_text": "x"}),
    "rename": median_us(lambda i: {"command": "rename", "old_path": f"/memories/r{i % 2}.md",
                                   "new_path": f"/memories/r{(i + 1) % 2}.md"}),
    "delete": median_us(lambda i: {"command": "delete", "path": f"/memories/new/{i}.md"}),
}))
