"""Settle semantics: in order, one shared deadline, polled; `empty` needs the objects it lists to exist."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_simian.pack.models import K8sProbe, LogsProbe
from pytest_simian.probes import ProbeOutcome, SettleFailure, Waiter, evaluate_k8s, evaluate_logs, settle
from tests.engine.fakes import FakeKube


class FakeTime:
    def __init__(self) -> None:
        self.t = 0.0

    def monotonic(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


class FakeClock:
    """The embedded cluster's clock handle, recording what the loop asked of it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def advance(self, seconds: float) -> None:
        self.calls.append(("advance", seconds))

    def set_realtime(self, realtime: bool) -> None:
        self.calls.append(("realtime", realtime))


def k8s(name: str, **kw: Any) -> K8sProbe:
    return K8sProbe.model_validate({"type": "k8s", "name": name, "resource": "pods", "jsonpath": "{.items[*]}",
                                    **({"contains": "x"} if not kw else kw)})


def test_in_order_under_one_shared_deadline() -> None:
    t = FakeTime()
    seen: list[tuple[str, float]] = []
    passes_at = {"first": 10.0, "second": 25.0, "third": 0.0}

    def evaluate_one(p: Any) -> ProbeOutcome:
        seen.append((p.name, t.t))
        return ProbeOutcome(t.t >= passes_at[p.name], f"t={t.t}")

    results: list[tuple[str, bool, float]] = []
    settle([k8s("first"), k8s("second"), k8s("third")], evaluate_one=evaluate_one, deadline=30.0,
           waiter=Waiter(sleep=t.sleep, monotonic=t.monotonic), on_result=lambda p, o, e: results.append(
               (p.name, o.passed, e)))
    assert [r[:2] for r in results] == [("first", True), ("second", True), ("third", True)]
    # the second probe is not looked at before the first passed; the third only after the second
    first_second = min(ts for n, ts in seen if n == "second")
    assert first_second >= 10.0 and min(ts for n, ts in seen if n == "third") >= 25.0
    assert results[1][2] == pytest.approx(16.0)  # its own elapsed time, polled every 2s from t=10


def test_the_deadline_is_shared_not_per_probe() -> None:
    t = FakeTime()
    results: list[tuple[str, bool]] = []
    with pytest.raises(SettleFailure) as info:
        settle([k8s("slow-ish", contains="y"), k8s("quick")], evaluate_one=lambda p: ProbeOutcome(
            t.t >= 20 if p.name == "slow-ish" else False, "last seen"), deadline=30.0,
            waiter=Waiter(sleep=t.sleep, monotonic=t.monotonic),
            on_result=lambda p, o, e: results.append((p.name, o.passed)))
    assert results == [("slow-ish", True), ("quick", False)]
    assert t.t == pytest.approx(30.0)  # 20s for the first left 10s for the second, not 30
    assert "quick" in str(info.value) and "last seen" in str(info.value)


def test_one_result_per_probe_and_errors_are_retried() -> None:
    t = FakeTime()
    calls = {"n": 0}

    def evaluate_one(p: Any) -> ProbeOutcome:
        calls["n"] += 1
        return ProbeOutcome(calls["n"] >= 4, "error: connection refused" if calls["n"] < 4 else "ok")

    results: list[ProbeOutcome] = []
    settle([k8s("p")], evaluate_one=evaluate_one, deadline=100.0, waiter=Waiter(sleep=t.sleep, monotonic=t.monotonic),
           on_result=lambda p, o, e: results.append(o))
    assert [r.passed for r in results] == [True] and calls["n"] == 4


def test_on_sim_the_virtual_clock_advances_between_polls_and_realtime_returns() -> None:
    t = FakeTime()
    c = FakeClock()
    n = {"i": 0}

    def evaluate_one(p: Any) -> ProbeOutcome:
        n["i"] += 1
        return ProbeOutcome(n["i"] > 3, "")

    settle([k8s("p")], evaluate_one=evaluate_one, deadline=100.0,
           waiter=Waiter(cluster_clock=c, sleep=t.sleep, monotonic=t.monotonic), on_result=lambda *a: None)
    assert c.calls[0] == ("realtime", False) and c.calls[-1] == ("realtime", True)
    assert [x for x in c.calls if x[0] == "advance"] == [("advance", 2.0)] * 3
    assert t.t < 1.0  # host time barely moves: the cluster's does

    c.calls.clear()
    with pytest.raises(KeyboardInterrupt):
        settle([k8s("p")], evaluate_one=lambda p: (_ for _ in ()).throw(KeyboardInterrupt()), deadline=100.0,
               waiter=Waiter(cluster_clock=c, sleep=t.sleep, monotonic=t.monotonic), on_result=lambda *a: None)
    assert c.calls[-1] == ("realtime", True)


