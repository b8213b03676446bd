"""The `sre-agent:` subject: the upstream agent's one-shot assessment, read back from the file it writes.

Why: the agent's `schema.HealthReport` is already the graded triple field for field, so no
translation is needed; but it prints prose on stdout and puts the machine-readable answer in the
transcript named by `-out`, which `exec:` would never find (seed 000 §6.4). The adapter names that
file itself (in the subject's working directory), passes the attempt's kubeconfig and its current
context, the namespace read out of the prompt, and reads the one assessment back. A spec that sets
`-namespace`, `-out` or `-repeat` (or `-kubeconfig`/`-context`, which would point the agent at
another cluster) breaks the measurement quietly, so it is refused before anything runs. One
investigation spends real model tokens, and the answer alone does not say why a 0.00 happened, so
the agent's transcript (trajectory, delegations, token usage) is kept, keyed by attempt.
Must not: import the agent's code, translate or repair the HealthReport, or score.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from pytest_simian.errors import HarnessError, PackError, SubjectError
from pytest_simian.scoring.report import json_key
from pytest_simian.subjects.base import Subject, SubjectContext, SubjectResult, split_command
from pytest_simian.subjects.builtin import resolve_program
from pytest_simian.subjects.lookout import namespace_from_prompt
from pytest_simian.subjects.process import run_process

OWNED_FLAGS = ("namespace", "out", "repeat", "kubeconfig", "context")
"""Flags the adapter sets; a spec that sets one is refused."""

OUT_NAME = "sre-agent-transcript.json"
TRANSCRIPT_READ_CAP = 64 * 1024 * 1024
"""A transcript bigger than this is not parsed (it is still kept, up to TRANSCRIPT_KEEP_CAP)."""
TRANSCRIPT_KEEP_CAP = 256 * 1024 * 1024

_FLAG = re.compile(r"^--?([A-Za-z][A-Za-z0-9_.-]*)(?:=.*)?$", re.S)


def owned_flags_in(args: list[str]) -> list[str]:
    """The adapter-owned flags a user's argument list sets (Go flag syntax: `-f`, `--f`, `-f=v`)."""
    found = []
    for a in args:
        if a == "--":
            break
        m = _FLAG.match(a)
        if m and m.group(1) in OWNED_FLAGS and m.group(1) not in found:
            found.append(m.group(1))
    return found


def _sets_flag(args: list[str], flag: str) -> bool:
    return any((m := _FLAG.match(a)) and m.group(1) == flag for a in args)


