"""Running a subject process: its own process group, a deadline, and output read with a cap.

Why: a subject may narrate megabytes, hang, or leave grandchildren behind; none of that may hang or
exhaust the harness. The whole process group is killed at the deadline, and only the tail of stdout
(where the report is) and of stderr is kept.
Must not: interpret the output (adapters do).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

STDOUT_KEEP = 8 * 1024 * 1024
"""Bytes of stdout kept (the tail): the report is the last JSON object."""
STDERR_KEEP = 64 * 1024


@dataclass(frozen=True)
class ProcessOutcome:
    exit_code: int | None
    """None when the process was killed at the deadline."""
    stdout: str
    stderr: str
    stdout_bytes: int
    timed_out: bool
    duration: float


class _TailReader(threading.Thread):
    def __init__(self, stream, keep: int) -> None:  # type: ignore[no-untyped-def]
        super().__init__(daemon=True)
        self.stream = stream
        self.keep = keep
        self.buf = bytearray()
        self.total = 0

    def run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                chunk = self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536)
                if not chunk:
                    break
                self.total += len(chunk)
                self.buf += chunk
                if len(self.buf) > 2 * self.keep:
                    del self.buf[: len(self.buf) - self.keep]

    def text(self) -> str:
        data = bytes(self.buf[-self.keep:])
        return data.decode("utf-8", errors="replace")


def run_process(argv: Sequence[str], *, stdin_text: str, env: Mapping[str, str], cwd: Path,
                timeout: float) -> ProcessOutcome:
    """Run `argv` in a new session; kill its process group at `timeout` seconds."""
    start = time.monotonic()
    proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(cwd), env=dict(env), start_new_session=True)
    out = _TailReader(proc.stdout, STDOUT_KEEP)
    err = _TailReader(proc.stderr, STDERR_KEEP)
    out.start()
    err.start()

    def feed() -> None:
        with contextlib.suppress(OSError, ValueError):
            assert proc.stdin is not None
            proc.stdin.write(stdin_text.encode("utf-8"))
            proc.stdin.close()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    except BaseException:  # interrupted (Ctrl-C, SIGTERM): the subject must not outlive the harness
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        raise
    # Kill the whole group either way: grandchildren must not outlive the attempt.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if timed_out:
        proc.wait()
    out.join(timeout=5)
    err.join(timeout=5)
    for s in (proc.stdout, proc.stderr):
        with contextlib.suppress(Exception):
            s.close()  # type: ignore[union-attr]
    return ProcessOutcome(
        exit_code=None if timed_out else proc.returncode,
        stdout=out.text(), stderr=err.text(), stdout_bytes=out.total, timed_out=timed_out,
        duration=time.monotonic() - start,
    )
