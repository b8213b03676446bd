"""The built-in subjects `noop:` and `exec:`.

`noop:` is the null subject: it reports nothing, ever (`overall_severity: ok`, no findings); the
zero-score floor a scorecard is read against, and the cheapest way to see whether a pack manifests.

`exec:PROGRAM ARGS...` runs a program: the prompt goes on stdin, in `$SIMIAN_PROMPT`, and in place of
a `{prompt}` placeholder in argv; the last JSON object on stdout is the report, so a subject may
narrate as it goes. Non-zero exit, a timeout, or no JSON object on stdout is a SubjectError.
Must not: import a subject's code.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pytest_simian.errors import PackError, SubjectError
from pytest_simian.scoring.report import last_json_object
from pytest_simian.subjects.base import Subject, SubjectContext, SubjectResult, split_command
from pytest_simian.subjects.process import run_process


class NoopSubject(Subject):
    scheme = "noop"

    def investigate(self, ctx: SubjectContext) -> SubjectResult:
        return SubjectResult(report={"overall_severity": "ok", "summary": "noop subject: reports nothing",
                                     "findings": []})


class ExecSubject(Subject):
    scheme = "exec"

    def __init__(self, name: str, spec: str, rest: str) -> None:
        super().__init__(name, spec)
        argv = split_command(spec, rest)
        if not argv:
            raise PackError(f"--simian-subject {spec!r}: exec: needs a program")
        self.argv = argv
        self.program = resolve_program(argv[0], spec)

    def investigate(self, ctx: SubjectContext) -> SubjectResult:
        argv = [self.program] + [a.replace("{prompt}", ctx.prompt) for a in self.argv[1:]]
        out = run_process(argv, stdin_text=ctx.prompt, env=ctx.env, cwd=ctx.workdir, timeout=ctx.timeout)
        common = dict(stdout_tail=out.stdout[-4096:], stderr_tail=out.stderr[-4096:],
                      stdout_bytes=out.stdout_bytes, duration=out.duration)
        if out.timed_out:
            raise SubjectError(f"timed out after {ctx.timeout:g}s (process group killed)")
        if out.exit_code != 0:
            tail = out.stderr.strip().splitlines()[-1:] or [""]
            raise SubjectError(f"exited {out.exit_code}" + (f": {tail[0][:200]}" if tail[0] else ""),
                               exit_code=out.exit_code)
        report = last_json_object(out.stdout)
        if report is None:
            raise SubjectError(f"printed no JSON object on stdout ({out.stdout_bytes} bytes)")
        return SubjectResult(report=report, exit_code=out.exit_code, **common)  # type: ignore[arg-type]


def resolve_program(word: str, spec: str) -> str:
    """An absolute path to an executable, or a PackError naming the problem."""
    if os.sep in word or "/" in word:
        path = Path(word).expanduser().resolve()
        if not path.exists():
            raise PackError(f"--simian-subject {spec!r}: {word} does not exist")
        if not path.is_file() or not os.access(path, os.X_OK):
            raise PackError(f"--simian-subject {spec!r}: {word} is not an executable file")
        return str(path)
    found = shutil.which(word)
    if not found:
        raise PackError(f"--simian-subject {spec!r}: {word!r} is not on PATH")
    return found
