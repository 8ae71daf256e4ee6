"""How long each view of the page takes at 10,000 and 100,000 notes, on a
directory (or --store, a database): every note links to two others and
has two versions, so the graph, history and search have real work. Prints
the median and worst of 7 loads per view, timed at the client over
loopback (an upper bound on the server's time), after one warm-up load.

    python tests/ui/bench_ui.py --memcap target/release/memcap [--notes 10000,100000] [--store URL]
"""

from __future__ import annotations

import argparse
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


def measure(memcap: str, where: list[str], n: int) -> None:
    port = free_port()
    proc = subprocess.Popen([memcap, *where, "ui", "--listen", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        link = proc.stdout.readline().strip()
        with httpx2.Client(timeout=120, follow_redirects=False) as http:
            r = http.get(link)
            cookie = r.cookies.get("memcap_ui")
            root = link.split("/ui/")[0] + "/ui"
            print(f"\n{n} notes:")
            print(f"  {'view':26} {'median ms':>10} {'worst ms':>9}")
            for name, path in VIEWS:
                times = []
                for k in range(8):
                    t = time.perf_counter()
                    r = http.get(root + path, cookies={"memcap_ui": cookie})
                    took = (time.perf_counter() - t) * 1000
                    assert r.status_code == 200, (path, r.status_code, r.text[:300])
                    if k:
                        times.append(took)
                print(f"  {name:26} {statistics.median(times):10.1f} {max(times):9.1f}")
    finally:
        proc.terminate()
        proc.wait(30)


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
