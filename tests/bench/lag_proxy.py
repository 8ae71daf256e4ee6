"""A TCP proxy that holds every chunk it passes on for a while, so a
benchmark can see what a database across a network costs (a round trip
there, not the server's work): PostgreSQL on a unix socket answers in
0.1-0.3 ms, where a team's server is often a millisecond or more away.

    python tests/bench/lag_proxy.py --listen 127.0.0.1:54342 --to 127.0.0.1:5432 --ms 0.5

asyncio's timers are coarse: `--ms 0.5` made `SELECT 1` in psql take 2.5 ms
a round trip through it (2026-11-29), against 0.1-0.3 ms straight to the
server. Measure the round trip you get before quoting a figure.
"""

from __future__ import annotations

import argparse
import asyncio


async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, lag: float) -> None:
    try:
        while data := await src.read(65536):
            await asyncio.sleep(lag)
            dst.write(data)
            await dst.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        dst.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", required=True, help="HOST:PORT to accept on")
    parser.add_argument("--to", required=True, help="HOST:PORT of the server (PostgreSQL listening on TCP)")
    parser.add_argument("--ms", type=float, default=0.5, help="how long each chunk is held, each way")
    args = parser.parse_args()
    host, port = args.listen.rsplit(":", 1)
    to_host, to_port = args.to.rsplit(":", 1)
    lag = args.ms / 1000

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(to_host, int(to_port))
        await asyncio.gather(pump(reader, up_writer, lag), pump(up_reader, writer, lag))

    server = await asyncio.start_server(accept, host, int(port))
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
