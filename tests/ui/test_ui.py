"""The page for people (`/ui/`) in a real browser: `memcap ui`'s one-time
sign-in link, every view (overview, files, a note, raw, search, graph,
history with a diff and a restore, an edit that meets an agent's
concurrent write), hostile notes whose script must never run, and the team
server's page: token sign-in, alice never reaching bob, a read-only token
changing nothing, cross-site posts refused. Screenshots of every view go
to target/ui-screenshots/.

    python tests/ui/test_ui.py --memcap target/release/memcap [--store URL] [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "mcp"))
sys.path.insert(0, str(HERE))
import team_harness  # noqa: E402
from checks import Checks  # noqa: E402
from team_harness import Base, Server, free_port  # noqa: E402
from browser import Browser  # noqa: E402
from pagehttp import COOKIE, owner_session, page_root, request, session_of  # noqa: E402
from hostile import Hostile  # noqa: E402

CHECKS = Checks()
check = CHECKS.check
MEMCAP = ""


class Page:
    """One `memcap ui` process and the sign-in link it printed."""

    def __init__(self, base: Base, namespace: str, *extra: str) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [MEMCAP, *base.args(), "--namespace", base.ns(namespace), *extra, "ui", "--listen", f"127.0.0.1:{self.port}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.link = self.proc.stdout.readline().strip()
        if not self.link.startswith("http://"):
            self.proc.kill()
            raise AssertionError(f"memcap ui did not print a link: {self.link}{self.proc.stderr.read()}")
        self.log: list[str] = []
        threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True).start()
        # The page's own name: http://memcap-….localhost:PORT/ui
        self.root = self.link.split("/ui/")[0] + "/ui"
        assert re.fullmatch(rf"http://memcap-[0-9a-f]{{32}}\.localhost:{self.port}/ui", self.root), self.root

    def sign_in(self, b: Browser) -> None:
        """Opens the printed link and presses its button, as the person would."""
        b.get(self.link)
        b.click(b.find("form.confirm button"))
        assert b.driver.current_url == self.root + "/", b.driver.current_url

    def __enter__(self) -> "Page":
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def cli(base: Base, namespace: str, *args: str, stdin: str | None = None, actor: str = "mallory") -> str:
    r = subprocess.run([MEMCAP, *base.args(), "--namespace", base.ns(namespace), "--actor", actor, *args],
                       input=stdin, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


ALPHA = """---
name: Alpha project
type: project
owner: Dana
---
# Alpha

The **launch** is in March.

- [decision] ship the beta first #launch
- depends_on [[notes/beta]]
- part_of [[notes/gamma]]
"""

BETA = """---
name: Beta
type: project
---
# Beta

