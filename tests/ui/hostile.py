"""Another web server on this machine, as an attacker would run one on a
loopback port of their own: it records every Cookie header browsers send
it, serves a page whose script asks for memcap's paths with credentials
(so the browser sends whatever cookies it would), and plants the cookies
it is given. Serves loopback only, until closed."""

from __future__ import annotations

import http.server
import threading

from team_harness import free_port

PAGE = b"""<!doctype html><title>loading</title>
<img src="/ui/style.css"><script>
Promise.allSettled([fetch('/ui/', {credentials: 'include'}), fetch('/ui/files/x', {credentials: 'include'}),
                    fetch('/mcp', {credentials: 'include', method: 'POST', body: '{}'})])
  .then(() => { document.title = 'done'; });
</script>"""


class Hostile:
    def __init__(self, plant: list[str] | None = None) -> None:
        self.port = free_port()
        self.plant = plant or []
        self.seen: list[tuple[str, str, str]] = []  # (host, path, cookie header)
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self, body: bytes = b"") -> None:
                owner.seen.append((self.headers.get("Host", ""), self.path, self.headers.get("Cookie", "")))
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                if self.path.startswith("/plant"):
                    for cookie in owner.plant:
                        self.send_header("Set-Cookie", cookie)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                self.answer(PAGE if self.path == "/" else b"ok")

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.answer(b"ok")

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, host: str, path: str = "/") -> str:
        return f"http://{host}:{self.port}{path}"

    def visit(self, browser, host: str) -> None:
        """The person's browser lands on the hostile page at `host` (a link
        in a note, a redirect from any site), runs its script, and is
        planted its cookies."""
        from selenium.webdriver.support.ui import WebDriverWait
        browser.get(self.url(host, "/"))
        WebDriverWait(browser.driver, 20).until(lambda d: d.title == "done")
        browser.get(self.url(host, "/plant"))

    def cookies_seen(self) -> str:
        return "\n".join(cookie for _, _, cookie in self.seen)

    def __enter__(self) -> "Hostile":
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
