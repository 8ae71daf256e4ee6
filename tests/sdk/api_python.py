"""The Python package's own API, as installed from its wheel: typed
methods, one exception class per error case, the JSON calls, limits, two
stores in one process, and the SDK classes used directly.

    python api_python.py WORKDIR
"""

import asyncio
import os
import sys
import time
from pathlib import Path

from anthropic.lib.tools import ToolError
from anthropic.types.beta import BetaMemoryTool20250818ViewCommand

import memcap
from memcap import Limits, Memory, errors
from memcap.anthropic import BetaAsyncLocalFilesystemMemoryTool, BetaLocalFilesystemMemoryTool

work = Path(sys.argv[1])
checks = 0


def expect_error(cls, fn, *args, contains=""):
    global checks
    try:
        fn(*args)
    except cls as e:
        assert contains in str(e), (cls, str(e))
        assert e.kind == cls.kind or cls is errors.MemcapError, (e.kind, cls.kind)
        assert str(work) not in str(e), f"a host path reached the message: {e}"
        checks += 1
        return e
    raise AssertionError(f"{fn.__name__}{args} did not raise {cls.__name__}")


def check(condition, what):
    global checks
    assert condition, what
    checks += 1


(work / "docs").mkdir(parents=True)
(work / "docs" / "guide.md").write_text("Deploy with the canary pipeline.\n")
with Memory(work / "x", extra={"docs": work / "docs"}) as m:
    custom = m.memory_search("canary", source="custom")
    check([(r["path"], r["source"]) for r in custom["results"]] == [("/memories/extra/docs/guide.md", "custom")], custom)
    check(m.memory_get("/memories/extra/docs/guide.md")["text"].startswith("Deploy"), "memory_get reads an extra directory")
    expect_error(errors.MemcapError, m.create, "/memories/extra/docs/new.md", "x")
    check(not (work / "docs" / "new.md").exists(), "an extra directory is read-only")

