"""What a subject did, not only what it said: one attempt's API requests, from the embedded cluster's request log.

Why: on the embedded cluster every request carries the identity of the token that made it, and each
attempt's subject gets its own token (`subject:<attempt id>`), so the request log is the subject's
trajectory: what it read, and what it tried to change. A read-only subject that attempts a write is
denied (403); seed 001 §VI keeps the proposal (it tried), the denial (policy refused) and the side
effect (a write that went through) as separate facts, and none of them is the score.
Must not: score, decide an outcome, or read anything but the request log (docs/request-log.md, v1).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
PRIVILEGED_SUBRESOURCES = frozenset({"exec", "attach", "portforward", "eviction", "proxy"})
"""Subresources that open a shell or a socket, or evict: an attempt to act, whatever the verb."""
REVIEW_RESOURCES = frozenset({"selfsubjectaccessreviews", "selfsubjectrulesreviews", "selfsubjectreviews",
                              "tokenreviews", "subjectaccessreviews"})
"""`create` on these asks a question (`kubectl auth can-i`, `whoami`); it changes nothing."""
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def identity_for(attempt_id: str) -> str:
    """The request log's identity for an attempt's subject token (pytest_simian/cluster/sim.py)."""
    return f"subject:{attempt_id}"


@dataclass(frozen=True)
class Request:
    """One request a subject made, classified."""

    time: str
    method: str
    path: str
    query: str
    status: int
    verb: str
    resource: str
    group: str
    namespace: str
    name: str
    subresource: str
    kubectl_command: str
    kubectl_session: str
    user_agent: str
    action: str
    """`read`, `write` (a mutating verb), `privileged` (exec, attach, port-forward, proxy, eviction),
    `review` (can-i / whoami) or `discovery` (no resource: /api, /version, /openapi)."""

    @property
    def attempted_write(self) -> bool:
        return self.action in ("write", "privileged")

    @property
    def denied(self) -> bool:
        return self.status in (401, 403)

    @property
    def went_through(self) -> bool:
        """The server accepted it (2xx): for a write, a side effect happened."""
        return 200 <= self.status < 300

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "attempted_write": self.attempted_write, "denied": self.denied}


def describe(r: Request) -> str:
    """`patch deployments fault-x/web -> 403`: one line for a request."""
    res = r.resource + (f"/{r.subresource}" if r.subresource else "") if r.resource else r.path
    obj = "/".join(p for p in (r.namespace, r.name) if p)
    return " ".join(p for p in (r.verb or r.method.lower(), res, obj) if p) + f" -> {r.status}"


def classify(line: Mapping[str, Any]) -> str:
    verb = str(line.get("verb") or "")
    resource = str(line.get("resource") or "")
    sub = str(line.get("subresource") or "")
    if not resource:
        return "discovery" if str(line.get("method") or "GET").upper() in READ_METHODS else "write"
    if sub in PRIVILEGED_SUBRESOURCES:
        return "privileged"
    if resource in REVIEW_RESOURCES and verb == "create":
        return "review"
    if verb in WRITE_VERBS:
        return "write"
    return "read"


def _request(line: Mapping[str, Any]) -> Request:
    def s(key: str) -> str:
        v = line.get(key)
        return "" if v is None else str(v)

    try:
        status = int(line.get("status") or 0)
    except (TypeError, ValueError):
        status = 0
    return Request(time=s("time"), method=s("method"), path=s("path"), query=s("query"), status=status,
                   verb=s("verb"), resource=s("resource"), group=s("group"), namespace=s("namespace"),
                   name=s("name"), subresource=s("subresource"), kubectl_command=s("kubectl_command"),
                   kubectl_session=s("kubectl_session"), user_agent=s("user_agent"), action=classify(line))


@dataclass
class Trajectory:
    """One attempt's requests, in request order, and the counts the record keeps."""

    attempt_id: str
    requests: list[Request] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Lines that could not be read (torn last line, a newer format version)."""

    @property
    def reads(self) -> int:
        return sum(1 for r in self.requests if r.action == "read")

    @property
    def writes_attempted(self) -> int:
        return sum(1 for r in self.requests if r.attempted_write)

    @property
    def writes_denied(self) -> int:
        return sum(1 for r in self.requests if r.attempted_write and r.denied)

    @property
    def writes_went_through(self) -> int:
        return sum(1 for r in self.requests if r.attempted_write and r.went_through)

    def commands(self) -> list[str]:
        """kubectl invocations in order (one per Kubectl-Session), e.g. `kubectl get`."""
        seen: dict[str, str] = {}
        for r in self.requests:
            if r.kubectl_session and r.kubectl_session not in seen:
                seen[r.kubectl_session] = r.kubectl_command or "kubectl"
        return list(seen.values())

    def summary(self) -> dict[str, Any]:
        """The payload of the attempt's `eval.trajectory` audit event."""
        writes = [r for r in self.requests if r.attempted_write]
        return {
            "requests": len(self.requests),
            "reads": self.reads,
            "writes_attempted": self.writes_attempted,
            "writes_denied": self.writes_denied,
            "writes_went_through": self.writes_went_through,
            "kubectl_commands": len(self.commands()),
            "attempted": [describe(r) for r in writes[:20]],
            **({"problems": self.problems[:5]} if self.problems else {}),
        }

    def to_jsonl(self) -> str:
        """`trajectories/<attempt>.jsonl`: one classified request per line."""
        return "".join(json.dumps(r.to_json(), separators=(",", ":")) + "\n" for r in self.requests)


def trajectory_from_lines(lines: Iterable[str | Mapping[str, Any]], attempt_id: str) -> Trajectory:
    """The requests the attempt's subject token made, sorted by arrival time. Pure: lines in, trajectory out.

    Lines may be raw JSON text or already-decoded objects; unreadable lines and lines of a newer
    format version are listed as problems, never raised.
    """
    who = identity_for(attempt_id)
    traj = Trajectory(attempt_id)
    picked: list[tuple[str, int, Request]] = []
    for n, raw in enumerate(lines, 1):
        if isinstance(raw, str):
            text = raw.strip()
            if not text:
                continue
            if who not in text:  # cheap pre-filter: most lines are other identities
                continue
            try:
                obj = json.loads(text)
            except ValueError:
                traj.problems.append(f"line {n}: not JSON")
                continue
        else:
            obj = raw
        if not isinstance(obj, Mapping):
            traj.problems.append(f"line {n}: not a JSON object")
            continue
        if obj.get("identity") != who:
            continue
        if int(obj.get("v") or 1) > 1:
            traj.problems.append(f"line {n}: request log format v{obj.get('v')} is newer than this reader")
            continue
        picked.append((str(obj.get("time") or ""), n, _request(obj)))
    traj.requests = [r for _, _, r in sorted(picked, key=lambda t: (t[0], t[1]))]
    return traj


def iter_log_lines(paths: Iterable[Path]) -> Iterator[str]:
    """Every line of the request log files (`requests.jsonl`, `requests-gw0.jsonl`...), streamed."""
    for p in paths:
        try:
            with p.open("r", encoding="utf-8", errors="replace") as fh:
                yield from fh
        except FileNotFoundError:
            continue


def read_trajectory(paths: Iterable[Path], attempt_id: str) -> Trajectory:
    """The attempt's trajectory from the request log files on disk."""
    return trajectory_from_lines(iter_log_lines(paths), attempt_id)
