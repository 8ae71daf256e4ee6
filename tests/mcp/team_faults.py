"""The team server's checks of a store that stops answering, run by
test_team.py: `/readyz` says so within seconds, a request's token check
ends in 503 within its deadline instead of hanging, and both recover when
the store answers again. On the database the store is paused for real: the
server reaches PostgreSQL through a proxy that stops passing bytes on."""

from __future__ import annotations

import os
import socket
import subprocess
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

    # A simple-protocol query holding only COMMIT: how memcap ends a write.
    COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"
    # A write's statement, as it is prepared on the connection.
    WRITE = b"UPDATE memcap_namespaces SET version"

    def __init__(self, target: str):
        self.target = target
        self.running = threading.Event()
        self.running.set()
        # "after": the next COMMIT reaches the server and its answer is lost;
        # "before": the connection breaks just before the next COMMIT.
        self.cut: str | None = None
        # Connections numbered below this pass nothing on, for good.
        self.silenced = 0
        self.opened = 0
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
            pair = {"lost": False, "wrote": False, "number": self.opened}
            self.opened += 1
            threading.Thread(target=self.pump, args=(client, upstream, pair, True), daemon=True).start()
            threading.Thread(target=self.pump, args=(upstream, client, pair, False), daemon=True).start()

    def pump(self, src: socket.socket, dst: socket.socket, pair: dict, to_server: bool) -> None:
        try:
            while data := src.recv(65536):
                self.running.wait()
                # Only the COMMIT that ends a call's writes (the setup commits too).
                if to_server and self.WRITE in data:
                    pair["wrote"] = True
                    if self.cut == "pause":
                        # The server stops answering as the write arrives.
                        self.cut = None
                        self.running.clear()
                        self.running.wait()
                if to_server and self.cut and pair["wrote"] and self.COMMIT in data:
                    how, self.cut = self.cut, None
                    if how == "after":
                        pair["lost"] = True
                        dst.sendall(data)
                        time.sleep(0.3)
                    # The client's side of the connection goes, with no answer.
                    src.shutdown(socket.SHUT_RDWR)
                    if how == "before":
                        dst.shutdown(socket.SHUT_RDWR)
                    return
                if (not to_server and pair["lost"]) or pair["number"] < self.silenced:
                    continue
                dst.sendall(data)
        except OSError:
            pass

    @classmethod
    def to_cluster(cls) -> "PausingProxy":
        """A proxy to the test cluster's socket (tests/postgres/with-cluster)."""
        cluster = os.environ["MEMCAP_TEST_CLUSTER"]
        port = urllib.parse.urlsplit(h.STORE).port
        return cls(os.path.join(cluster, f".s.PGSQL.{port}"))

    def pause(self) -> None:
        self.running.clear()

    def silence(self) -> None:
        """Every connection open now goes silent for good, neither closed
        nor answered (a peer cut off without a word); new ones pass."""
        self.silenced = self.opened

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
            proxy = PausingProxy.to_cluster()
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


@check("on the database, connections cut off for good without a word: token checks give 503 within seconds, then the server connects again and serves")
def store_connections_go_silent():
    if not h.STORE:
        return
    with Base() as base:
        alice = base.token("alice")
        proxy = PausingProxy.to_cluster()
        with Server(base, args=["--store", proxied_store(proxy.port)]) as server:
            raw = Raw(server.url, [("authorization", f"Bearer {alice}")])
            assert raw.open().status_code == 200
            _, msgs = raw.call("memory", {"command": "view", "path": "/memories"})
            assert msgs and msgs[0]["result"]["isError"] is False, msgs
            proxy.silence()
            started = time.monotonic()
            r, _ = raw.call("memory", {"command": "view", "path": "/memories"})
            took = time.monotonic() - started
            assert r.status_code == 503 and took < 8, (r.status_code, took)
            # The token store's connection was given up on: a new one serves,
            # and the store's own connection is made anew after its deadline.
            deadline = time.monotonic() + 60
            while True:
                r, msgs = raw.call("memory", {"command": "view", "path": "/memories"})
                if r.status_code == 200 and msgs and msgs[0]["result"]["isError"] is False:
                    break
                assert time.monotonic() < deadline, f"never served again: {r.status_code} {msgs}"
                time.sleep(0.5)
            print(f"  first call after the cut: 503 in {took:.1f} s; served again "
                  f"{time.monotonic() - started:.1f} s after the cut")


@check("on the database, a commit whose answer is lost is looked up: the agent hears saved or not saved, and it is true")
def lost_commit_answer():
    if not h.STORE:
        print("  (a directory has no commit to lose: checked on the database run)")
        return
    with Base() as base:
        proxy = PausingProxy.to_cluster()
        ns = base.ns("lost")
        proxied = f"{proxied_store(proxy.port)}"

        def create(name: str, store: str):
            return subprocess.run([h.MEMCAP, "--store", store, "--namespace", ns, "create", f"/memories/{name}", "text\n"],
                                  capture_output=True, text=True, timeout=60)

        def exists(name: str) -> bool:
            r = subprocess.run([h.MEMCAP, "--store", h.STORE, "--namespace", ns, "view", f"/memories/{name}"],
                               capture_output=True, text=True, timeout=60)
            return r.returncode == 0

        assert create("first.md", proxied).returncode == 0
        proxy.cut = "after"
        r = create("landed.md", proxied)
        assert proxy.cut is None, "the proxy never saw the COMMIT"
        print(f"  answer lost after COMMIT: exit {r.returncode}, {r.stdout.strip() or r.stderr.strip()!r}")
        assert exists("landed.md"), "the commit did not land (the check needs it to)"
        assert r.returncode == 0 and "File created successfully" in r.stdout, (r.returncode, r.stdout, r.stderr)
        proxy.cut = "before"
        r = create("gone.md", proxied)
        assert proxy.cut is None, "the proxy never saw the COMMIT"
        print(f"  connection cut before COMMIT: exit {r.returncode}, {r.stdout.strip() or r.stderr.strip()!r}")
        assert not exists("gone.md")
        assert r.returncode != 0 and "not saved" in (r.stdout + r.stderr), (r.returncode, r.stdout, r.stderr)
        assert "postgres" not in (r.stdout + r.stderr).lower(), r.stderr


@check("on the database, a server that stops answering mid-call: the call ends within its limit + 5 s, truthfully, and nothing lands")
def server_stops_mid_call():
    if not h.STORE:
        print("  (a directory has no server to stop: checked on the database run)")
        return
    with Base() as base:
        proxy = PausingProxy.to_cluster()
        ns = base.ns("paused")
        run = lambda *args: subprocess.run([h.MEMCAP, "--store", proxied_store(proxy.port), "--namespace", ns,
                                            "--call-timeout-ms", "2000", *args], capture_output=True, text=True, timeout=120)
        assert run("create", "/memories/first.md", "x\n").returncode == 0
        proxy.cut = "pause"
        started = time.monotonic()
        r = run("create", "/memories/held.md", "x\n")
        took = time.monotonic() - started
        proxy.resume()
        print(f"  the server paused as the write arrived: exit {r.returncode} after {took:.1f} s: {r.stderr.strip().splitlines()[-1]!r}")
        assert r.returncode != 0 and took < 2 + 5 + 5, (r.returncode, took, r.stderr)
        assert "nothing was changed" in r.stderr and "postgres" not in r.stderr.lower(), r.stderr
        view = subprocess.run([h.MEMCAP, "--store", h.STORE, "--namespace", ns, "view", "/memories/held.md"],
                              capture_output=True, text=True, timeout=60)
        assert view.returncode != 0, "a write reported not saved is in the store"

