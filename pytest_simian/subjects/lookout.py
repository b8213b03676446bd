"""The `lookout:` subject: k8s-lookout's read commands, their finding streams merged into one report.

Why: the deterministic detector is the rig's own control and the floor every agent is read against
(seed 000 §6.7). It already emits everything we grade (object kind, name, canonical reason,
severity, one JSON record per line) but no report envelope, and it must not grow a Simian-shaped
output mode; so the shape translation lives here, on our side of the process boundary. The
namespace is read out of the prompt, where an agent reads it: a side channel would give the
detector something no agent gets. `health` alone misses PDB gridlock, empty endpoints and the
broken reference behind a failed mount, so the adapter runs `health`, `triage delta`, `state edges`
per workload and `stab drain -A` (docs/subjects-adapters.md). Exit code 2 is lookout's usage error:
our adapter is wrong, a HarnessError rather than the subject's zero. Fingerprints are kept in each
finding's extra fields for a calibration assertion (:func:`fingerprint_problems`), never scored.
Must not: import lookout's code, score, or hand lookout anything the prompt does not say.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_simian.errors import HarnessError, PackError, SubjectError
from pytest_simian.scoring.report import rank
from pytest_simian.subjects.base import Subject, SubjectContext, SubjectResult, split_command
from pytest_simian.subjects.builtin import resolve_program
from pytest_simian.subjects.process import ProcessOutcome, run_process

SEVERITIES = ("critical", "warning", "info")
"""lookout's three levels, worst first (lookout-findings.md §5)."""

WORKLOAD_KINDS = (("deployments", "Deployment"), ("statefulsets", "StatefulSet"), ("daemonsets", "DaemonSet"))
"""Workloads `state edges --workload=<Kind>/<ns>/<name>` is run for."""

PENDING_AGE = "--pending-age=1s"
"""`triage delta` waits 5 minutes before calling a Pending pod a finding (a paging grace); the harness asks
only after the efficacy gate saw the state, so the grace would measure lookout's patience, not its sight.
`health` has no such flag (its pending category keeps the fixed 5-minute grace)."""

SELF_REPORT_KINDS = frozenset({"health.category"})
"""Scorecard lines that summarise detail lines also present: kept in extra, not as findings."""

_DNS_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_QUOTED = re.compile(r"[\"\u201c\u201d'\u2018\u2019`](" + _DNS_LABEL + r")[\"\u201c\u201d'\u2018\u2019`]")
_NS_AFTER = re.compile(r"\s+namespace\b", re.I)
_NS_BEFORE = re.compile(r"\bnamespace\s*$", re.I)


def namespace_from_prompt(prompt: str) -> str | None:
    """The namespace the prompt names, read the way an agent reads it: the quoted name.

    A quoted DNS label followed (or preceded) by the word `namespace` wins; otherwise the only
    quoted DNS label in the prompt; otherwise None (a prompt that names no namespace means the
    whole cluster). Two different candidates with nothing to choose between them is None too.
    """
    preferred: list[str] = []
    candidates: list[str] = []
    for m in _QUOTED.finditer(prompt):
        name = m.group(1)
        if name not in candidates:
            candidates.append(name)
        if _NS_AFTER.match(prompt, m.end()) or _NS_BEFORE.search(prompt[: m.start()]):
            if name not in preferred:
                preferred.append(name)
    if len(preferred) == 1:
        return preferred[0]
    if not preferred and len(candidates) == 1:
        return candidates[0]
    return None


# --------------------------------------------------------------------------- the stream


@dataclass(frozen=True)
class LookoutRecord:
    """One finding record as lookout wrote it: the envelope keys and the details, all strings."""

    kind: str
    fields: dict[str, str]
    details: dict[str, str]

    def get(self, key: str) -> str:
        return self.fields.get(key, "")


@dataclass(frozen=True)
class LookoutStream:
    """One command's output: its findings and its summary line."""

    records: tuple[LookoutRecord, ...]
    summary: dict[str, Any]


class StreamError(Exception):
    """The stream is not lookout's format: garbage, no summary line, or a count that does not add up."""


ENVELOPE = ("kind", "severity", "namespace", "kind_of_object", "name", "reason", "message", "fingerprint",
            "exempt_reason", "exempt_expires")
"""The envelope keys, in lookout's fixed order (lookout-findings.md §3); everything after is a detail."""

_LOGFMT_PAIR = re.compile(r'([a-z][a-z0-9_]*)=("(?:[^"\\]|\\.)*"|[^ ]*)(?: |$)')


