"""Per-call latency of `view` and `create` through memcap's Python package
and through Anthropic's own `BetaLocalFilesystemMemoryTool`, in one
process, plus import and first-call time. Prints one JSON line.

    python bench_python.py WORKDIR CALLS
"""

import json
import statistics
import sys
import time
from pathlib import Path

work, calls = Path(sys.argv[1]), int(sys.argv[2])

start = time.perf_counter()
from memcap.anthropic import BetaLocalFilesystemMemoryTool as Memcap  # noqa: E402

imported = time.perf_counter() - start
from anthropic.tools import BetaLocalFilesystemMemoryTool as Sdk  # noqa: E402


def timed(tool, command) -> float:
    t = time.perf_counter()
    tool.call(command)
    return time.perf_counter() - t


def measure(tool) -> dict:
    creates = [timed(tool, {"command": "create", "path": f"/memories/n/{i}.md", "file_text": f"note {i}\n" * 5})
               for i in range(calls)]
    views = [timed(tool, {"command": "view", "path": f"/memories/n/{i % calls}.md"}) for i in range(calls)]
    ms = lambda xs: round(statistics.median(xs) * 1000, 3)  # noqa: E731
    return {"create_p50_ms": ms(creates), "view_p50_ms": ms(views)}


t = time.perf_counter()
memcap = Memcap(base_path=str(work / "memcap"))
memcap.call({"command": "view", "path": "/memories"})
first = time.perf_counter() - t
result = {"memcap": measure(memcap), "sdk": measure(Sdk(base_path=str(work / "sdk")))}
result["memcap"].update(import_ms=round(imported * 1000, 1), first_call_ms=round(first * 1000, 1))
print(json.dumps(result))
