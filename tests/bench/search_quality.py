"""Retrieval quality of memory_search on a benchmark corpus.

A corpus is a directory of stores, each `NAME/docs/*.md` plus
`NAME/queries.json` (a list of {"id", "query", "category", "ground_truth":
[doc stems], "evidence": [{"doc", "line"}]}); see shared/bench's README.
Every store is written into a fresh memory through `memcap call` with
`create`, as an agent would, and every query is asked through
`memory_search` (maxResults 20, minScore 0), twice: keywords only
(`memcap --no-vectors`) and hybrid (the default, with the compiled-in
embedding model). Printed for each: doc recall@5, MRR and evidence-line
recall@5, overall and per category, with the method the answers report.
Questions of category `adversarial` (no answer in the store) are left out.

    python tests/bench/search_quality.py CORPUS --memcap target/release/memcap
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


class Memory:
    """One `memcap call` process on a fresh root: a tool input per line."""

    def __init__(self, memcap: str, root: Path, flags: list):
        self.proc = subprocess.Popen(
            [memcap, "--root", str(root), *flags, "call"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def call(self, tool_input: dict) -> dict:
        self.proc.stdin.write(json.dumps(tool_input) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit("memcap call stopped answering")
        result = json.loads(line)
        if result["is_error"]:
            sys.exit(f"{tool_input['command']} failed: {result['content']}")
        return result

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def stores(corpus: Path):
    found = sorted(p for p in corpus.iterdir() if (p / "queries.json").is_file())
    if not found:
        sys.exit(f"{corpus} holds no store (a directory with docs/ and queries.json)")
    return found


def run_store(memcap: str, flags: list, store: Path, totals: dict, by_category: dict) -> str:
    methods = set()
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(memcap, Path(tmp) / "memories", flags)
        for doc in sorted((store / "docs").glob("*.md")):
            memory.call({
                "command": "create",
                "path": f"/memories/{doc.name}",
                "file_text": doc.read_text(encoding="utf-8"),
            })
        queries = json.loads((store / "queries.json").read_text(encoding="utf-8"))
        for q in queries:
            if q.get("category") == "adversarial":
                continue
            answer = json.loads(memory.call({
                "command": "memory_search", "query": q["query"],
                "maxResults": 20, "minScore": 0,
            })["content"])
            methods.add(answer["method"])
            results = [
                (Path(r["path"]).stem, *map(int, r["lines"].split("-")))
                for r in answer["results"]
            ]
            scores = measure(q, results)
            for bucket in (totals, by_category[q.get("category", "-")]):
                for key, value in scores.items():
                    bucket[key] += value
        memory.close()
    return "/".join(sorted(methods))


def measure(q: dict, results: list) -> dict:
    files = list(dict.fromkeys(stem for stem, _, _ in results))
    truth = set(q["ground_truth"])
    rank = next((i for i, f in enumerate(files) if f in truth), None)
    evidence = q.get("evidence", [])
    hits = sum(
        any(stem == e["doc"] and first <= e["line"] <= last for stem, first, last in results[:5])
        for e in evidence
    )
    return {
        "n": 1,
        "recall": len(truth & set(files[:5])) / len(truth) if truth else 0.0,
        "mrr": 0.0 if rank is None else 1 / (rank + 1),
        "evidence": hits,
        "evidence_n": len(evidence),
    }


def row(name: str, t: dict) -> str:
    ev = f"{t['evidence'] / t['evidence_n']:.3f}" if t["evidence_n"] else "-"
    return f"| {name} | {t['n']} | {t['recall'] / t['n']:.3f} | {t['mrr'] / t['n']:.3f} | {ev} |"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--memcap", default="target/release/memcap")
    args = parser.parse_args()
    if not os.access(args.memcap, os.X_OK):
        sys.exit(f"{args.memcap} is not an executable memcap: build it first (just build)")
    for name, flags in (("BM25 only", ["--no-vectors"]), ("hybrid", [])):
        totals = collections.Counter()
        by_category = collections.defaultdict(collections.Counter)
        methods = set()
        for store in stores(args.corpus):
            methods.add(run_store(args.memcap, flags, store, totals, by_category))
        if not totals["n"]:
            sys.exit("no question to ask (all adversarial?)")
        print(f"{name}: corpus {args.corpus} · answers' method {'/'.join(sorted(methods))} · top 5")
        print("| questions | n | doc recall@5 | MRR | evidence-line recall@5 |")
        print("|---|---|---|---|---|")
        print(row("all", totals))
        for category in sorted(by_category):
            print(row(category, by_category[category]))
        print()


if __name__ == "__main__":
    main()
