"""Supersession, measured: topics of one old fact and a newer note that
replaces it, written as an agent writes notes, searched as an agent asks.

    python tests/bench/supersede.py --memcap target/release/memcap [--topics 240]

Two stores, each of --topics topics (and no other notes):
- "says supersedes": the newer note links the old one with
  `- supersedes [[Old Note]]`. Counts the topics whose old fact is in
  memory_search's top 5 (target 0) and whose newer note comes first
  (target >= 95%).
- "only contradicts": the same notes without that line. Counts the topics
  whose newer note comes first all the same (no target: the issue asks to
  say how many).
Each topic is asked two ways: by the old note's wording and by a plain
question. Exits 1 when a call fails, else 0 (figures, not a test).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile

from speed import Piped  # one warm `memcap call` process, as speed.py drives it

ENTITIES = [
    "billing api", "auth service", "search cluster", "payments team", "mobile app", "data lake",
    "ledger service", "image resizer", "email relay", "feature flags", "audit log", "web gateway",
    "report builder", "sync worker", "notification hub", "pricing engine", "support portal",
    "metrics pipeline", "identity broker", "export job", "cache tier", "chat backend",
    "onboarding flow", "fraud model", "invoice printer", "license server", "map tiles",
    "video encoder", "backup vault", "partner api", "tax calculator", "release train",
    "design system", "crash reporter", "job scheduler", "docs site", "build farm",
    "geo router", "consent service", "inventory sync",
]
ATTRIBUTES = [
    ("deploy target", ["eu-west-1", "us-east-2", "ap-south-1", "eu-central-1", "us-west-2", "sa-east-1"]),
    ("owner", ["Alice Moreau", "Bob Okafor", "Chen Wei", "Dana Silva", "Emil Novak", "Farah Aziz"]),
    ("database", ["Postgres 15", "MySQL 8", "CockroachDB", "DynamoDB", "SQLite", "Cassandra"]),
    ("on-call channel", ["#ops-red", "#ops-blue", "#pager-west", "#pager-east", "#infra-help", "#sre-core"]),
    ("release day", ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Sunday"]),
    ("monthly budget", ["4,000 USD", "7,500 USD", "12,000 USD", "2,300 USD", "18,000 USD", "950 USD"]),
]


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def topics(n: int) -> list[dict]:
    out = []
    for i in range(n):
        entity = ENTITIES[i % len(ENTITIES)]
        attr, values = ATTRIBUTES[(i // len(ENTITIES)) % len(ATTRIBUTES)]
        old, new = values[i % len(values)], values[(i * 7 + 3) % len(values)]
        if new == old:
            new = values[(values.index(old) + 1) % len(values)]
        name = f"{entity.title()} {attr}"
        out.append({
            "entity": entity, "attr": attr, "old": old, "new": new,
            "old_path": f"/memories/{slug(entity)}/{slug(attr)}.md",
            "new_path": f"/memories/{slug(entity)}/{slug(attr)}-update.md",
            "old_name": name,
        })
    return out


def note(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: project\n---\n\n{body}"


def fill(m: Piped, all_topics: list[dict], says: bool) -> None:
    for t in all_topics:
        m.call({"command": "create", "path": t["old_path"], "file_text": note(
            t["old_name"], f"{t['attr']} of the {t['entity']}",
            f"The {t['attr']} of the {t['entity']} is {t['old']}.\n\n"
            f"- [decision] {t['attr']} set to {t['old']} after review\n")})
    for t in all_topics:
        link = f"\n- supersedes [[{t['old_name']}]]\n" if says else ""
        m.call({"command": "create", "path": t["new_path"], "file_text": note(
            f"{t['old_name']} changed", f"new {t['attr']} of the {t['entity']}",
            f"The {t['attr']} of the {t['entity']} changed: it is {t['new']} now, "
            f"no longer {t['old']}.\n{link}")})


def ranks(m: Piped, all_topics: list[dict]) -> tuple[int, int, int]:
    """Over every topic asked both ways: (asked, old note in the top 5, new note first)."""
    asked = stale = first = 0
    for t in all_topics:
        for query in (f"{t['attr']} of the {t['entity']} is {t['old']}",
                      f"what is the {t['attr']} of the {t['entity']}"):
            answer = m.call({"command": "memory_search", "query": query, "maxResults": 5,
                             "minScore": 0.0})
            paths = [r["path"] for r in json.loads(answer["content"])["results"]]
            asked += 1
            stale += t["old_path"] in paths[:5]
            first += bool(paths) and paths[0] == t["new_path"]
    return asked, stale, first


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memcap", required=True)
    ap.add_argument("--topics", type=int, default=240)
    args = ap.parse_args()
    if args.topics < 200:
        sys.exit("--topics must be at least 200")
    all_topics = topics(args.topics)
    rows = []
    for says in (True, False):
        with tempfile.TemporaryDirectory(dir="/dev/shm" if sys.platform == "linux" else None) as root:
            m = Piped(args.memcap, root)
            fill(m, all_topics, says)
            asked, stale, first = ranks(m, all_topics)
            m.close()
        rows.append((says, asked, stale, first))
    print(f"supersession, {args.topics} topics, each asked 2 ways (memory_search, top 5):")
    for says, asked, stale, first in rows:
        kind = "says supersedes " if says else "only contradicts"
        line = (f"  {kind}: old fact in top 5 {stale}/{asked}, "
                f"new note first {first}/{asked} ({100 * first / asked:.1f}%)")
        if says:
            ok = stale == 0 and first >= 0.95 * asked
            line += f"   {'PASS' if ok else 'MISS'} (target: 0, >= 95%)"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
