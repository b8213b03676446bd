"""The ``sim`` backend: an embedded cluster in a child process, one per pytest worker.

Why: the default cluster must cost nothing to stand up and must isolate xdist workers; a child process with
its own event loop does both. The harness reaches the virtual clock and mints subject tokens over the child's
stdin pipe (see ``pytest_simian.sim.process``), never over HTTP. The child exits when that pipe closes
(the parent ended), unless ``keep`` is set.
Must not: write a subject's kubeconfig into the run directory; share tokens between attempts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from pytest_simian import kubeconfig
from pytest_simian.bundle import Bundle
from pytest_simian.pack.models import Scenario
from pytest_simian.sim.model import unmodelled

from .base import BackendSettings, ClusterBackend, ClusterClock, ClusterHandle, ClusterIdentity

KUBERNETES_VERSION = "v1.36.0"
DESCRIPTION = f"embedded cluster (Kubernetes {KUBERNETES_VERSION})"


class SimError(RuntimeError):
    """The embedded cluster could not be started or stopped answering."""


class _Pipe:
    """Request/response over the child's stdin/stdout, one JSON line each way."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self._lock = threading.Lock()
        self._id = 0

    def call(self, op: str, **kw: Any) -> dict[str, Any]:
        with self._lock:
            if self.proc.poll() is not None or self.proc.stdin is None or self.proc.stdout is None:
                raise SimError(f"the embedded cluster exited (code {self.proc.returncode})")
            self._id += 1
            self.proc.stdin.write((json.dumps({"id": self._id, "op": op, **kw}) + "\n").encode())
            self.proc.stdin.flush()
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    raise SimError("the embedded cluster closed its pipe")
                msg = json.loads(line)
                if msg.get("id") == self._id:
                    break
        if not msg.get("ok"):
            raise SimError(msg.get("error", "command failed"))
        return msg  # type: ignore[no-any-return]


class SimClock(ClusterClock):
    def __init__(self, pipe: _Pipe) -> None:
        self._pipe = pipe

    def advance(self, seconds: float) -> None:
        """Returns once the cluster has played out `seconds` of virtual time and gone quiet."""
        self._pipe.call("advance", seconds=seconds)

    def settle(self) -> None:
        """Wait until the controllers and kubelets stop writing."""
        self._pipe.call("settle")

    def set_realtime(self, realtime: bool) -> None:
        self._pipe.call("realtime", value=realtime)

    def now(self) -> str:
        """Virtual now (ISO 8601), for logs and tests."""
        return str(self._pipe.call("now")["now"])


class SimHandle(ClusterHandle):
    def __init__(self, proc: subprocess.Popen[bytes], ready: dict[str, Any], harness_kubeconfig: Path,
                 request_log: Path, keep: bool) -> None:
        self._proc = proc
        self._pipe = _Pipe(proc)
        self._clock = SimClock(self._pipe)
        self._ca_pem = Path(ready["ca_file"]).read_bytes()
        self._keep = keep
        self._request_log = request_log
        self.server = str(ready["server"])
        self.harness_kubeconfig = harness_kubeconfig
        self.identity = ClusterIdentity(
            backend="sim", description=DESCRIPTION, server=self.server, kubernetes_version=KUBERNETES_VERSION,
            extra={"pid": ready["pid"], "request_log": str(request_log)})

    @property
    def clock(self) -> SimClock:
        return self._clock

    def mint_token(self, label: str, *, user: str = "subject", admin: bool = False) -> str:
        return str(self._pipe.call("mint", label=label, user=user, admin=admin)["token"])

    def subject_kubeconfig(self, attempt_id: str, directory: Path) -> Path:
        token = self.mint_token(f"subject:{attempt_id}")
        return kubeconfig.write(directory / "kubeconfig", self.server, token, ca_pem=self._ca_pem)

    def request_log(self) -> Path | None:
        return self._request_log

    def close(self) -> None:
        proc = self._proc
        if proc.poll() is not None:
            return
        if self._keep:
            print(f"simian: embedded cluster kept running (pid {proc.pid}) at {self.server}\n"
                  f"simian:   export KUBECONFIG={self.harness_kubeconfig}", file=sys.stderr)
            if proc.stdin:
                proc.stdin.close()  # the child ignores EOF when kept
            return
        try:
            self._pipe.call("stop")
        except (SimError, OSError, ValueError):
            pass
        if proc.stdin:
            try:
                proc.stdin.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


class SimBackend(ClusterBackend):
    """Starts the embedded cluster. ``worker`` names files apart under xdist (``gw0``...)."""

    name = "sim"
    summary = "the embedded cluster (default): a Kubernetes API server and simulated kubelet on loopback"

    @classmethod
    def from_settings(cls, settings: BackendSettings) -> SimBackend:
        return cls(keep=settings.keep, worker=settings.worker)

    @classmethod
    def target(cls, settings: BackendSettings) -> str:
        return "the embedded cluster (started when the first scenario needs it)"

    def not_valid(self, bundle: Bundle, scenario: Scenario) -> str | None:
        """Objects the model stores but never brings to life (sim/model.py)."""
        for obj in bundle.objects:
            why = unmodelled(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
            if why:
                name = (obj.get("metadata") or {}).get("name", "?")
                return f"{obj.get('kind')}/{name}: {why}"
        return None

    def __init__(self, *, keep: bool = False, worker: str = "", nodes: int = 1, port: int = 0,
                 controllers: bool = True, python: str | None = None, start_timeout: float = 60.0) -> None:
        self.controllers = controllers
        self.keep = keep
        self.worker = worker
        self.nodes = nodes
        self.port = port
        self.python = python or sys.executable
        self.start_timeout = start_timeout

    def start(self, run_dir: Path) -> SimHandle:
        suffix = f"-{self.worker}" if self.worker else ""
        state = run_dir / "sim" / (self.worker or "main")
        state.mkdir(parents=True, exist_ok=True)
        request_log = run_dir / f"requests{suffix}.jsonl"
        cmd = [self.python, "-m", "pytest_simian.sim.process", "--state-dir", str(state),
               "--request-log", str(request_log), "--port", str(self.port), "--nodes", str(self.nodes)]
        if self.keep:
            cmd.append("--keep")
        if not self.controllers:
            cmd.append("--no-controllers")
        stderr = (state / "server.log").open("ab")
        env = dict(os.environ)
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env,
                                start_new_session=self.keep)
        stderr.close()
        ready = self._wait_ready(proc, state)
        kc = kubeconfig.write(run_dir / f"kubeconfig{suffix}", str(ready["server"]), str(ready["harness_token"]),
                              ca_pem=Path(ready["ca_file"]).read_bytes(), user="harness")
        return SimHandle(proc, ready, kc, request_log, self.keep)

    def _wait_ready(self, proc: subprocess.Popen[bytes], state: Path) -> dict[str, Any]:
        result: dict[str, Any] = {}

        def read() -> None:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if line:
                result.update(json.loads(line))

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(self.start_timeout)
        if result.get("event") != "ready":
            proc.kill()
            log = (state / "server.log").read_text(errors="replace")[-2000:]
            raise SimError(f"the embedded cluster did not start within {self.start_timeout:.0f}s:\n{log}")
        return result