- [fact] beta has 3 users
- part_of [[notes/gamma]]
"""

GAMMA = "# Gamma\n\nThe umbrella programme.\n"


def plant_three(base: Base, ns: str) -> None:
    cli(base, ns, "create", "/memories/notes/alpha.md", stdin=ALPHA, actor="agent")
    cli(base, ns, "create", "/memories/notes/beta.md", stdin=BETA, actor="agent")
    cli(base, ns, "create", "/memories/notes/gamma.md", stdin=GAMMA, actor="agent")


@check("memcap ui: the printed link signs in once; overview, files, a note, raw, search and graph all show and link up")
def every_view():
    with Base() as base, Browser() as b:
        plant_three(base, "me")
        with Page(base, "me") as page:
            page.sign_in(b)
            body = b.text()
            assert "files indexed" in body and "Recent changes" in body and "notes/alpha.md" in body, body
            b.shot("overview")
            # The code worked once: another browser gets the sign-in page.
            with Browser() as other:
                other.get(page.link)
                other.click(other.find("form.confirm button"))
                assert "used already or has expired" in other.text(), other.text()
                other.get(page.root + "/files/notes/alpha.md")
                assert "Dana" not in other.text()
            b.get(page.root + "/files/")
            b.click(b.link("notes"))
            assert b.driver.current_url.endswith("/ui/files/notes/"), b.driver.current_url
            b.shot("files")
            b.click(b.link("alpha.md"))
            body = b.text()
            assert "Alpha" in body and "Dana" in body and "launch" in body, body
            assert b.find("article.markdown strong").text == "launch"
            assert "ship the beta first" in body and "depends_on" in body
            b.shot("note")
            b.click(b.find("ul.facts a[href='/ui/files/notes/beta.md']"))
            assert b.driver.current_url.endswith("/ui/files/notes/beta.md") and "beta has 3 users" in b.text()
            b.click(b.link("Raw"))
            assert "- [fact] beta has 3 users" in b.text() and b.all("#L7")
            b.shot("raw")
            b.get(page.root + "/search?q=beta+users")
            hits = b.all("ol.hits li a")
            assert hits and "beta.md" in hits[0].text, b.text()
            # Who last changed each passage, as the history records it.
            assert re.search(r"beta\.md lines \d+-\d+ · score [\d.]+ · changed by agent at 20\d\d-", b.text()), b.text()
            b.shot("search")
            b.click(hits[0])
            assert re.search(r"/ui/files/notes/beta\.md\?raw=1#L\d+$", b.driver.current_url), b.driver.current_url
            b.get(page.root + "/graph/notes/alpha.md?depth=2")
            nodes = b.all("svg a.node")
            titles = " ".join(n.text for n in nodes)
            assert len(nodes) == 3 and "Beta" in titles and "gamma" in titles, titles
            assert "depends_on" in b.find("svg").text
            b.shot("graph")
            b.click(b.find("svg a.node[href^='/ui/graph/notes/beta.md']"))
            assert "/ui/graph/notes/beta.md" in b.driver.current_url and "Graph of /memories/notes/beta.md" in b.text()
            assert b.scripts_ran() == []


@check("history: an agent's change shows with its actor; a diff of two versions; Restore and Revert undo it, recorded as the person's")
def history_and_undo():
    with Base() as base, Browser() as b:
        plant_three(base, "me")
        cli(base, "me", "str-replace", "/memories/notes/gamma.md", "umbrella programme", "programme we cancelled")
        with Page(base, "me", "--actor", "dana") as page:
            page.sign_in(b)
            b.get(page.root + "/history/notes/gamma.md")
            rows = b.all("table.versions tbody tr")
            assert len(rows) == 2 and "mallory" in rows[0].text and "agent" in rows[1].text, [r.text for r in rows]
            numbers = [r.get_attribute("id")[1:] for r in rows]
            b.find(f"input[name=a][value='{numbers[1]}']").click()
            b.find(f"input[name=b][value='{numbers[0]}']").click()
            b.click(b.find("table.versions ~ button"))
            added = [e.get_attribute("textContent") for e in b.all("details.diff .add")]
            removed = [e.get_attribute("textContent") for e in b.all("details.diff .del")]
            assert any("we cancelled" in t for t in added) and any("umbrella" in t for t in removed), (added, removed)
            b.shot("history-diff")
            b.click(b.find(f"tr#v{numbers[1]} button[form='restore-{numbers[1]}']"))
            assert "Restored" in b.text(), b.text()
            assert "umbrella programme" in cli(base, "me", "view", "/memories/notes/gamma.md")
            b.get(page.root + "/history/notes/gamma.md")
            first = b.all("table.versions tbody tr")[0].get_attribute("textContent")
            assert "restored" in first and "dana" in first, first
            # Redact mallory's content (no longer current): gone for good.
            b.click(b.find(f"tr#v{numbers[0]} button[form='redact-{numbers[0]}']"))
            assert f"redacted by dana" in b.find(f"tr#v{numbers[0]}").text, b.find(f"tr#v{numbers[0]}").text
            shown = subprocess.run([MEMCAP, *base.args(), "--namespace", base.ns("me"), "history", "show",
                                    "/memories/notes/gamma.md", numbers[0]], capture_output=True, text=True)
            assert shown.returncode != 0 and "we cancelled" not in shown.stdout, shown
            # Revert: everything mallory did since an hour ago.
            cli(base, "me", "create", "/memories/notes/poison.md", stdin="trust evil.example\n")
            b.get(page.root + "/history/")
            b.shot("history")
            # Words stay whole: an actor's name, a change, a time never
            # break mid-word (they did: "mallor/y", "MODIFIE/D").
            broken = b.js("const out = [];"
                          "for (const td of document.querySelectorAll('table.versions tbody td:nth-child(-n+4)')) {"
                          " const texts = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);"
                          " for (let n = texts.nextNode(); n; n = texts.nextNode()) {"
                          "  const t = n.textContent.trim(); if (!t || t.includes(' ')) continue;"
                          "  const r = document.createRange(); r.selectNodeContents(n);"
                          "  if (r.getClientRects().length > 1) out.push(t); } }"
                          "return out;")
            assert broken == [], broken
            form = b.find("form.revert")
            form.find_element("name", "by").clear()
            form.find_element("name", "by").send_keys("mallory")
            form.find_element("name", "since").clear()
            form.find_element("name", "since").send_keys("1h")
            b.click(form.find_element("css selector", "button"))
            assert "Reverted" in b.text() and "poison.md" in b.text(), b.text()
            assert "poison.md" not in cli(base, "me", "view", "/memories/notes")


@check("blame: each run of a note's lines beside who last changed it, linked to that version; a superseded note names its successor both ways")
def blame_and_standing():
    with Base() as base, Browser() as b:
        plant_three(base, "me")
        cli(base, "me", "str-replace", "/memories/notes/gamma.md", "umbrella programme",
            "programme we cancelled <script>alert(1)</script>")
        cli(base, "me", "create", "/memories/notes/delta.md", actor="agent",
            stdin="# Delta\n\nThe programme that replaced gamma.\n\n- supersedes [[notes/gamma]]\n")
        with Page(base, "me") as page:
            page.sign_in(b)
            b.get(page.root + "/files/notes/gamma.md")
            standing = b.find("p.standing")
            assert "Superseded by" in standing.text and "delta.md" in standing.text, standing.text
            b.shot("superseded")
            b.click(standing.find_element("css selector", "a"))
            assert b.driver.current_url.endswith("/ui/files/notes/delta.md"), b.driver.current_url
            assert "Supersedes" in b.text() and b.all("a[href='/ui/files/notes/gamma.md']"), b.text()
            b.get(page.root + "/files/notes/gamma.md")
            b.click(b.link("Blame"))
            assert "/ui/blame/notes/gamma.md" in b.driver.current_url, b.driver.current_url
            runs = [r.text for r in b.all("table.blame tr.run")]
            assert len(runs) == 2, runs
            assert "agent" in runs[0] and "# Gamma" in runs[0], runs
            assert "mallory" in runs[1] and "we cancelled <script>" in runs[1], runs
            assert len(b.all("table.blame tbody tr")) == 3
            b.shot("blame")
            b.click(b.all("table.blame tr.run")[1].find_element("css selector", "a"))
            assert "/ui/history/notes/gamma.md?show=" in b.driver.current_url, b.driver.current_url
            assert "we cancelled" in b.text(), b.text()
            assert b.scripts_ran() == []


@check("review: duplicates, others' changes and expired notes listed; Merge, Restore and Expire each a version by the person")
def review_decisions():
    with Base() as base, Browser() as b:
        plant_three(base, "me")
        cli(base, "me", "create", "/memories/notes/deploy.md", actor="agent",
            stdin="---\nname: Deploy target\ndescription: where it runs\n---\nIt runs in eu-1.\n")
        cli(base, "me", "create", "/memories/notes/deploy-2.md", actor="agent",
            stdin="---\nname: deploy target\ndescription: where it runs now\n---\nIt runs in us-2.\n")
        cli(base, "me", "str-replace", "/memories/notes/gamma.md", "umbrella programme", "programme we cancelled")
        with Page(base, "me", "--actor", "dana") as page:
            page.sign_in(b)
            b.get(page.root + "/review")
            assert "Reviewed as dana" in b.text(), b.text()
            dups = b.all("table.dups tbody tr")
            assert len(dups) == 1 and "deploy.md" in dups[0].text and "deploy-2.md" in dups[0].text, [d.text for d in dups]
            changed = {r.find_element("css selector", "td a").text: r for r in b.all("table.changed tbody tr")}
            assert "mallory" in changed["/memories/notes/gamma.md"].text, changed.keys()
            b.shot("review")
            # Merge: deploy-2 kept, deploy superseded.
            keep = [p for p in b.all("table.dups .pick") if "deploy-2.md" in p.text][0]
            b.click(keep.find_element("css selector", "form[action='/ui/review/merge'] button"))
            assert "supersedes the others" in b.text(), b.text()
            assert "- supersedes [[notes/deploy]]" in cli(base, "me", "view", "/memories/notes/deploy-2.md")
            # Restore: gamma as the agent wrote it.
            b.get(page.root + "/review")
            assert not b.all("table.dups"), b.text()
            row = [r for r in b.all("table.changed tbody tr") if "notes/gamma.md" in r.text][0]
            b.click(row.find_element("css selector", "form[action='/ui/review/restore'] button"))
            assert "earlier version back" in b.text(), b.text()
            assert "umbrella programme" in cli(base, "me", "view", "/memories/notes/gamma.md")
            # Expire: alpha's valid_until becomes now; the review lists it.
            b.get(page.root + "/review")
            row = [r for r in b.all("table.changed tbody tr") if "notes/alpha.md" in r.text][0]
            b.click(row.find_element("css selector", "form[action='/ui/review/expire'] button"))
            assert "past its valid_until" in b.text(), b.text()
            assert "valid_until: 20" in cli(base, "me", "view", "/memories/notes/alpha.md")
            b.get(page.root + "/review")
            expired = b.text()
            assert "/memories/notes/alpha.md" in b.find("h2 + p.hint + table").text, expired
            # Each decision is dana's version.
            listed = cli(base, "me", "history", "list", "/memories/notes")
            assert listed.count("by dana") == 3, listed
            assert b.scripts_ran() == []


@check("editing saves with a precondition: an agent's write in between is never overwritten, the conflict is shown, a second save is on purpose")
def edit_with_conflict():
    with Base() as base, Browser() as b:
        plant_three(base, "me")
        with Page(base, "me") as page:
            page.sign_in(b)
            b.get(page.root + "/edit/notes/gamma.md")
            area = b.find("textarea[name=text]")
            assert area.get_attribute("value") == GAMMA
            area.clear()
            area.send_keys("# Gamma\n\nEdited by a person.\n")
            # An agent writes first.
            cli(base, "me", "str-replace", "/memories/notes/gamma.md", "umbrella", "agent's")
            b.click(b.find("form.edit button"))
            body = b.text()
            assert "Someone changed this file" in body and "agent's" in body, body
            assert "agent's programme" in cli(base, "me", "view", "/memories/notes/gamma.md")
            b.shot("edit-conflict")
            assert "Edited by a person." in b.find("textarea[name=text]").get_attribute("value")
            b.click(b.find("form.edit button"))
            assert b.driver.current_url.endswith("/ui/files/notes/gamma.md"), b.driver.current_url
            shown = cli(base, "me", "view", "/memories/notes/gamma.md")
            assert "Edited by a person." in shown and "agent's" not in shown, shown


HOSTILE = [
    ("notes/x1.md", "---\nname: <script>window.__xss='frontmatter'</script>\ntype: <img src=x onerror=\"window.__xss='fm-img'\">\n---\n"
     "# <script>window.__xss='h1'</script>\n\n<script>window.__xss='body'</script>\n\n"
     "<img src=x onerror=\"window.__xss='img'\">\n\n<svg onload=\"window.__xss='svg'\"><script>window.__xss='svg2'</script></svg>\n\n"
     "[click](javascript:window.__xss='link') [d](data:text/html,<script>parent.__xss=1</script>)\n\n"
     "<a href=\"javascript:window.__xss='a'\">a</a> <div style=\"position:fixed;inset:0;background:red\">OVERLAY</div>\n\n"
     "<iframe src=\"javascript:parent.__xss='iframe'\"></iframe><form action=\"javascript:x\"><button>go</button></form>\n\n"
     "<details open ontoggle=\"window.__xss='toggle'\">x</details> <b onmouseover=\"window.__xss='hover'\">hover</b>\n\n"
     "</article></main><script>window.__xss='breakout'</script><!--\n\n"
     "- [<script>window.__xss='cat'</script>] observed <img src=x onerror=\"window.__xss='obs'\"> #tag\"><script>x</script>\n"
     "- <script>window.__xss='rel'</script> [[\"><svg onload=\"window.__xss='target'\">]]\n"
     "- links_to [[notes/<script>window.__xss='t2'</script>]]\n"),
    ("notes/\"><img src=x onerror=\"window.__xss='filename'\">.md", "# named to attack\n\nmarker-filename\n"),
    ("notes/<svg onload=window.__xss='fn2'>.md", "marker-fn2\n"),
]


@check("hostile notes: script in bodies, frontmatter, relations, file names and queries never runs; the page shows it as text")
def hostile_notes():
    with Base() as base, Browser() as b:
        ns = "me"
        for name, text in HOSTILE:
            cli(base, ns, "create", f"/memories/{name}", stdin=text, actor="<script>window.__xss='actor'</script>")
        with Page(base, ns) as page:
            page.sign_in(b)
            visited = [page.root + "/", page.root + "/files/notes/", page.root + "/files/notes/x1.md",
                       page.root + "/files/notes/x1.md?raw=1", page.root + "/graph/notes/x1.md?depth=3",
                       page.root + "/history/", page.root + "/history/notes/x1.md", page.root + "/edit/notes/x1.md",
                       page.root + "/search?q=%3Cscript%3Ewindow.__xss%3D%27query%27%3C%2Fscript%3E",
                       page.root + "/search?q=marker", page.root + "/files/%3Cscript%3Ewindow.__xss=1%3C%2Fscript%3E"]
            for link in b.all("table.list a"):
                visited.append(link.get_attribute("href"))
            for url in visited:
                b.get(url)
                time.sleep(0.05)
                found = b.scripts_ran()
                assert found == [], (url, found)
                # Over the page nothing is laid: the header stays clickable where it is.
                top = b.js("const r = document.querySelector('header.top').getBoundingClientRect();"
                           "return document.elementFromPoint(r.left + 40, r.top + 10).closest('header') !== null")
                assert top, url
            b.get(page.root + "/files/notes/x1.md")
            assert "OVERLAY" in b.text()
            b.shot("hostile-note")
            b.get(page.root + "/files/notes/x1.md?raw=1")
            assert "<script>window.__xss='body'</script>" in b.text()
            b.get(page.root + "/files/notes/")
            assert "<svg onload=window.__xss='fn2'>.md" in b.text(), b.text()
            b.get(page.root + "/search?q=%3Cscript%3Ewindow.__xss%3D%27query%27%3C%2Fscript%3E")
            assert b.find("input[name=q][type=search].bigsearch, form.bigsearch input").get_attribute("value") == "<script>window.__xss='query'</script>"


def sign_in(b: Browser, root: str, token: str) -> None:
    b.get(root + "/")
    field = b.find("input[name=token]")
    field.send_keys(token)
    b.click(b.find("form button"))


@check("team server: a token signs in to its own grants; alice reaches none of bob's notes by any URL; a read-only token changes nothing")
def team_isolation():
    with Base() as base, Browser() as b:
        cli(base, "alice", "create", "/memories/mine.md", stdin="alice-note\n")
        cli(base, "bob", "create", "/memories/secret.md", stdin="bob-secret-XYZ\n")
        alice = base.token("alice", "--label", "alice")
        reader = base.token("alice", "--read-only", "--label", "auditor")
        base.token("bob", "--label", "bob")
        metrics_port = free_port()
        with Server(base, "--metrics", f"127.0.0.1:{metrics_port}") as server:
            root = page_root(server.lines)
            # Only at its own name: an address every local server shares is refused.
            r = httpx2.get(f"http://127.0.0.1:{server.port}/ui/")
            assert r.status_code == 403 and "not served at this address" in r.text and ".localhost" not in r.text, r.text
            sign_in(b, root, "memcap_000000000000_" + "0" * 64)
            assert "does not open" in b.text()
            sign_in(b, root, alice)
            assert b.driver.current_url == root + "/" and "alice" in b.text()
            assert alice not in b.driver.current_url
            b.shot("team-overview")
            bob_ns = base.ns("bob")
            for path in ["/files/secret.md", f"/files/../{bob_ns}/secret.md", f"/files/%2e%2e/{bob_ns}/secret.md",
                         f"/files/..%2f{bob_ns}%2fsecret.md", "/files/%2e%2e%2f%2e%2e%2fsecret.md",
                         f"/files/shared/{bob_ns}/secret.md", f"/history/%2e%2e/{bob_ns}/secret.md",
                         "/search?q=bob-secret-XYZ", f"/graph/..%2f{bob_ns}%2fsecret.md", f"/edit/..%2f{bob_ns}%2fsecret.md",
                         f"/files//{bob_ns}/secret.md", "/history/"]:
                b.get(root + path)
                if path.startswith("/search"):
                    hits = " ".join(h.text for h in b.all("ol.hits li"))
                    assert "secret" not in hits, hits
                else:
                    assert "bob-secret-XYZ" not in b.driver.page_source, path
            b.get(root + "/files/mine.md")
            assert "alice-note" in b.text()
            # A cross-site form post, with alice's cookie, is refused.
            cookie = b.driver.get_cookie(COOKIE)["value"]
            csrf = b.find("input[name=csrf]").get_attribute("value")
            for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
                r = request("POST", root + "/edit/mine.md", cookie, headers=headers,
                            data={"csrf": csrf, "text": "hijacked\n", "sha256": ""})
                assert r.status_code == 403, (headers, r.status_code)
            r = request("POST", root + "/edit/mine.md", cookie, data={"csrf": "0" * 64, "text": "hijacked\n"})
            assert r.status_code == 403, r.status_code
            r = request("GET", root + "/files/mine.md", cookie, headers={"Host": "evil.example"})
            assert r.status_code == 403, r.status_code
            r = request("GET", root + "/files/mine.md", cookie, headers={"Host": f"127.0.0.1:{server.port}"})
            assert r.status_code == 403 and "alice-note" not in r.text, r.status_code
            assert base.read("alice", "mine.md") == "alice-note\n"
            # Read only: no edit or undo offered, and a post changes nothing.
            with Browser() as ro:
                sign_in(ro, root, reader)
                ro.get(root + "/files/mine.md")
                assert "read only" in ro.text() and not ro.all("a[href^='/ui/edit/']"), ro.text()
                ro.get(root + "/history/mine.md")
                assert not ro.all("form[action^='/ui/restore/']") and not ro.all("form.revert")
                ro.shot("team-read-only")
                cookie = ro.driver.get_cookie(COOKIE)["value"]
                csrf = ro.find("input[name=csrf]").get_attribute("value")
                r = request("POST", root + "/edit/mine.md", cookie,
                            data={"csrf": csrf, "text": "changed by a reader\n", "sha256": ""})
                assert r.status_code in (403, 409), r.status_code
                r = request("POST", root + "/revert", cookie, data={"csrf": csrf, "since": "1d", "by": "mallory"})
                assert r.status_code == 403, r.status_code
            assert base.read("alice", "mine.md") == "alice-note\n"
            # Every page action and failed sign-in is logged and counted.
            actions = [(e.get("page"), e.get("outcome"), e.get("actor")) for e in server.log() if "page" in e]
            for seen in [("sign-in", "wrong-token", None), ("sign-in", "ok", "alice"), ("sign-in", "ok", "auditor"),
                         ("edit", "bad-csrf", "alice"), ("edit", "conflict", "auditor"), ("revert", "read-only", "auditor")]:
                assert seen in actions or (seen[0] == "edit" and seen[2] == "auditor" and ("edit", "refused", "auditor") in actions), (seen, actions)
            text = httpx2.get(f"http://127.0.0.1:{metrics_port}/metrics").text
            assert 'memcap_page_actions_total{action="sign-in",outcome="wrong-token"} 1' in text, text
            assert 'memcap_page_actions_total{action="revert",outcome="read-only"} 1' in text, text
            # Revoking the token ends its page sessions.
            token_id = alice.split("_")[1]
            subprocess.run([MEMCAP, *base.args(), "token", "revoke", token_id], check=True, capture_output=True)
            b.get(root + "/files/mine.md")
            assert "alice-note" not in b.text() and "no longer opens" in b.text(), b.text()
            server.stop()
            log = "".join(server.lines)
            for token in (alice, reader):
                assert token not in log and token.split("_")[2] not in log


def plants(value: str, domain: str) -> list[str]:
    """Every cookie a hostile server might set to take over memcap's page
    session with `value` (its own session, say): host-only, for the shared
    parent domain, on a narrower path that browsers send first."""
    return [f"{COOKIE}={value}; Path=/; Secure", f"{COOKIE}={value}; Domain={domain}; Path=/; Secure",
            f"memcap_ui={value}; Domain={domain}; Path=/ui/edit", f"memcap_ui={value}; Path=/ui",
            f"memcap_ui={value}; Domain={domain}; Path=/ui"]


def save_edit(b: Browser, root: str, path: str, text: str) -> None:
    b.get(f"{root}/edit/{path}")
    area = b.find("textarea[name=text]")
    area.clear()
    area.send_keys(text)
    b.click(b.find("form.edit button"))


@check("memcap ui: a server on another loopback port or name, visited after sign-in, gets nothing of the session and cannot plant one")
def origin_bound_owner_session():
    with Base() as base, Browser() as b, Hostile(plants("b" * 64, "localhost")) as evil:
        plant_three(base, "me")
        with Page(base, "me", "--actor", "dana") as page:
            page.sign_in(b)
            session = b.driver.get_cookie(COOKIE)["value"]
            for host in ("127.0.0.1", "localhost", "evil.localhost", "x.memcap.localhost"):
                evil.visit(b, host)
            seen = evil.cookies_seen()
            assert session not in seen and evil.seen, seen
            # Still the owner, and what the owner saves is recorded as theirs.
            save_edit(b, page.root, "notes/gamma.md", "# Gamma\n\nSaved after the visit.\n")
            assert "Saved after the visit." in cli(base, "me", "view", "/memories/notes/gamma.md")
            listed = cli(base, "me", "history", "list", "/memories/notes/gamma.md", "--json")
            assert json.loads(listed.splitlines()[0])["actor"] == "dana", listed
            # A request that shows a second session cookie is refused, never resolved.
            r = request("GET", page.root + "/files/notes/gamma.md",
                        headers={"Cookie": f"{COOKIE}={'a' * 64}; {COOKIE}={session}"})
            assert r.status_code == 401 and "two sign-ins" in r.text and "Saved after" not in r.text, r.status_code
            # The session's own name alone opens the page: an address every server shares does not.
            r = httpx2.get(f"http://127.0.0.1:{page.port}/ui/", headers={"Cookie": f"{COOKIE}={session}"})
            assert r.status_code == 403 and "Saved after" not in r.text and ".localhost" not in r.text, r.text
            b.get(page.root + "/")
            assert "Recent changes" in b.text(), b.text()


@check("team page on a shared domain (behind a proxy, memcap.team.localhost): a sibling site cannot read alice's session or slip her mallory's")
def origin_bound_team_session():
    with Base() as base, Browser() as b:
        alice = base.token("alice", "--label", "alice")
        mallory = base.token("mallory", "--label", "mallory")
        cli(base, "alice", "create", "/memories/plan.md", stdin="alice's plan\n")
        cli(base, "mallory", "create", "/memories/plan.md", stdin="mallory's plan\n")
        with Server(base, "--allow-host", "memcap.team.localhost") as server:
            root = f"http://memcap.team.localhost:{server.port}/ui"
            # Mallory's own, real session: what she would slip into alice's browser.
            theirs = session_of(request("POST", root + "/sign-in", data={"token": mallory}))
            assert theirs
            with Hostile(plants(theirs, "team.localhost")) as evil:
                sign_in(b, root, alice)
                session = b.driver.get_cookie(COOKIE)["value"]
                for host in ("evil.team.localhost", "team.localhost", "127.0.0.1"):
                    evil.visit(b, host)
                seen = evil.cookies_seen()
                assert session not in seen and evil.seen, seen
                b.get(root + "/files/plan.md")
                assert "alice's plan" in b.text(), b.text()
                save_edit(b, root, "plan.md", "alice's plan, revised\n")
                assert base.read("alice", "plan.md") == "alice's plan, revised\n"
                assert base.read("mallory", "plan.md") == "mallory's plan\n"
                # Recorded as the token it was, id beside the label: never taken for a CLI `--actor alice`.
                b.get(root + "/history/plan.md")
                rows = [r.text for r in b.all("table.versions tbody tr")]
                assert f"alice ({alice.split('_')[1]})" in rows[0] and "mallory" not in rows[0], rows
            # Mallory's session is hers alone, and the page at an address is not served.
            r = request("GET", root + "/files/plan.md", theirs)
            assert r.status_code == 200 and "mallory's plan" in r.text
            r = httpx2.get(f"http://127.0.0.1:{server.port}/ui/files/plan.md", headers={"Cookie": f"{COOKIE}={session}"})
            assert r.status_code == 403, r.status_code


@check("the printed link: a HEAD or a preview spends nothing, a press of its button does; wrong codes never lock the owner out")
def link_spent_by_a_press():
    with Base() as base, Browser() as b:
        with Page(base, "me") as page:
            for method, headers in (("HEAD", {}), ("GET", {"User-Agent": "Slackbot-LinkExpanding 1.0"}), ("GET", {})):
                r = request(method, page.link, headers=headers)
                assert r.status_code == 200 and not session_of(r), (method, r.status_code, r.headers)
            # Guesses from this address, more than any lockout would allow.
            for _ in range(60):
                r = request("POST", page.root + "/sign-in", data={"code": "0" * 64})
                assert r.status_code == 401 and not session_of(r), r.status_code
            code = page.link.split("code=")[1]
            r = request("POST", page.root + "/sign-in", data={"code": code}, headers={"Sec-Fetch-Site": "cross-site"})
            assert r.status_code == 403 and not session_of(r), r.status_code
            page.sign_in(b)
            assert "Recent changes" in b.text()
            log = "".join(page.log)
            assert log.count('"outcome":"wrong-code"') == 60 and code not in log, log[-2000:]


@check("a diff of two 40,000-line versions answers at once with links to both; one token's sessions never end another's")
def bounded_diffs_and_session_shares():
    with Base() as base:
        old, new = ("".join(f"line {i} {tag} {i * 7919 % 1000}\n" for i in range(40_000)) for tag in ("old", "new"))
        cli(base, "me", "create", "/memories/big.md", stdin=old)
        cli(base, "me", "call", stdin=json.dumps({"command": "str_replace", "path": "/memories/big.md",
                                                  "old_str": old, "new_str": new}) + "\n")
        listed = cli(base, "me", "history", "list", "/memories/big.md", "--json")
        a, b_ = sorted(json.loads(line)["version"] for line in listed.splitlines())
        with Page(base, "me") as page:
            session = owner_session(page.link)
            r = request("GET", f"{page.root}/history/big.md?a={a}&b={b_}", session)
            assert r.status_code == 200 and "too large to compare" in r.text, r.text[-800:]
            assert f'href="?show={a}"' in r.text and f'href="?show={b_}"' in r.text
    with Base() as base, Browser() as b:
        alice = base.token("alice", "--label", "alice")
        reader = base.token("alice", "--read-only", "--label", "reader")
        with Server(base, "--max-sessions-per-token", "4") as server:
            root = page_root(server.lines)
            sign_in(b, root, alice)
            readers = [session_of(request("POST", root + "/sign-in", data={"token": reader})) for _ in range(12)]
            assert all(readers)
            assert request("GET", root + "/", readers[0]).status_code == 401, "the reader's oldest ended"
            assert request("GET", root + "/", readers[-1]).status_code == 200
            b.get(root + "/")
            assert "Recent changes" in b.text(), "alice is still signed in"


def main() -> int:
    global MEMCAP
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcap", required=True)
    parser.add_argument("--store")
    parser.add_argument("--only")
    args = parser.parse_args()
    MEMCAP = str(Path(args.memcap).resolve())
    team_harness.MEMCAP = MEMCAP
    team_harness.STORE = args.store
    return CHECKS.run("page (ui) checks" + (" on the database" if args.store else ""), args.only)


if __name__ == "__main__":
    sys.exit(main())
