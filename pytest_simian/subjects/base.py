"""The subject seam: what every adapter implements, and how `--simian-subject` is parsed.

Why: a subject is a separate process that gets a prompt and returns a report; the harness must not
care whether it is an agent CLI, a detector or a shell script. `NAME=SPEC` names a column; `SPEC` is
`scheme:rest` (`noop:`, `exec:./agent --flag`), and schemes are provided through the
`pytest_simian_make_subject` hook so third parties can add their own.
Must not: import a subject's code, or score.
"""

from __future__ import annotations

import abc
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_simian.errors import PackError


@dataclass(frozen=True)
class SubjectContext:
    """Everything a subject gets for one attempt: the task and a place to work, nothing more."""

    prompt: str
    workdir: Path
    """A fresh, empty directory outside the run directory and the project."""
    env: Mapping[str, str]
    """The reduced environment (allowlist, KUBECONFIG, SIMIAN_PROMPT, pinned kubectl on PATH)."""
    timeout: float
    """Seconds before the subject (and its whole process group) is killed: a SubjectError."""
    attempt_id: str
    transcript_dir: Path | None = None
    """Where an adapter may keep a transcript, in the run directory (never handed to the subject)."""
    scenario_id: str = ""
    """For adapters only (`replay:` finds saved reports by it). Never hand it to a subject process:
    scenario ids often name the fault."""


@dataclass(frozen=True)
class SubjectResult:
    """What came back: the last JSON value the subject reported, and how it ran."""

    report: Any
    exit_code: int | None = 0
    stdout_tail: str = ""
    stderr_tail: str = ""
    stdout_bytes: int = 0
    duration: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


class Subject(abc.ABC):
    """One column of the scorecard."""

    scheme: str = ""

    def __init__(self, name: str, spec: str) -> None:
        self.name = name
        self.spec = spec

    @abc.abstractmethod
    def investigate(self, ctx: SubjectContext) -> SubjectResult:
        """Run the subject on the prompt. Raise SubjectError when it crashes, times out or says
        nothing parseable; raise HarnessError when our side of the adapter is at fault."""

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "spec": self.spec, "scheme": self.scheme}


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_SCHEME = re.compile(r"^([a-z][a-z0-9-]*):(.*)$", re.S)


@dataclass(frozen=True)
class SubjectOption:
    name: str | None
    scheme: str
    rest: str
    spec: str


def parse_subject_option(text: str) -> SubjectOption:
    """`[NAME=]scheme:rest` → parts. A NAME is only recognised before the scheme."""
    name: str | None = None
    spec = text.strip()
    head, eq, tail = spec.partition("=")
    if eq and _NAME.match(head) and _SCHEME.match(tail):
        name, spec = head, tail
    m = _SCHEME.match(spec)
    if not m:
        raise PackError(f"--simian-subject {text!r}: expected [NAME=]SCHEME:SPEC, e.g. noop: or "
                        "exec:./my-agent")
    return SubjectOption(name, m.group(1), m.group(2), spec)


def split_command(spec: str, rest: str) -> list[str]:
    """The words of a subject spec's command line, or a PackError naming the spec."""
    try:
        return shlex.split(rest)
    except ValueError as exc:
        raise PackError(f"--simian-subject {spec!r}: cannot split the command line: {exc}") from None


def default_name(scheme: str, rest: str) -> str:
    """A readable column name when the user gave none: `noop`, the program's base name, ..."""
    words = rest.split()
    if words:
        base = os.path.basename(words[0].rstrip("/")) or scheme
        base = re.sub(r"\.(sh|py|exe)$", "", base)
        base = re.sub(r"[^A-Za-z0-9_.+-]", "-", base).strip("-") or scheme
        return base
    return scheme
