"""The embedded cluster as a child process, driven by JSON lines on its stdin.

Why: the harness runs one cluster per pytest worker in its own process (its event loop must not share the
test process's), and reaches the virtual clock through the stdin pipe, a channel no subject can reach. When
the pipe closes (the parent ended) the child exits, unless started with ``--keep``.

Protocol. The child prints one line ``{"event":"ready","server":...,"ca_file":...,"harness_token":...,
"pid":...,"request_log":...}`` on stdout, then answers each stdin line ``{"id":N,"op":...}`` with one stdout line
``{"id":N,"ok":true,...}`` (or ``"ok":false,"error":...``). Operations: ``ping``; ``now`` (virtual time, ISO);
``advance`` (``seconds``: moves time stepwise through every controller wake-up and answers once the cluster is
quiet); ``settle`` (wait until controllers stop writing); ``realtime`` (``value`` bool); ``mint``
(``label``, optional ``user``, ``admin``) returns ``token``; ``revoke`` (``token``); ``stop``.
Must not: accept commands from anywhere but its stdin.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from .server import SimServer


def _write(line: dict[str, Any]) -> None:
    try:
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass


async def command(server: SimServer, msg: dict[str, Any]) -> dict[str, Any]:
    op = msg.get("op")
    clock = server.clock
    if op == "ping":
        return {}
    if op == "now":
        return {"now": clock.now().isoformat(), "realtime": clock.realtime}
    if op == "advance":  # stepwise through every controller wake-up, answered once the cluster is quiet
        await server.advance(float(msg.get("seconds", 0)))
        return {"now": clock.now().isoformat()}
    if op == "settle":
        await server.settle()
        return {}
    if op == "realtime":
        clock.set_realtime(bool(msg.get("value", True)))
        return {"realtime": clock.realtime}
    if op == "mint":
        return {"token": server.mint(str(msg.get("label", "subject")), str(msg.get("user", "subject")),
                                     admin=bool(msg.get("admin", False)))}
    if op == "revoke":
        server.auth.revoke(str(msg.get("token", "")))
        return {}
    raise ValueError(f"unknown op {op!r}")


async def serve(args: argparse.Namespace) -> None:
    server = SimServer(state_dir=Path(args.state_dir),
                       request_log=Path(args.request_log) if args.request_log else None,
                       port=args.port, nodes=args.nodes, controllers=not args.no_controllers)
    await server.start()
    _write({"event": "ready", "server": server.url, "ca_file": str(server.ca_file),
            "harness_token": server.harness_token, "pid": os.getpid(),
            "request_log": args.request_log or ""})
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    stop = asyncio.Event()
    try:
        while not stop.is_set():
            line = await reader.readline()
            if not line:
                if args.keep:
                    await asyncio.Event().wait()  # run until killed
                break
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("op") == "stop":
                _write({"id": msg.get("id"), "ok": True})
                break
            try:
                _write({"id": msg.get("id"), "ok": True, **(await command(server, msg))})
            except Exception as e:  # a bad command must not kill the cluster
                _write({"id": msg.get("id"), "ok": False, "error": f"{type(e).__name__}: {e}"})
    finally:
        await server.stop()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m pytest_simian.sim.process")
    p.add_argument("--state-dir", required=True)
    p.add_argument("--request-log", default="")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--no-controllers", action="store_true", help="serve the API only (no kubelet, no controllers)")
    args = p.parse_args(argv)
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
