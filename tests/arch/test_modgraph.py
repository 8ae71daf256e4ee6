#!/usr/bin/env python3
"""The circle check finds what it is for: a circle through a `use`, one
through a path in code, one through a `use crate::{..}` group, through `super::` and `self::`
paths (inside inline modules too), and a leaf
that imports a module that is not one; and passes a tree with none."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "modgraph.py")


def run(files):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        out = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
        return out.returncode, out.stdout


def main():
    base = {"core/src/lib.rs": "mod a;\nmod b;\nmod vocab;\n", "core/src/vocab/mod.rs": "pub struct T;\n"}
    cases = [
        ("no circle", {"core/src/a.rs": "use crate::b::X;\nuse crate::vocab::T;\n", "core/src/b.rs": "pub struct X;\n"}, 0, "no import circles"),
        ("use", {"core/src/a.rs": "use crate::b::X;\n", "core/src/b.rs": "use crate::a::Y;\n"}, 1, "import circle among 2 modules: a, b"),
        ("path in code", {"core/src/a.rs": "fn f() { crate::b::g() }\n", "core/src/b/mod.rs": "pub fn g() { crate::a::f() }\n"}, 1, "a, b"),
        ("use group", {"core/src/a.rs": "use crate::{b::X, vocab::T};\n", "core/src/b.rs": "use crate::a::Y;\n"}, 1, "a, b"),
        ("super", {"core/src/a.rs": "use super::b::X;\n", "core/src/b.rs": "use super::{vocab::T, a};\n"}, 1, "a, b"),
        ("self in a parent", {"core/src/lib.rs": "mod a;\nmod b;\nmod vocab;\nuse self::a::X;\n", "core/src/a.rs": "use crate::b::Y;\n", "core/src/b.rs": "fn f() { super::vocab::g() }\n"}, 0, "no import circles"),
        ("super in an inline module", {"core/src/a.rs": "mod tests {\n    use super::super::b::X;\n}\n", "core/src/b.rs": "use crate::a::Y;\n"}, 1, "a, b"),
        ("super names a module", {"core/src/a/mod.rs": "mod c;\n", "core/src/a/c.rs": "use super::super::b;\nfn f() { b::g() }\n", "core/src/b.rs": "use crate::a::c;\n"}, 1, "a::c, b"),
        ("comment only", {"core/src/a.rs": "// crate::b::X\nuse crate::b::X;\n", "core/src/b.rs": "/// see crate::a\npub struct X;\n"}, 0, "no import circles"),
        ("leaf imports", {"core/src/a.rs": "", "core/src/b.rs": "", "core/src/vocab/mod.rs": "use crate::a::Z;\n"}, 1, "vocab is a leaf"),
    ]
    failed = 0
    for name, files, code, words in cases:
        got, out = run({**base, **files})
        if got != code or words not in out:
            failed += 1
            print(f"FAIL {name}: exit {got}, wanted {code} and {words!r} in:\n{out}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
