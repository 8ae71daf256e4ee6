#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md names a file that exists,
and every #anchor one of that page's headings (as GitHub makes them); the
README stays the front door (at most 300 lines). Exits 1 on any problem."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(path):
    out = set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if not in_code and line.startswith("#"):
                text = line.lstrip("#").strip().lower()
                text = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
                out.add(text)
    return out


def main():
    pages = [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")
    )
    problems = []
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            name = os.path.relpath(page, ROOT)
            if not os.path.exists(full):
                problems.append(f"{name}: {target}: no such file")
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                problems.append(f"{name}: {target}: no such heading")
    with open(pages[0], encoding="utf-8") as f:
        lines = sum(1 for _ in f)
    if lines > 300:
        problems.append(f"README.md: {lines} lines; keep it the front door (300 at most) and put the rest in docs/")
    for p in problems:
        print(p)
    print(f"{len(pages)} pages: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