def _parse_logfmt(line: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pos = 0
    while pos < len(line):
        m = _LOGFMT_PAIR.match(line, pos)
        if not m:
            raise StreamError(f"not a logfmt record at column {pos}: {line[:120]!r}")
        key, raw = m.group(1), m.group(2)
        if raw.startswith('"'):
            try:
                value: Any = json.loads(raw)
            except ValueError:
                raise StreamError(f"bad quoted value for {key}: {raw[:80]!r}") from None
        else:
            value = raw
        out[key] = value
        pos = m.end()
    return out


def parse_stream(text: str) -> LookoutStream:
    """Parse one command's stdout: finding records, then exactly one summary line.

    A line starting with `{` is JSON (one flat object), anything else logfmt, as upstream's own
    re-reader accepts. The summary is the record without `kind`. Raise StreamError for garbage, a
    missing summary (a void stream), records after the summary, a finding value that is not a
    string (JSON), or a `findings=` count that differs from the records read (partial output).
    """
    records: list[LookoutRecord] = []
    summary: dict[str, Any] | None = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if summary is not None:
            raise StreamError(f"line {n}: output after the summary line: {line[:120]!r}")
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise StreamError(f"line {n}: not JSON ({exc}): {line[:120]!r}") from None
            if not isinstance(obj, dict):
                raise StreamError(f"line {n}: not a JSON object: {line[:120]!r}")
            json_line = True
        else:
            obj = _parse_logfmt(line)
            json_line = False
        if "kind" not in obj:
            summary = obj
            continue
        fields: dict[str, str] = {}
        details: dict[str, str] = {}
        for key, value in obj.items():
            if not isinstance(value, str):
                if json_line:
                    raise StreamError(f"line {n}: finding value {key}={value!r} is not a string")
                value = str(value)
            (fields if key in ENVELOPE else details)[key] = value
        if not fields.get("kind"):
            raise StreamError(f"line {n}: finding with an empty kind")
        records.append(LookoutRecord(fields["kind"], fields, details))
    if summary is None:
        raise StreamError("no summary line (lookout says a stream without one is void)")
    declared = summary.get("findings")
    try:
        declared_n = int(declared) if declared is not None else None
    except (TypeError, ValueError):
        raise StreamError(f"summary line has findings={declared!r}, not a number") from None
    if declared_n is not None and declared_n != len(records):
        raise StreamError(f"summary says findings={declared_n} but {len(records)} records were read")
    return LookoutStream(tuple(records), summary)


# --------------------------------------------------------------------------- fingerprints (calibration)

_CANONICAL = {"ErrImagePull": "ImagePullBackOff", "BackOff": "CrashLoopBackOff", "node_notready": "NodeNotReady",
              "restart_burst": "CrashLoopBackOff", "pending": "FailedScheduling", "pending-aged": "FailedScheduling",
              "quota_blocked": "QuotaExhausted", "quota_forecast": "QuotaExhausted"}


def scan_fingerprint(reason: str, kind_of_object: str) -> str:
    """lookout's read-path fingerprint recipe (lookout-findings.md §4.1, `ScanFingerprint`, empty zone)."""
    canonical = _CANONICAL.get(reason, reason)
    body = b"\x00".join([b"k8s-event", canonical.encode(), kind_of_object.encode(), b""])
    return "sha256:" + hashlib.sha256(body).hexdigest()


def fingerprint_problems(report: Mapping[str, Any]) -> list[str]:
    """Calibration: every fingerprint the detector stamped must be the recipe's hash of its reason and kind.

    A mismatch means the binary is not the detector the findings record describes (a different
    canonical table, a changed recipe): the lookout column is then not the floor we think it is.
    Not scoring: the scorecard never reads fingerprints.
    """
    problems = []
    for f in report.get("findings") or []:
        fp = f.get("fingerprint") or ""
        if not fp:
            continue
        want = scan_fingerprint(f.get("reason", ""), f.get("kind", ""))
        if fp != want:
            problems.append(f"{f.get('kind')}/{f.get('resource_name')} {f.get('reason')}: fingerprint {fp} "
                            f"is not the recipe's {want}")
    return problems


# --------------------------------------------------------------------------- merge


@dataclass
class _Merged:
    record: LookoutRecord
    severity: str
    commands: list[str] = field(default_factory=list)
    fingerprint: str = ""


def _identity(r: LookoutRecord) -> tuple[str, str, str, str, str]:
    return (r.get("kind_of_object"), r.get("namespace"), r.get("name"), r.get("reason"), r.details.get("container", ""))


def _detail_text(r: LookoutRecord) -> str:
    extra = " ".join(f"{k}={v}" for k, v in r.details.items() if k not in ("category", "check"))
    text = "; ".join(p for p in (r.get("message"), extra) if p)
    return f"{text} (lookout {r.kind})" if text else f"(lookout {r.kind})"


def _base(command: str) -> str:
    return " ".join(w for w in command.split() if not w.startswith("-"))


def merge_streams(streams: Sequence[tuple[str, LookoutStream]], namespace: str | None) -> dict[str, Any]:
    """One HealthReport-shaped report from several commands' streams.

    Keeps findings in `namespace` and cluster-scoped ones (no namespace); all of them when
    `namespace` is None. The same object, reason and container reported by two commands is one
    finding (the worse severity, the fingerprint of whichever stamped one). `health.category`
    scorecard lines are not findings. Most severe first; otherwise in the order the commands ran.
    """
    merged: dict[tuple[str, str, str, str, str], _Merged] = {}
    dropped = 0
    categories: list[dict[str, str]] = []
    for command, stream in streams:
        for r in stream.records:
            if r.kind in SELF_REPORT_KINDS:
                categories.append({**r.fields, **r.details})
                continue
            ns = r.get("namespace")
            if namespace is not None and ns and ns != namespace:
                dropped += 1
                continue
            key = _identity(r)
            m = merged.get(key)
            if m is None:
                m = merged[key] = _Merged(r, r.get("severity"))
            elif _sev_rank(r.get("severity")) > _sev_rank(m.severity):
                m.severity = r.get("severity")
            if command not in m.commands:
                m.commands.append(command)
            if not m.fingerprint and r.get("fingerprint"):
                m.fingerprint = r.get("fingerprint")
    ordered = sorted(merged.values(), key=lambda m: -_sev_rank(m.severity))
    findings = []
    for m in ordered:
        r = m.record
        obj = f"{r.get('kind_of_object') or '?'}/{r.get('name') or '?'}"
        finding: dict[str, Any] = {
            "kind": r.get("kind_of_object"),
            "resource_name": r.get("name"),
            "namespace": r.get("namespace"),
            "reason": r.get("reason"),
            "severity": m.severity,
            "title": f"{obj} {r.get('reason') or r.kind}",
            "detail": _detail_text(r),
            "lookout_kind": r.kind,
            "lookout_commands": list(m.commands),
            "details": dict(r.details),
        }
        if m.fingerprint:
            finding["fingerprint"] = m.fingerprint
        findings.append(finding)
    overall = _overall(findings)
    where = f'namespace "{namespace}"' if namespace else "the cluster"
    if findings:
        first = findings[0]
        summary = (f"{overall.upper()}: {first['title']} — {len(findings)} finding(s) in {where} "
                   f"from lookout {', '.join(dict.fromkeys(_base(c) for c, _ in streams))}")
    else:
        summary = f"OK: lookout reports nothing in {where}"
    return {
        "overall_severity": overall,
        "summary": summary,
        "findings": findings,
        "lookout": {
            "namespace": namespace,
            "commands": [{"command": c, "summary": s.summary, "records": len(s.records)} for c, s in streams],
            "categories": categories,
            "dropped_other_namespaces": dropped,
        },
    }


def _sev_rank(severity: str) -> int:
    return rank(severity)


def _overall(findings: Iterable[Mapping[str, Any]]) -> str:
    best = -1
    for f in findings:
        best = max(best, rank(str(f.get("severity", ""))))
    if best < 0:
        return "ok"
    return {3: "critical", 2: "warning", 1: "info"}.get(best, "info")


# --------------------------------------------------------------------------- the subject


class LookoutSubject(Subject):
    """`lookout:<binary>` (default: `lookout` on PATH)."""

    scheme = "lookout"

    def __init__(self, name: str, spec: str, rest: str) -> None:
        super().__init__(name, spec)
        words = split_command(spec, rest)
        if len(words) > 1:
            raise PackError(f"--simian-subject {spec!r}: lookout: takes only the binary; the adapter chooses "
                            "each command's flags (see docs/subjects-adapters.md)")
        self.program = resolve_program(words[0] if words else "lookout", spec)

    def investigate(self, ctx: SubjectContext) -> SubjectResult:
        deadline = time.monotonic() + ctx.timeout
        namespace = namespace_from_prompt(ctx.prompt)
        scope = [f"--namespace={namespace}"] if namespace else ["-A"]
        streams: list[tuple[str, LookoutStream]] = []
        runs: list[dict[str, Any]] = []
        stdout_bytes = 0
        last: ProcessOutcome | None = None

        def run(words: list[str]) -> LookoutStream:
            nonlocal stdout_bytes, last
            out = self._run(words, ctx, deadline)
            last = out
            stdout_bytes += out.stdout_bytes
            runs.append({"command": " ".join(words), "exit_code": out.exit_code,
                         "duration": round(out.duration, 3), "stdout_bytes": out.stdout_bytes})
            stream = self._check(words, out)
            streams.append((" ".join(words), stream))
            return stream

        run(["health", *scope])
        run(["triage", "delta", *scope, PENDING_AGE])
        for kind, ns, wname in self._workloads(namespace, ctx, deadline):
            run(["state", "edges", f"--workload={kind}/{ns}/{wname}"])
        drain = run(["stab", "drain", "-A"])
        for node in _gridlocked_nodes(drain):
            run(["stab", "drain", f"--node={node}"])
        report = merge_streams(streams, namespace)
        assert last is not None
        return SubjectResult(report=report, exit_code=0, stdout_tail=last.stdout[-4096:],
                             stderr_tail=last.stderr[-4096:], stdout_bytes=stdout_bytes,
                             duration=ctx.timeout - max(0.0, deadline - time.monotonic()),
                             extra={"lookout_runs": runs,
                                    "fingerprint_problems": fingerprint_problems(report)})

    # ------------------------------------------------------------------ helpers

    def _run(self, words: list[str], ctx: SubjectContext, deadline: float) -> ProcessOutcome:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SubjectError(f"timed out after {ctx.timeout:g}s before `lookout {' '.join(words)}` ran")
        # lookout's own --timeout a little inside ours, so it fails with its own words when it can.
        own = max(1, int(remaining) - 1)
        argv = [self.program, *words, "--format=json", f"--timeout={own}s"]
        out = run_process(argv, stdin_text="", env=ctx.env, cwd=ctx.workdir, timeout=remaining)
        if out.timed_out:
            raise SubjectError(f"timed out after {ctx.timeout:g}s in `lookout {' '.join(words)}` "
                               "(process group killed)")
        return out

    def _check(self, words: list[str], out: ProcessOutcome) -> LookoutStream:
        cmd = "lookout " + " ".join(words)
        err = (out.stderr.strip().splitlines() or [""])[-1][:300]
        if out.exit_code == 2:
            raise HarnessError(f"`{cmd} --format=json` is a usage error (exit 2): the lookout adapter is wrong "
                               f"for this lookout binary" + (f": {err}" if err else ""), stage="subject")
        if out.exit_code != 0:
            raise SubjectError(f"`{cmd}` exited {out.exit_code}" + (f": {err}" if err else ""),
                               exit_code=out.exit_code)
        if out.stdout_bytes > len(out.stdout.encode("utf-8", errors="replace")):
            raise SubjectError(f"`{cmd}` printed {out.stdout_bytes} bytes, more than the harness keeps; "
                               "the findings at the head of the stream are lost")
        try:
            return parse_stream(out.stdout)
        except StreamError as exc:
            raise SubjectError(f"`{cmd}` output is not lookout's finding stream: {exc}") from None

    def _workloads(self, namespace: str | None, ctx: SubjectContext,
                   deadline: float) -> list[tuple[str, str, str]]:
        """The workloads in scope, listed with the subject's own kubeconfig and the pinned kubectl."""
        kubectl = shutil.which("kubectl", path=ctx.env.get("PATH"))
        if kubectl is None:
            raise HarnessError("lookout: needs kubectl on the subject's PATH to list workloads for `state edges`",
                               stage="subject")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SubjectError(f"timed out after {ctx.timeout:g}s while listing workloads")
        scope = ["-n", namespace] if namespace else ["-A"]
        argv = [kubectl, "get", ",".join(r for r, _ in WORKLOAD_KINDS), *scope, "-o", "json"]
        out = run_process(argv, stdin_text="", env=ctx.env, cwd=ctx.workdir, timeout=remaining)
        if out.timed_out:
            raise SubjectError(f"timed out after {ctx.timeout:g}s while listing workloads")
        if out.exit_code != 0:
            err = (out.stderr.strip().splitlines() or [""])[-1][:300]
            raise HarnessError(f"listing workloads for `state edges` failed (kubectl exit {out.exit_code}): {err}",
                               stage="subject")
        try:
            items = json.loads(out.stdout).get("items") or []
        except (ValueError, AttributeError) as exc:
            raise HarnessError(f"listing workloads for `state edges`: kubectl printed no JSON list: {exc}",
                               stage="subject") from None
        kinds = {k for _, k in WORKLOAD_KINDS}
        found = set()
        for it in items:
            kind = str(it.get("kind", ""))
            meta = it.get("metadata") or {}
            if kind in kinds and meta.get("name"):
                found.add((kind, str(meta.get("namespace") or namespace or ""), str(meta["name"])))
        return sorted(found)


def _gridlocked_nodes(stream: LookoutStream) -> list[str]:
    """Nodes `stab drain -A` says hold a gridlocked PDB: `stab drain --node` names the PDB itself."""
    nodes = []
    for r in stream.records:
        gl = r.details.get("pdb_gridlock", "0")
        if r.kind == "drain.node" and gl not in ("", "0") and r.get("name") and r.get("name") not in nodes:
            nodes.append(r.get("name"))
    return sorted(nodes)
