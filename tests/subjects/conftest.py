"""Helpers for the subject adapter tests: fake counterparts written as small scripts, and a context."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_simian.subjects.base import SubjectContext

PROMPT = 'Assess the health of the "{ns}" namespace in this Kubernetes cluster and report what you find.'


def write_script(path: Path, body: str) -> Path:
    """An executable Python script using this interpreter."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); look at its state.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


MakeCtx = Callable[..., SubjectContext]


@pytest.fixture
def fakebin(tmp_path: Path) -> Path:
    d = tmp_path / "fakebin"
    d.mkdir()
    return d


@pytest.fixture
def make_ctx(tmp_path: Path, fakebin: Path) -> MakeCtx:
    """A SubjectContext with a fresh workdir, the fake bin directory first on PATH, and a kubeconfig."""
    counter = {"n": 0}

    def make(ns: str | None = "shop", *, prompt: str | None = None, timeout: float = 30.0,
             env: dict[str, str] | None = None, transcript_dir: Path | None = None) -> SubjectContext:
        counter["n"] += 1
        wd = tmp_path / f"work{counter['n']}"
        wd.mkdir()
        kc = wd / "kubeconfig"
        kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: default\ncontexts:\n- name: default\n"
                      "  context: {cluster: cluster, user: subject}\n")
        full_env = {"PATH": f"{fakebin}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(wd / ".home"),
                    "KUBECONFIG": str(kc), **(env or {})}
        text = prompt if prompt is not None else PROMPT.format(ns=ns)
        return SubjectContext(prompt=text, workdir=wd, env=full_env, timeout=timeout,
                              attempt_id=f"a{counter['n']:012x}", transcript_dir=transcript_dir)

    return make


def jsonl(*objs: dict[str, Any]) -> str:
    return "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)