with Memory(work / "a") as m:
    check(m.create("/memories/todo.md", "buy milk\n") == "File created successfully at: /memories/todo.md", "create")
    check(m.view("/memories/todo.md", (1, 1)).endswith("     1\tbuy milk"), "view range")
    check(m.str_replace("/memories/todo.md", "milk", "oat milk").startswith("The memory file has been edited."), "str_replace")
    check(m.insert("/memories/todo.md", 0, "# Todo") == "The file /memories/todo.md has been edited.", "insert")
    check(m.rename("/memories/todo.md", "/memories/lists/todo.md").startswith("Successfully renamed"), "rename")
    expect_error(errors.NotFound, m.view, "/memories/nope")
    expect_error(errors.Escape, m.view, "/memories/../secret")
    expect_error(errors.InvalidPath, m.view, "/etc/passwd")
    expect_error(errors.AlreadyExists, m.create, "/memories/lists/todo.md", "x")
    expect_error(errors.MultipleMatches, m.str_replace, "/memories/lists/todo.md", "o", "0")
    expect_error(errors.NoMatch, m.str_replace, "/memories/lists/todo.md", "tea", "x")
    expect_error(errors.InvalidLine, m.insert, "/memories/lists/todo.md", 99, "x")
    expect_error(errors.Protected, m.delete, "/memories")
    e = expect_error(errors.MemcapError, m.view, "/memories/nope")
    check(isinstance(e, errors.NotFound), "the base class catches every case")
    check(m.memory_write("db", "Database", "Which database", "project", "Postgres 16").startswith("Saved note"), "memory_write")
    check("Postgres 17" in m.memory_update("db", "16", "17"), "memory_update")
    check("Postgres 17" in m.memory_read(["database"]), "memory_read")
    check("/memories/db.md\n  name: Database" in m.memory_view(True), "memory_view")
    check("[Database](db.md)" in m.prompt(), "prompt has the index")
    found = m.memory_search("postgres", max_results=3)
    check([r["path"] for r in found["results"]] == ["/memories/db.md"] and found["method"] == "hybrid", found)
    hit = found["results"][0]
    first, last = map(int, hit["lines"].split("-"))
    check(m.memory_get(hit["path"], first, last)["text"] == hit["text"], "memory_get takes the hit's lines")
    check(m.memory_stats()["total_files"] >= 2, "memory_stats")
    m.memory_write("alpha", "Alpha", "", "project", "- [decision] Use Postgres #db (chosen for JSON)\n- depends_on [[Database]]\n- owned_by [[Bob]]")
    ctx = m.build_context("memory://alpha", depth=2)
    alpha = ctx["primary"][0]
    check(alpha["observations"][0]["category"] == "decision" and alpha["observations"][0]["context"] == "chosen for JSON", ctx)
    check([(r["relation_type"], r["resolved"]) for r in alpha["relations"]] == [("depends_on", "/memories/db.md"), ("owned_by", None)], ctx)
    check([(r["note"]["path"], r["depth"]) for r in ctx["related"]] == [("/memories/db.md", 1)], ctx)
    recent = m.recent_activity("1d", "relation")
    check(recent["total"] == 2 and recent["items"][0]["relation"]["target"] == "Database", recent)
    check(m.memory_stats()["unresolved"] == 1, "memory_stats counts the relation to Bob as unresolved")
    check("  relations: 2 (" in m.memory_view(True), "memory_view counts the relations a note writes")
    tagged = m.memory_search("postgres", min_score=0, tags=["#db"], types="project")
    check([r["path"] for r in tagged["results"]] == ["/memories/alpha.md"], tagged)
    check(tagged["results"][0]["observations"][0]["tags"] == ["db"], tagged)
    who = tagged["results"][0]["changed_by"]
    check(len(who) == 1 and tagged["results"][0]["changed_at"], tagged)
    check(m.memory_get("/memories/alpha.md")["changed_by"] == who, "memory_get says who last changed its lines")
    check(m.memory_search("postgres", min_score=0, by=who)["results"], "by keeps what the actor changed")
    check(not m.memory_search("postgres", min_score=0, not_by=who)["results"], "not_by leaves it out")
    expect_error(errors.InvalidPath, lambda: m.memory_search("postgres", after_date="soon"))
    m.create("/memories/alpha-v2.md", "Alpha moved off Postgres.\n\n- supersedes [[Alpha]]\n")
    fresh = m.memory_search("postgres", min_score=0)
    check("/memories/alpha.md" not in [r["path"] for r in fresh["results"]] and fresh["left_out"] >= 1, fresh)
    every = m.memory_search("postgres", min_score=0, include_superseded=True)
    check(any(r["path"] == "/memories/alpha.md" and r["superseded_by"] == ["/memories/alpha-v2.md"] for r in every["results"]), every)
    review = m.memory_review("1d")
    check(review.startswith("Review of /memories: nothing was changed.") and "Likely duplicates" in review, review)
    expect_error(errors.InvalidPath, m.memory_review, "soon")
    m.delete("/memories/alpha-v2.md")
    expect_error(errors.NotFound, m.build_context, "memory://nobody")
    expect_error(errors.InvalidPath, m.build_context, "memory://alpha", 4)
    expect_error(errors.InvalidPath, m.recent_activity, "soon")
    m.memory_delete("alpha")
    check("- depends_on [[Auth Service]]" in m.memory_guide(), "memory_guide")
    check(m.record_turn("s1", "user", "Remember the blue teapot") == "Recorded turn 1 of session s1 in /memories/chat/s1.md", "record_turn")
    chat = m.memory_search("teapot", source="chat")
    check([(r["path"], r["source"]) for r in chat["results"]] == [("/memories/chat/s1.md", "chat")], chat)
    m.create("/memories/commute.md", "I bought a new automobile to drive to the office.\n")
    near = m.memory_search("car commute", min_score=0)
    check(near["results"][0]["path"] == "/memories/commute.md" and near["degraded"] is None, near)
    expect_error(errors.InvalidPath, m.record_turn, "../s", "user", "x")
    expect_error(errors.InvalidPath, m.memory_search, "postgres", 0)
    expect_error(errors.Escape, m.memory_get, "/memories/../secret")
    expect_error(errors.InvalidLine, m.memory_get, "/memories/db.md", 999)
    check(m.memory_delete("db").startswith("Successfully deleted"), "memory_delete")
    expect_error(errors.InvalidNote, m.memory_write, "x", "", "d", "project", "c")
    names = [t.name for t in m.describe()]
    check(names[0] == "memory" and "memory_write" in names, names)
    check(m.describe()[0].input_schema["type"] == "object", "schemas are JSON")
    check(m.call({"command": "view", "path": "/memories/nope"}) == memcap.ToolResult(
        "The path /memories/nope does not exist. Please provide a valid path.", True), "call")
    check(m.call("not json").is_error, "call never raises")
    check(m.call_json({"command": "view", "path": "/memories/lists/todo.md"})["lines"][:2] == ["# Todo", "buy oat milk"], "call_json")
    data = m.call_with_data({"command": "delete", "path": "/memories/nope"})
    check(data.is_error and data.data["error"]["kind"] == "not-found", data)

