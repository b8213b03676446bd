"""Fixtures for the embedded cluster's tests: an API server on a background event loop in this process.

The server runs in a thread so tests can drive the real kubectl (a subprocess) and the synchronous Python
client against it, and still reach the store directly (``sim.call(fn)`` runs ``fn`` on the server's loop).
The virtual clock starts frozen so AGE columns in goldens are deterministic.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pytest_simian import kubeconfig
from pytest_simian.sim.clock import VirtualClock
from pytest_simian.sim.server import SimServer
from pytest_simian.sim.store import Store

T = TypeVar("T")
KUBECTL = str(Path(sys.executable).parent / "kubectl")


class RunningSim:
    def __init__(self, tmp: Path, *, controllers: bool = False) -> None:
        self.tmp = tmp
        self.loop = asyncio.new_event_loop()
        self.server = SimServer(state_dir=tmp / "state", request_log=tmp / "requests.jsonl",
                                clock=VirtualClock(realtime=False), bookmark_interval=0.5,
                                controllers=controllers)
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.run(self.server.start())
        self.harness_kubeconfig = kubeconfig.write(tmp / "kubeconfig", self.server.url, self.server.harness_token,
                                                   ca_pem=self.server.ca_pem, user="harness")
        self.cache = tmp / "kubecache"

    @property
    def store(self) -> Store:
        return self.server.store

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def call(self, fn: Callable[[], T]) -> T:
        fut: Future[T] = Future()

        def go() -> None:
            try:
                fut.set_result(fn())
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                fut.set_exception(e)

        self.loop.call_soon_threadsafe(go)
        return fut.result(30)

    def subject_kubeconfig(self, directory: Path, label: str = "subject:test") -> Path:
        token = self.call(lambda: self.server.mint(label))
        return kubeconfig.write(directory / "kubeconfig", self.server.url, token, ca_pem=self.server.ca_pem)

    def kubectl(self, *args: str, kubeconfig_path: Path | None = None, check: bool = True,
                timeout: float = 30, input: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
        env.update(KUBECONFIG=str(kubeconfig_path or self.harness_kubeconfig), KUBECACHEDIR=str(self.cache),
                   HOME=str(self.tmp), TZ="UTC")
        r = subprocess.run([KUBECTL, *args], capture_output=True, text=True, env=env, timeout=timeout,
                           input=input)
        if check and r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        return r

    def advance(self, seconds: float) -> None:
        """Move the frozen virtual clock through every controller and kubelet wake-up (server.advance)."""
        asyncio.run_coroutine_threadsafe(self.server.advance(seconds), self.loop).result(300)

    def close(self) -> None:
        self.run(self.server.stop())

        async def cancel_rest() -> None:
            me = asyncio.current_task()
            rest = [t for t in asyncio.all_tasks() if t is not me]
            for t in rest:
                t.cancel()
            await asyncio.gather(*rest, return_exceptions=True)

        self.run(cancel_rest())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


@pytest.fixture(scope="session")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSim]:
    s = RunningSim(tmp_path_factory.mktemp("sim"))
    yield s
    s.close()


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
_RV = re.compile(r'(resourceVersion"?:\s*)"\d+"')
_DATE = re.compile(r"[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d \+0000")


def normalize(text: str) -> str:
    text = _UUID.sub("<uid>", text)
    text = _TS.sub("<time>", text)
    text = _RV.sub(r'\1"<rv>"', text)
    text = _DATE.sub("<date>", text)
    return text


def golden(name: str, actual: str) -> None:
    """Compare with tests/sim/golden/<name>; lines starting with '#' at the top are the citation header.
    SIMIAN_UPDATE_GOLDEN=1 rewrites the body (keeping the header) for review."""
    path = Path(__file__).parent / "golden" / name
    header: list[str] = []
    body = ""
    if path.exists():
        lines = path.read_text().splitlines(keepends=True)
        while lines and lines[0].startswith("#"):
            header.append(lines.pop(0))
        body = "".join(lines)
    actual = normalize(actual)
    if os.environ.get("SIMIAN_UPDATE_GOLDEN") == "1":
        path.write_text("".join(header) + actual)
        return
    assert header, f"golden {name} has no citation header"
    assert actual == body, f"golden {name} differs:\n--- expected\n{body}\n--- actual\n{actual}"