def test_on_a_real_cluster_it_waits_in_real_time() -> None:
    t = FakeTime()
    settle([k8s("p")], evaluate_one=lambda p: ProbeOutcome(t.t >= 6, ""), deadline=100.0,
           waiter=Waiter(sleep=t.sleep, monotonic=t.monotonic), on_result=lambda *a: None)
    assert t.t == pytest.approx(6.0)


def _slice(name: str, addresses: list[str]) -> dict[str, Any]:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name, "namespace": "shop", "labels": {"kubernetes.io/service-name": "frontend"}},
            "endpoints": [{"addresses": addresses, "conditions": {"ready": True}}] if addresses else []}


def test_empty_passes_only_when_the_objects_it_lists_exist() -> None:
    kube = FakeKube()
    probe = K8sProbe.model_validate({"type": "k8s", "name": "no endpoints", "resource": "endpointslices",
                                     "selector": "kubernetes.io/service-name=frontend",
                                     "jsonpath": "{.items[*].endpoints[*].addresses[*]}", "empty": True})
    before = evaluate_k8s(kube, probe, "shop")
    assert not before.passed  # no EndpointSlice yet: empty output proves nothing
    kube._store(kube.resolve("endpointslices"), _slice("frontend-abc", []))
    assert evaluate_k8s(kube, probe, "shop").passed
    kube._store(kube.resolve("endpointslices"), _slice("frontend-abc", ["10.0.0.1"]))
    out = evaluate_k8s(kube, probe, "shop")
    assert not out.passed and out.observed == "10.0.0.1"


def test_empty_on_a_named_object_needs_the_object() -> None:
    kube = FakeKube()
    probe = K8sProbe.model_validate({"type": "k8s", "name": "x", "resource": "pods", "object": "web",
                                     "jsonpath": "{.status.reason}", "empty": True})
    assert not evaluate_k8s(kube, probe, "shop").passed
    kube._store(kube.resolve("pods"), {"metadata": {"name": "web", "namespace": "shop"}, "status": {}})
    assert evaluate_k8s(kube, probe, "shop").passed


def test_equals_and_contains() -> None:
    kube = FakeKube()
    kube._store(kube.for_kind("apps/v1", "Deployment"), {"metadata": {"name": "web", "namespace": "shop"},
                                                         "status": {"availableReplicas": 12}})
    eq = K8sProbe.model_validate({"type": "k8s", "name": "x", "resource": "deploy", "object": "web",
                                  "jsonpath": "{.status.availableReplicas}", "equals": "2"})
    co = K8sProbe.model_validate({"type": "k8s", "name": "x", "resource": "deploy", "object": "web",
                                  "jsonpath": "{.status.availableReplicas}", "contains": "2"})
    assert not evaluate_k8s(kube, eq, "shop").passed  # 12 is not 2
    assert evaluate_k8s(kube, co, "shop").passed  # upstream's contains is a substring test


def test_logs_probe_reads_the_selected_pods() -> None:
    class LogKube(FakeKube):
        def logs(self, ns: str, pod: str, **kw: Any) -> str:
            assert kw["since_seconds"] == 25
            return "reconcile attempt 3\nwget: can't connect to remote host (127.0.0.1): Connection refused\n"

    kube = LogKube()
    kube._store(kube.resolve("pods"), {"metadata": {"name": "inv-1", "namespace": "shop",
                                                    "labels": {"app": "inv"}}})
    probe = LogsProbe.model_validate({"type": "logs", "name": "x", "selector": "app=inv", "since": "25s",
                                      "contains": "Connection refused"})
    out = evaluate_logs(kube, probe, "shop")
    assert out.passed and out.observed.startswith("wget:")
    none = LogsProbe.model_validate({"type": "logs", "name": "x", "selector": "app=other", "contains": "x"})
    assert not evaluate_logs(kube, none, "shop").passed


def test_http_probe_checks_status_and_latency() -> None:
    import http.server
    import threading

    from pytest_simian.pack.models import HttpProbe
    from pytest_simian.probes import evaluate_http

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self.send_response(503 if self.path == "/down" else 200)
            self.end_headers()
            self.wfile.write(b"x")

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        down = HttpProbe.model_validate({"type": "http", "name": "x", "url": base + "/down", "expect_status": 503})
        assert evaluate_http(down).passed
        up = HttpProbe.model_validate({"type": "http", "name": "x", "url": base + "/", "expect_status": 503})
        out = evaluate_http(up)
        assert not out.passed and out.observed.startswith("status 200")
        slow = HttpProbe.model_validate({"type": "http", "name": "x", "url": base + "/", "min_latency": "5s"})
        assert not evaluate_http(slow).passed
        refused = HttpProbe.model_validate({"type": "http", "name": "x", "url": "http://127.0.0.1:9/",
                                            "expect_status": 200})
        assert evaluate_http(refused, timeout=2).observed.startswith("error:")
    finally:
        server.shutdown()