# Vectors off: keywords only, and the answer says so.
with Memory(work / "a", vectors=False) as keywords:
    off = keywords.memory_search("car commute", min_score=0)
    check(off["method"] == "bm25" and "MEMCAP_VECTORS=off" in off["degraded"] and not off["results"], off)

# Two stores in one process never see each other.
with Memory(work / "b") as b, Memory(work / "c") as c:
    b.create("/memories/only-b.md", "b")
    expect_error(errors.NotFound, c.view, "/memories/only-b.md")
    check((work / "b/only-b.md").is_file() and not (work / "c/only-b.md").exists(), "isolated roots")

# A memory bound is applied: 1 MiB cannot even instantiate, and says so.
with Memory(work / "d", limits=Limits(memory_mib=1)) as tiny:
    e = expect_error(errors.MemcapError, tiny.view, "/memories", contains="1 MiB")
    check(e.kind == "guest-failure", e.kind)

# A call past its time limit is stopped, says so, and the next call works.
with Memory(work / "slow", limits=Limits(call_timeout=0.05)) as slow:
    (work / "slow/big.md").write_text("ab\n" * 999_000)  # its view takes ~0.1 s, twice the limit
    started = time.monotonic()
    e = expect_error(errors.MemcapError, slow.view, "/memories/big.md", contains="0.05 s")
    ran = time.monotonic() - started
    check(e.kind == "timed-out", e.kind)
    check(ran >= 0.05, f"stopped after {ran:.3f} s, before its limit")
    check(slow.view("/memories").startswith("Here're the files"), "a fresh instance answers")

# The SDK class used directly: typed commands, ToolError that is also the case's class.
tool = BetaLocalFilesystemMemoryTool(base_path=str(work / "sdk"))
check((work / "sdk/memories").stat().st_mode & 0o777 == 0o700, "root is 0700")
check(tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a"}).startswith("File created"), "sdk call")
check("1\ta" in tool.view(BetaMemoryTool20250818ViewCommand(command="view", path="/memories/a.md")), "typed view")
try:
    tool.call({"command": "view", "path": "/memories/missing"})
    raise AssertionError("no error")
except ToolError as e:
    check(isinstance(e, errors.NotFound) and e.content.startswith("The path /memories/missing"), e)
(work / "sdk/memories/.hidden").write_text("h")
check(tool.clear_all_memory() == "All memory cleared", "clear")
# memcap keeps its index (now empty) and its own `.memcap`; nothing else is left.
left = set(os.listdir(work / "sdk/memories"))
check(left <= {".memcap", "MEMORY.md"}, left)
check("- [" not in (work / "sdk/memories/MEMORY.md").read_text(), "the index lists nothing")


async def async_tool():
    tool = BetaAsyncLocalFilesystemMemoryTool(base_path=str(work / "async"))
    results = await asyncio.gather(*[
        tool.call({"command": "create", "path": f"/memories/n{i}.md", "file_text": str(i)}) for i in range(8)
    ])
    check(all(r.startswith("File created") for r in results), results)
    check(len([n for n in os.listdir(work / "async/memories") if n.startswith("n")]) == 8, "async writes")


asyncio.run(async_tool())
print(f"python package API: {checks} checks passed")
