"""Efficacy probes: proof that a fault landed, polled in order under one shared deadline.

Why: an eval result whose fault has no passing efficacy record is a harness bug, not a data point. A
scenario's Settle probes are checked in the order written, each polled until it passes, all under the one
deadline the attempt carries (upstream's settle semantics: poll, retry errors, one deadline for the lot).
Every probe result is one `fault.efficacy` event with the observed value; a timeout is an InjectError and
the attempt is NOT SCORED. On the embedded cluster the loop advances its virtual clock between polls; on a
real cluster it waits in real time.

The `k8s` probe renders a kubectl JSONPath template exactly as `kubectl get -o jsonpath=...` does
(:mod:`pytest_simian.jsonpath`). The executor turns each result into a `fault.efficacy` event.
Must not: compute what broke downstream (efficacy, never outcome), run anything on the harness host, or
write the audit log.
"""

from __future__ import annotations

import math
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_simian import clock
from pytest_simian.cluster.kube import KubeError
from pytest_simian.jsonpath import JSONPathError, render_jsonpath
from pytest_simian.pack.durations import parse_duration
from pytest_simian.pack.models import HttpProbe, K8sProbe, LogsProbe
from pytest_simian.record.audit import cap

POLL_SECONDS = 2.0
"""Upstream polls every 2 seconds (virtual seconds on the embedded cluster)."""


# =============================================================================== probe evaluation


@dataclass
class ProbeOutcome:
    """One evaluation of one probe."""

    passed: bool
    observed: str
    """What was seen: the rendered output, the matched log line, the status and latency, or the error."""


def _ns(probe: Any, default_namespace: str) -> str:
    return getattr(probe, "namespace", None) or default_namespace


def evaluate_k8s(kube: Any, probe: K8sProbe, default_namespace: str) -> ProbeOutcome:
    """The probe as `kubectl get RESOURCE [NAME] -n NS [-l SELECTOR] -o jsonpath=...` would see it."""
    ns = _ns(probe, default_namespace)
    try:
        res = kube.resolve(probe.resource)
        if probe.object_name:
            data: Any = kube.get(res, ns if res.namespaced else None, probe.object_name)
            exists = True
        else:
            items = kube.list(res, ns if res.namespaced else None, selector=probe.selector)
            data = {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}}
            exists = bool(items)
        rendered = render_jsonpath(probe.jsonpath, data)
    except KubeError as exc:
        return ProbeOutcome(False, f"error: {exc.message}")
    except JSONPathError as exc:
        return ProbeOutcome(False, f"error: {exc}")
    if probe.contains is not None:
        return ProbeOutcome(probe.contains in rendered, rendered)
    if probe.equals is not None:
        return ProbeOutcome(rendered.strip() == probe.equals.strip(), rendered)
    # empty: true, and only over objects that exist (an EndpointSlice not yet created proves nothing)
    if not exists:
        return ProbeOutcome(False, "(no objects listed yet)")
    return ProbeOutcome(rendered.strip() == "", rendered)


def evaluate_logs(kube: Any, probe: LogsProbe, default_namespace: str) -> ProbeOutcome:
    """A pattern in the current (or previous) log of the pods named by `pod` (name or prefix) or `selector`."""
    ns = _ns(probe, default_namespace)
    pattern = re.compile(probe.regex) if probe.regex is not None else None
    since = int(math.ceil(parse_duration(probe.since))) if probe.since else None
    try:
        pods_res = kube.resolve("pods")
        pods = kube.list(pods_res, ns, selector=probe.selector)
    except KubeError as exc:
        return ProbeOutcome(False, f"error: {exc.message}")
    if probe.pod is not None:
        pods = [p for p in pods if p["metadata"]["name"] == probe.pod
                or p["metadata"]["name"].startswith(probe.pod + "-")]
    if not pods:
        return ProbeOutcome(False, "(no pods)")
    last = ""
    for p in sorted(pods, key=lambda p: p["metadata"]["name"]):
        try:
            text = kube.logs(ns, p["metadata"]["name"], container=probe.container, previous=probe.previous,
                             since_seconds=since)
        except KubeError as exc:
            last = f"error: {exc.message}"
            continue
        for line in text.splitlines():
            hit = pattern.search(line) is not None if pattern else (probe.contains or "") in line
            if hit:
                return ProbeOutcome(True, line)
        if text.strip():
            last = text.strip().splitlines()[-1]
    return ProbeOutcome(False, last)