def current_context(kubeconfig: Path) -> str:
    """The kubeconfig's current-context (the agent refuses any other)."""
    try:
        doc = yaml.safe_load(kubeconfig.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise HarnessError(f"the subject's kubeconfig cannot be read: {exc}", stage="subject") from None
    ctx = doc.get("current-context") if isinstance(doc, dict) else None
    if not ctx:
        raise HarnessError(f"the subject's kubeconfig {kubeconfig.name} names no current-context", stage="subject")
    return str(ctx)


class SreAgentSubject(Subject):
    """`sre-agent:<binary> [args]`."""

    scheme = "sre-agent"

    def __init__(self, name: str, spec: str, rest: str) -> None:
        super().__init__(name, spec)
        words = split_command(spec, rest)
        if not words:
            raise PackError(f"--simian-subject {spec!r}: sre-agent: needs the agent binary")
        bad = owned_flags_in(words[1:])
        if bad:
            raise PackError(f"--simian-subject {spec!r}: sets " + ", ".join(f"-{b}" for b in bad)
                            + "; the sre-agent adapter sets -namespace (from the prompt), -out (its own file), "
                            "-kubeconfig and -context (the attempt's read-only credential), and -repeat would "
                            "score one of several assessments; remove them")
        self.program = resolve_program(words[0], spec)
        self.args = words[1:]

    def argv(self, ctx: SubjectContext, namespace: str, out: Path) -> list[str]:
        kubeconfig = ctx.env.get("KUBECONFIG")
        if not kubeconfig:
            raise HarnessError("sre-agent: the subject has no KUBECONFIG (no cluster is up?)", stage="subject")
        argv = [self.program, f"-kubeconfig={kubeconfig}", f"-context={current_context(Path(kubeconfig))}",
                f"-namespace={namespace}", f"-out={out}"]
        if not _sets_flag(self.args, "timeout"):
            # The agent's own per-assessment timeout, inside ours, so it can still write its transcript.
            margin = min(30.0, ctx.timeout * 0.1)
            argv.append(f"-timeout={max(1, int(ctx.timeout - margin))}s")
        return argv + self.args

    def investigate(self, ctx: SubjectContext) -> SubjectResult:
        namespace = namespace_from_prompt(ctx.prompt)
        if namespace is None:
            raise HarnessError("sre-agent: the prompt names no namespace, and the agent assesses one namespace "
                               "(-namespace is required); this scenario cannot be asked of it", stage="subject")
        out_file = ctx.workdir / OUT_NAME
        argv = self.argv(ctx, namespace, out_file)
        proc = run_process(argv, stdin_text=ctx.prompt, env=ctx.env, cwd=ctx.workdir, timeout=ctx.timeout)
        kept = keep_transcript(out_file, ctx)
        common: dict[str, Any] = dict(stdout_tail=proc.stdout[-4096:], stderr_tail=proc.stderr[-4096:],
                                      stdout_bytes=proc.stdout_bytes, duration=proc.duration)
        if proc.timed_out:
            raise SubjectError(f"timed out after {ctx.timeout:g}s (process group killed)"
                               + (f"; partial transcript kept in {kept}" if kept else ""))
        if proc.exit_code != 0:
            tail = (proc.stderr.strip().splitlines() or [""])[-1][:200]
            raise SubjectError(f"exited {proc.exit_code}" + (f": {tail}" if tail else ""), exit_code=proc.exit_code)
        entry = read_assessment(out_file)
        health = json_key(entry.get("run") or {}, "Health")
        if not isinstance(health, dict):
            why = entry.get("error") or "the agent submitted no HealthReport"
            raise SubjectError(f"no HealthReport in the transcript: {str(why)[:300]}")
        extra = {"transcript_file": kept, **transcript_summary(entry)}
        return SubjectResult(report=health, exit_code=proc.exit_code, extra=extra, **common)


def read_assessment(path: Path) -> dict[str, Any]:
    """The one assessment in the agent's `-out` transcript (a JSON array of `{namespace, attempt, prompt,
    run, error?, elapsed}`). Anything else is the subject's fault: a SubjectError."""
    try:
        size = path.stat().st_size
    except OSError:
        raise SubjectError(f"exited 0 but wrote no transcript at -out ({path.name})") from None
    if size > TRANSCRIPT_READ_CAP:
        raise SubjectError(f"the transcript is {size} bytes, more than the {TRANSCRIPT_READ_CAP} the adapter reads")
    try:
        doc = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except ValueError as exc:
        raise SubjectError(f"the transcript is not JSON ({exc})") from None
    if isinstance(doc, dict) and isinstance(doc.get("results"), list):
        doc = doc["results"]  # sre-eval-live's shape, for a wrapper that writes that instead
    if not isinstance(doc, list):
        raise SubjectError("the transcript is not a JSON array of assessments")
    if len(doc) != 1 or not isinstance(doc[0], dict):
        raise SubjectError(f"the transcript holds {len(doc)} assessments; the adapter asks for exactly one")
    return doc[0]


def keep_transcript(out_file: Path, ctx: SubjectContext) -> str | None:
    """Copy the agent's transcript to `<transcript_dir>/<attempt_id>.json`; return its name relative to the
    run directory, or None when there is nothing to keep (or nowhere to keep it)."""
    if ctx.transcript_dir is None or not out_file.is_file():
        return None
    ctx.transcript_dir.mkdir(parents=True, exist_ok=True)
    dest = ctx.transcript_dir / f"{ctx.attempt_id}.json"
    size = out_file.stat().st_size
    if size > TRANSCRIPT_KEEP_CAP:
        dest.write_text(json.dumps({"truncated": True, "bytes": size,
                                    "why": f"transcript larger than {TRANSCRIPT_KEEP_CAP} bytes, not kept"}) + "\n",
                        encoding="utf-8")
    else:
        shutil.copyfile(out_file, dest)
        os.chmod(dest, 0o600)
    return f"{ctx.transcript_dir.name}/{dest.name}"


def transcript_summary(entry: dict[str, Any]) -> dict[str, Any]:
    """What the report file records about the run (the transcript file has everything): the tool
    trajectory's length and distinct tools, delegations, stalls, protests and token totals."""
    run = entry.get("run") or {}
    traj = json_key(run, "Trajectory") or []
    spans = ((json_key(run, "usage") or {}).get("spans") or []) if isinstance(json_key(run, "usage"), dict) else []
    totals: dict[str, int] = {}
    for s in spans:
        if not isinstance(s, dict):
            continue
        for k in ("input", "cached", "output", "thoughts", "requests"):
            v = s.get(k)
            if isinstance(v, int):
                totals[k] = totals.get(k, 0) + v
    return {
        "tool_calls": len(traj) if isinstance(traj, list) else 0,
        "tools": sorted({str(t) for t in traj}) if isinstance(traj, list) else [],
        "delegations": list(json_key(run, "Delegations") or []),
        "stalls": len(json_key(run, "Stalls") or []),
        "protests": len(json_key(run, "Protests") or []),
        "usage": totals,
        "agent_error": str(entry.get("error") or ""),
        "elapsed": str(entry.get("elapsed") or ""),
    }
