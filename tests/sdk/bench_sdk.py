"""The drop-in packages against the SDKs' own local-filesystem memory tools:
`view` and `create` per-call latency (median), import and first-call time,
each package installed from its artifact into a fresh environment (as in
test_sdk.py). Ratios are within one run.

    python bench_sdk.py --wasm dist/memcap.wasm --jco tests/hosts/node_modules/.bin/jco [--calls 300]
"""

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from test_sdk import HERE, node_env, python_env


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wasm", required=True)
    parser.add_argument("--jco", required=True)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp())
    python = python_env(work)
    project = node_env(work, str(Path(args.jco).resolve()), str(Path(args.wasm).resolve()))
    shutil.copy(HERE / "bench_node.mjs", project)
    rows = {}
    for name, argv, cwd in (
        ("Python", [python, HERE / "bench_python.py", work / "bench-py", str(args.calls)], None),
        ("Node", ["node", "bench_node.mjs", work / "bench-node", str(args.calls)], project),
    ):
        out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True).stdout
        rows[name] = json.loads(out)
    print(f"{args.calls} calls each; medians in ms; ratio = memcap / SDK")
    print("| package | view memcap | view SDK | ratio | create memcap | create SDK | ratio | import | first call |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        m, s = r["memcap"], r["sdk"]
        print(f"| {name} | {m['view_p50_ms']} | {s['view_p50_ms']} | {m['view_p50_ms'] / s['view_p50_ms']:.1f}x "
              f"| {m['create_p50_ms']} | {s['create_p50_ms']} | {m['create_p50_ms'] / s['create_p50_ms']:.1f}x "
              f"| {m['import_ms']} | {m['first_call_ms']} |")
    node = rows["Node"]
    ratio = node["memcap"]["create_p50_ms"] / node["sdk"]["create_p50_ms"]
    print(f"Node package's create: {ratio:.1f}x the TypeScript SDK's: target <= 3x "
          f"{'met' if ratio <= 3 else 'MISSED'}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