def evaluate_http(probe: HttpProbe, *, timeout: float = 10.0) -> ProbeOutcome:
    """A request from where the harness runs: status and latency."""
    req = urllib.request.Request(probe.url, method=probe.method)
    start = time.monotonic()
    status: int | str
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - the pack names the URL
            resp.read(65536)
            status = resp.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return ProbeOutcome(False, f"error: {getattr(exc, 'reason', exc)}")
    latency = time.monotonic() - start
    ok = True
    if probe.expect_status is not None and status != probe.expect_status:
        ok = False
    if probe.min_latency is not None and latency < parse_duration(probe.min_latency):
        ok = False
    if probe.max_latency is not None and latency > parse_duration(probe.max_latency):
        ok = False
    return ProbeOutcome(ok, f"status {status} in {latency:.3f}s")


def evaluate(kube: Any, probe: Any, default_namespace: str) -> ProbeOutcome:
    if isinstance(probe, K8sProbe):
        return evaluate_k8s(kube, probe, default_namespace)
    if isinstance(probe, LogsProbe):
        return evaluate_logs(kube, probe, default_namespace)
    if isinstance(probe, HttpProbe):
        return evaluate_http(probe)
    return ProbeOutcome(False, f"error: unknown probe type {type(probe).__name__}")


# =============================================================================== the settle loop


class Waiter:
    """How the loop waits between polls: real time on a real cluster, virtual time on the embedded one."""

    def __init__(self, *, cluster_clock: Any = None, poll: float = POLL_SECONDS, host_pause: float = 0.05,
                 sleep: Callable[[float], None] = time.sleep, monotonic: Callable[[], float] = clock.monotonic):
        self.cluster_clock = cluster_clock
        self.poll = poll
        self.host_pause = host_pause
        self.sleep = sleep
        self.monotonic = monotonic

    def start(self) -> None:
        if self.cluster_clock is not None:
            self.cluster_clock.set_realtime(False)

    def stop(self) -> None:
        if self.cluster_clock is not None:
            self.cluster_clock.set_realtime(True)

    def wait(self, deadline: float) -> None:
        if self.cluster_clock is not None:
            # the embedded cluster's time moves a poll interval; the host gives its controllers a moment
            self.cluster_clock.advance(self.poll)
            self.sleep(min(self.host_pause, max(0.0, deadline - self.monotonic())))
        else:
            self.sleep(min(self.poll, max(0.0, deadline - self.monotonic())))


@dataclass
class SettleFailure(Exception):
    """A probe did not pass before the shared deadline."""

    probe: str
    expected: str
    last: str
    waited: float

    def __str__(self) -> str:
        return (f'settle probe "{self.probe}" did not pass within the settle deadline ({self.waited:.0f}s): '
                f'expected {self.expected}, last output "{cap(self.last, 200)}"')


def expectation(probe: Any) -> str:
    if isinstance(probe, K8sProbe):
        if probe.contains is not None:
            return f"output containing {probe.contains!r}"
        if probe.equals is not None:
            return f"output equal to {probe.equals!r}"
        return "empty output over objects that exist"
    if isinstance(probe, LogsProbe):
        return f"a log line matching {(probe.contains or probe.regex)!r}"
    if isinstance(probe, HttpProbe):
        parts = []
        if probe.expect_status is not None:
            parts.append(f"status {probe.expect_status}")
        if probe.min_latency:
            parts.append(f"latency >= {probe.min_latency}")
        if probe.max_latency:
            parts.append(f"latency <= {probe.max_latency}")
        return " and ".join(parts)
    return "?"


def settle(probes: Sequence[Any], *, evaluate_one: Callable[[Any], ProbeOutcome], deadline: float,
           waiter: Waiter, on_result: Callable[[Any, ProbeOutcome, float], None],
           progress: Callable[[str], None] = lambda _line: None) -> None:
    """Check `probes` in order, each polled until it passes, all under `deadline` (monotonic seconds).

    `on_result(probe, outcome, elapsed)` is called once per probe: when it passes, or with the last
    outcome when the deadline passes (then SettleFailure is raised and later probes are not tried).
    Evaluation errors count as not yet satisfied and are retried.
    """
    started = waiter.monotonic()
    waiter.start()
    try:
        for probe in probes:
            progress(f"waiting for: {probe.name}")
            t0 = waiter.monotonic()
            while True:
                outcome = evaluate_one(probe)
                if outcome.passed:
                    on_result(probe, outcome, waiter.monotonic() - t0)
                    break
                if waiter.monotonic() >= deadline:
                    on_result(probe, outcome, waiter.monotonic() - t0)
                    raise SettleFailure(probe.name, expectation(probe), outcome.observed,
                                        waiter.monotonic() - started)
                waiter.wait(deadline)
    finally:
        waiter.stop()


def efficacy_payload(fault_index: int, probe: Any, outcome: ProbeOutcome, elapsed: float) -> dict[str, Any]:
    return {"fault_index": fault_index, "probe": probe.name, "type": probe.type, "observed": cap(outcome.observed),
            "passed": outcome.passed, "elapsed": round(elapsed, 3)}
