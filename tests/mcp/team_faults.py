"""The team server's checks of a store that stops answering, run by
test_team.py: `/readyz` says so within seconds, a request's token check
ends in 503 within its deadline instead of hanging, and both recover when
the store answers again. On the database the store is paused for real: the
server reaches PostgreSQL through a proxy that stops passing bytes on."""

from __future__ import annotations

import os
import socket
import threading
import time
import urllib.parse

import httpx2

import team_harness as h
from team_harness import CHECKS, Base, Raw, Server, free_port

check = CHECKS.check


class PausingProxy:
    """TCP on a local port to the test cluster's socket; `pause()` stops
    passing bytes either way (as a database that stopped answering)."""

    def __init__(self, target: str):
        self.target = target
        self.running = threading.Event()
        self.running.set()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self.target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                self.running.wait()
                dst.sendall(data)
        except OSError:
            pass

    def pause(self) -> None:
        self.running.clear()

    def resume(self) -> None:
        self.running.set()


def proxied_store(proxy_port: int) -> str:
    """The test store's URL, reached through the proxy instead of the socket."""
    parts = urllib.parse.urlsplit(h.STORE)
    return parts._replace(netloc=f"{parts.username}@127.0.0.1:{proxy_port}").geturl()


def ready(port: int) -> tuple[int, float]:
    started = time.monotonic()
    r = httpx2.get(f"http://127.0.0.1:{port}/readyz", timeout=30)
    return r.status_code, time.monotonic() - started


@check("/readyz reports a token store that stops answering within seconds; requests get 503 within the deadline, not a hang; both recover")
def store_stops_answering():
    with Base() as base:
        alice = base.token("alice")
        if h.STORE:
            cluster = os.environ["MEMCAP_TEST_CLUSTER"]
            port = urllib.parse.urlsplit(h.STORE).port
            proxy = PausingProxy(os.path.join(cluster, f".s.PGSQL.{port}"))
            base_args = ["--store", proxied_store(proxy.port)]
            pause, resume = proxy.pause, proxy.resume
        else:
            tokens = base.dir / ".memcap" / "tokens.json"
            base_args = None
            # A token file others could write is not believed: no store to admit with.
            pause = lambda: tokens.chmod(0o666)
            resume = lambda: tokens.chmod(0o600)
        with Server(base, args=base_args) as server:
            port = urllib.parse.urlsplit(server.url).port
            assert ready(port)[0] == 200
            raw = Raw(server.url, [("authorization", f"Bearer {alice}")])
            assert raw.open().status_code == 200
            pause()
            try:
                status, took = ready(port)
                print(f"  /readyz with the store not answering: {status} in {took:.1f} s")
                assert status == 503 and took < 5, (status, took)
                started = time.monotonic()
                r, _ = raw.call("memory", {"command": "view", "path": "/memories"})
                took = time.monotonic() - started
                print(f"  a call meanwhile: {r.status_code} in {took:.1f} s")
                assert r.status_code == 503 and took < 8, (r.status_code, took)
                assert "token" in r.text and "postgres" not in r.text.lower(), r.text
            finally:
                resume()
            deadline = time.monotonic() + 30
            while ready(port)[0] != 200:
                assert time.monotonic() < deadline, "/readyz never recovered"
                time.sleep(0.5)
            while True:
                r, msgs = raw.call("memory", {"command": "view", "path": "/memories"})
                if r.status_code == 200:
                    break
                assert time.monotonic() < deadline, f"calls never recovered: {r.status_code}"
                time.sleep(0.5)
            assert msgs and msgs[0]["result"]["isError"] is False, msgs
