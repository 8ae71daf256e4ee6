"""How long each view of the page takes at 10,000 and 100,000 notes, on a
directory (or --store, a database): every note links to two others and
has two versions, so the graph, history and search have real work. Prints
the median and worst of 7 loads per view, timed at the client over
loopback (an upper bound on the server's time), after one warm-up load.
Then the diff of two versions whose every line differs, at 40,000 lines
(past the page's bound: answered "too large") and at 19,000 (within it:
compared until the deadline).

    python tests/ui/bench_ui.py --memcap target/release/memcap [--notes 10000,100000] [--store URL]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "mcp"))
from team_harness import free_port  # noqa: E402
sys.path.insert(0, str(HERE))
from pagehttp import owner_session, request  # noqa: E402

VIEWS = [
    ("overview", "/"),
    ("folder (100 entries)", "/files/n/d7/"),
    ("folder of folders", "/files/n/"),
    ("note", "/files/n/d7/note-742.md"),
    ("raw", "/files/n/d7/note-742.md?raw=1"),
    ("search", "/search?q=widget+742+budget"),
    ("graph depth 2", "/graph/n/d7/note-742.md?depth=2"),
    ("note history", "/history/n/d7/note-742.md"),
    ("folder history", "/history/n/d7/"),
    ("whole history", "/history/"),
    ("whole history, older page", "/history/?before=5000"),
    ("edit", "/edit/n/d7/note-742.md"),
]


def note(i: int, n: int) -> str:
    d, e = (i * 7 + 3) % n, (i * 13 + 5) % n
    return (f"---\nname: Note {i}\ntype: project\n---\n# Note {i}\n\nThe widget {i} budget is {i % 97} units.\n\n"
            f"- [fact] widget {i} ships in week {i % 52} #w{i % 10}\n"
            f"- depends_on [[n/d{d // 100}/note-{d}]]\n- relates_to [[n/d{e // 100}/note-{e}]]\n")


def fill(memcap: str, where: list[str], n: int) -> None:
    """n notes written as files and copied in (one commit), then each
    changed once through memcap for a second version of every note."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "src")
        for i in range(n):
            f = src / "n" / f"d{i // 100}" / f"note-{i}.md"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(note(i, n))
        subprocess.run([memcap, "copy", str(src), f"{where[1]}#{where[3]}" if where[0] == "--store" else where[1], "--replace"],
                       check=True, capture_output=True)
    edits = "".join(
        '{"command":"str_replace","path":"/memories/n/d%d/note-%d.md","old_str":"units.","new_str":"units, reviewed."}\n'
        % (i // 100, i) for i in range(0, n, max(1, n // 2000)))
    subprocess.run([memcap, *where, "--actor", "reviewer", "call"], input=edits, check=True, capture_output=True, text=True)


def timed(fetch, rounds: int):
    """Milliseconds of each of `rounds` loads after the first (a warm-up),
    and the last answer; every answer must be 200."""
    times, r = [], None
    for k in range(rounds):
        t = time.perf_counter()
        r = fetch()
        took = (time.perf_counter() - t) * 1000
        assert r.status_code == 200, (r.status_code, r.text[:300])
        if k:
            times.append(took)
    return times, r


@contextlib.contextmanager
def owner_page(memcap: str, where: list[str]):
    """`memcap ui` on the store `where` names, signed in as its owner:
    yields the page's root (`…/ui`) and the session."""
    port = free_port()
    proc = subprocess.Popen([memcap, *where, "ui", "--listen", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        link = proc.stdout.readline().strip()
        yield link.split("/ui/")[0] + "/ui", owner_session(link)
    finally:
        proc.terminate()
        proc.wait(30)


def measure(memcap: str, where: list[str], n: int) -> None:
    with owner_page(memcap, where) as (root, session), httpx2.Client(timeout=120, follow_redirects=False) as http:
        print(f"\n{n} notes:")
        print(f"  {'view':26} {'median ms':>10} {'worst ms':>9}")
        for name, path in VIEWS:
            times, _ = timed(lambda: request("GET", root + path, session, client=http), 8)
            print(f"  {name:26} {statistics.median(times):10.1f} {max(times):9.1f}")


def measure_diffs(memcap: str) -> None:
    print("\ndiff of two versions, every line different:")
    print(f"  {'lines a side':26} {'median ms':>10} {'worst ms':>9}  answer")
    for lines in (40_000, 19_000):
        with tempfile.TemporaryDirectory() as tmp:
            where = ["--root", str(Path(tmp, "m"))]
            old, new = ("".join(f"line {i} {tag} {i * 7919 % 1000}\n" for i in range(lines)) for tag in ("old", "new"))
            subprocess.run([memcap, *where, "create", "/memories/big.md"], input=old, check=True,
                           capture_output=True, text=True)
            edit = json.dumps({"command": "str_replace", "path": "/memories/big.md", "old_str": old, "new_str": new})
            subprocess.run([memcap, *where, "call"], input=edit + "\n", check=True, capture_output=True, text=True)
            listed = subprocess.run([memcap, *where, "history", "list", "/memories/big.md", "--json"],
                                    check=True, capture_output=True, text=True).stdout
            a, b = sorted(json.loads(line)["version"] for line in listed.splitlines())
            with owner_page(memcap, where) as (root, session):
                times, r = timed(lambda: request("GET", f"{root}/history/big.md?a={a}&b={b}", session), 6)
            answer = "too large" if "too large" in r.text else "in time" if 'class="add"' in r.text else "deadline"
            print(f"  {lines:<26} {statistics.median(times):10.1f} {max(times):9.1f}  {answer}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--notes", default="10000,100000")
    parser.add_argument("--store")
    args = parser.parse_args()
    memcap = str(Path(args.memcap).resolve())
    for n in [int(x) for x in args.notes.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            where = ["--store", args.store, "--namespace", f"bench{n}x{int(time.time())}"] if args.store else ["--root", str(Path(tmp, "m"))]
            started = time.perf_counter()
            fill(memcap, where, n)
            print(f"(filled {n} notes in {time.perf_counter() - started:.0f} s)")
            measure(memcap, where, n)
    if not args.store:
        measure_diffs(memcap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
