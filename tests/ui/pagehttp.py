"""Plain HTTP to the page, as the checks and the benchmark need it. The page
answers only at its own `memcap-….localhost` name, which browsers and curl
take to loopback but Python's resolver does not: requests go to 127.0.0.1
with the name in the Host header."""

from __future__ import annotations

import re
import time
import urllib.parse

import httpx2

COOKIE = "__Host-memcap_ui"


def direct(url: str) -> tuple[str, dict[str, str]]:
    """`url` sent to 127.0.0.1 at its port, and the Host header it names."""
    u = urllib.parse.urlsplit(url)
    return u._replace(netloc=f"127.0.0.1:{u.port}").geturl(), {"Host": u.netloc}


def request(method: str, url: str, session: str | None = None, headers: dict | None = None,
            client: httpx2.Client | None = None, **kw) -> httpx2.Response:
    """One request to the page at `url`, with `session`'s cookie if given."""
    target, host = direct(url)
    sent = {**host, **(headers or {})}
    if session is not None:
        sent["Cookie"] = f"{COOKIE}={session}"
    if client is not None:
        return client.request(method, target, headers=sent, **kw)
    return httpx2.request(method, target, headers=sent, timeout=60, **kw)


def session_of(r: httpx2.Response) -> str | None:
    """The session id a sign-in's answer set, if it set one."""
    for value in r.headers.get_list("set-cookie"):
        m = re.match(rf"{re.escape(COOKIE)}=([0-9a-f]{{64}});", value)
        if m:
            return m.group(1)
    return None


def owner_session(link: str) -> str:
    """Signs in with `memcap ui`'s printed link as a browser would: the link
    shows a button, the button posts the code."""
    page = request("GET", link)
    code = re.search(r'name="code" value="([0-9a-f]{64})"', page.text)
    assert page.status_code == 200 and code, (page.status_code, page.text[:300])
    root = link.split("/ui/")[0]
    r = request("POST", root + "/ui/sign-in", data={"code": code.group(1)})
    session = session_of(r)
    assert r.status_code == 303 and session, (r.status_code, r.headers, r.text[:300])
    return session


def page_root(lines: list[str], seconds: float = 10) -> str:
    """The team server's page address (`…/ui`), from its log."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for line in list(lines):
            m = re.search(r"the page for people is at (http://\S+/ui)/", line)
            if m:
                return m.group(1)
        time.sleep(0.05)
    raise AssertionError("the server printed no page address: " + "".join(lines)[-500:])
