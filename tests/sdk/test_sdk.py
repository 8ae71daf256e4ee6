"""The drop-in packages, installed from their built artifacts into fresh
environments as a user would, driven through each SDK's own tool runner.

Builds the Python wheel (bindings/python) and the npm tarball
(bindings/node, with the jco-transpiled component), installs each with the
SDK into a new venv / npm project, runs one scripted session
(session.json) through `tool_runner` / `toolRunner` with a mocked HTTP
transport, and checks that both send back exactly what `memcap call` gives
for the same inputs and leave the same files. Then runs each package's API
checks (api_python.py, api_node.mjs, and filesystem_node.mjs for the
file system the Node package serves the component) in the same environments and
compiles types_node.ts with `tsc --strict` against the installed packages.

    python test_sdk.py --memcap target/release/memcap --wasm dist/memcap.wasm --jco tests/hosts/node_modules/.bin/jco
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests/hosts"))
from compare import tree  # noqa: E402  (the file tree, `.memcap` left out)
SDK_PY = "anthropic==2.12.0"
SDK_JS = "@anthropic-ai/sdk@1.12.0"
TYPES_JS = ["typescript@5.9.3", "@types/node@20.19.43"]


def run(argv, **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", **kw)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed:\n{done.stdout}\n{done.stderr}")
    return done


def python_env(work: Path) -> Path:
    wheels = work / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", wheels, REPO / "bindings/python"])
    (wheel,) = wheels.glob("memcap-*.whl")
    venv = work / "venv"
    run([sys.executable, "-m", "venv", venv])
    python = venv / "bin/python"
    run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"{wheel}[anthropic]", SDK_PY])
    return python


def node_env(work: Path, jco: str, wasm: str) -> Path:
    package = REPO / "bindings/node"
    shutil.rmtree(package / "component", ignore_errors=True)
    run([jco, "transpile", wasm, "-o", package / "component", "--name", "memcap", "--instantiation", "async", "--quiet"])
    run(["npm", "pack", "--silent", "--pack-destination", work], cwd=package)
    (tarball,) = work.glob("memcap-*.tgz")
    project = work / "node"
    project.mkdir()
    (project / "package.json").write_text('{"name": "sdk-test", "private": true, "type": "module"}')
    run(["npm", "install", "--silent", "--no-audit", "--no-fund", tarball, SDK_JS, *TYPES_JS], cwd=project)
    for script in ("node_runner.mjs", "api_node.mjs", "filesystem_node.mjs", "types_node.ts"):
        shutil.copy(HERE / script, project / script)
    return project


def cli_results(memcap: str, session: list, root: Path) -> list:
    inputs = "".join(json.dumps(c) + "\n" for turn in session for c in turn)
    out = run([memcap, "--root", root, "call"], input=inputs).stdout.splitlines()
    results = iter(json.loads(line) for line in out)
    return [[next(results) for _ in turn] for turn in session]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--wasm", required=True)
    parser.add_argument("--jco", required=True)
    args = parser.parse_args()

    session = json.loads((HERE / "session.json").read_text(encoding="utf-8"))
    work = Path(tempfile.mkdtemp())
    python = python_env(work)
    project = node_env(work, str(Path(args.jco).resolve()), str(Path(args.wasm).resolve()))

    bases = {name: work / f"base-{name}" for name in ("python", "node", "cli")}
    got = {
        "python": json.loads(run([python, HERE / "python_runner.py", HERE / "session.json", bases["python"]]).stdout),
        "node": json.loads(run(["node", "node_runner.mjs", HERE / "session.json", bases["node"]], cwd=project).stdout),
        "cli": cli_results(args.memcap, session, bases["cli"] / "memories"),
    }
    failures = []
    for host in ("python", "node"):
        for turn, (mine, cli) in enumerate(zip(got[host], got["cli"])):
            if mine != cli:
                failures.append(f"{host} turn {turn}: {mine} != memcap call {cli}")
        if len(got[host]) != len(session):
            failures.append(f"{host}: {len(got[host])} turns answered, {len(session)} sent")
        if tree(bases[host] / "memories") != tree(bases["cli"] / "memories"):
            failures.append(f"{host}: files differ from memcap call's")
        mode = (bases[host] / "memories").stat().st_mode & 0o777
        if mode != 0o700:
            failures.append(f"{host}: the memory root is {oct(mode)}, not 0700")
    # The escape attempts failed and reached nothing: the only things made
    # in the work directory are the three bases and the environments.
    escapes = [r for turn in got["cli"] for r in turn if "escape" in r["content"] or "must start" in r["content"]]
    if len(escapes) != 2 or not all(r["is_error"] for r in escapes):
        failures.append(f"escape attempts were not refused: {escapes}")

    tsc = ["node_modules/.bin/tsc", "--noEmit", "--strict", "--module", "nodenext",
           "--moduleResolution", "nodenext", "--target", "es2022", "types_node.ts"]
    for label, argv, cwd in (("api_python.py", [python, HERE / "api_python.py", work / "api-python"], None),
                             ("api_node.mjs", ["node", "api_node.mjs", work / "api-node"], project),
                             ("filesystem_node.mjs", ["node", "filesystem_node.mjs", work / "fs-node"], project),
                             ("types_node.ts", tsc, project)):
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
        print(done.stdout, end="")
        if done.returncode != 0:
            failures.append(f"{label} failed:\n{done.stdout}{done.stderr}")

    turns = sum(len(t) for t in session)
    if failures:
        print("\n".join(failures))
        print(f"FAIL: {len(failures)} problems")
        return 1
    print(f"sdk runners: {turns} tool calls in {len(session)} turns, Python and Node packages = memcap call, files equal")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
