"""Trajectories from the embedded cluster's request log (docs/request-log.md v1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_simian.subjects.trajectory import classify, read_trajectory, trajectory_from_lines


def line(t: str, identity: str, method: str, path: str, status: int = 200, **res: Any) -> str:
    obj = {"v": 1, "time": f"2026-11-29T14:38:{t}Z", "identity": identity, "user": "subject", "method": method,
           "path": path, "query": "", "user_agent": "kubectl/v1.36.4", "kubectl_command": res.pop("cmd", ""),
           "kubectl_session": res.pop("session", ""), "status": status, "duration_ms": 1.0, **res}
    return json.dumps(obj)


def res(verb: str, resource: str, ns: str = "shop", name: str = "", sub: str = "", group: str = "") -> dict[str, Any]:
    return {"verb": verb, "resource": resource, "group": group, "namespace": ns, "name": name, "subresource": sub}


ME = "subject:a1"
LOG = [
    line("15.900", ME, "GET", "/api/v1/namespaces/shop/pods", cmd="kubectl get", session="s1", **res("list", "pods")),
    line("15.100", ME, "GET", "/api", cmd="kubectl get", session="s1"),
    line("16.000", "harness", "PATCH", "/apis/apps/v1/namespaces/shop/deployments/web",
         **res("patch", "deployments", name="web", group="apps")),
    line("16.100", "subject:a2", "DELETE", "/api/v1/namespaces/shop/pods/x", 403, **res("delete", "pods", name="x")),
    line("16.200", ME, "PATCH", "/apis/apps/v1/namespaces/shop/deployments/web", 403, cmd="kubectl scale",
         session="s2", **res("patch", "deployments", name="web", group="apps", sub="scale")),
    line("16.300", ME, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", 201, cmd="kubectl auth",
         session="s3", **res("create", "selfsubjectaccessreviews", ns="", group="authorization.k8s.io")),
    line("16.400", ME, "POST", "/api/v1/namespaces/shop/pods/web-1/exec", 403, cmd="kubectl exec", session="s4",
         **res("create", "pods", name="web-1", sub="exec")),
    line("16.500", ME, "GET", "/api/v1/namespaces/shop/pods/web-1/log", cmd="kubectl logs", session="s5",
         **res("get", "pods", name="web-1", sub="log")),
    '{"v":1,"time":"2026-11-29T14:38:17.000Z","identity":"subject:a1","method":"GE',  # torn last line
]


def test_only_the_attempts_identity_in_request_order() -> None:
    traj = trajectory_from_lines(LOG, "a1")
    assert [r.time[-10:] for r in traj.requests] == ["38:15.100Z", "38:15.900Z", "38:16.200Z", "38:16.300Z",
                                                     "38:16.400Z", "38:16.500Z"]
    assert [r.action for r in traj.requests] == ["discovery", "read", "write", "review", "privileged", "read"]
    assert traj.problems == ["line 9: not JSON"]


def test_proposal_denial_and_side_effect_are_separate() -> None:
    traj = trajectory_from_lines(LOG, "a1")
    s = traj.summary()
    assert s["requests"] == 6 and s["reads"] == 2
    assert s["writes_attempted"] == 2 and s["writes_denied"] == 2 and s["writes_went_through"] == 0
    assert s["attempted"] == ["patch deployments/scale shop/web -> 403", "create pods/exec shop/web-1 -> 403"]
    assert traj.commands() == ["kubectl get", "kubectl scale", "kubectl auth", "kubectl exec", "kubectl logs"]


def test_a_write_that_went_through_is_a_side_effect() -> None:
    lines = [line("20.000", "subject:w", "DELETE", "/api/v1/namespaces/shop/pods/x", 200,
                  **res("delete", "pods", name="x"))]
    s = trajectory_from_lines(lines, "w").summary()
    assert (s["writes_attempted"], s["writes_denied"], s["writes_went_through"]) == (1, 0, 1)


def test_decoded_objects_and_newer_versions() -> None:
    objs = [json.loads(LOG[0]), {**json.loads(LOG[1]), "v": 2}]
    traj = trajectory_from_lines(objs, "a1")
    assert len(traj.requests) == 1 and "newer" in traj.problems[0]


def test_classify_non_resource_writes() -> None:
    assert classify({"method": "POST", "path": "/api"}) == "write"
    assert classify({"method": "GET", "path": "/version"}) == "discovery"
    assert classify(res("watch", "pods")) == "read"
    assert classify(res("deletecollection", "pods")) == "write"
    assert classify(res("get", "pods", sub="portforward")) == "privileged"


def test_reader_over_worker_files(tmp_path: Path) -> None:
    (tmp_path / "requests-gw0.jsonl").write_text("\n".join(LOG[:4]) + "\n")
    (tmp_path / "requests-gw1.jsonl").write_text("\n".join(LOG[4:8]) + "\n")
    traj = read_trajectory(sorted(tmp_path.glob("requests*.jsonl")) + [tmp_path / "missing.jsonl"], "a1")
    assert len(traj.requests) == 6 and traj.writes_attempted == 2
    rows = [json.loads(x) for x in traj.to_jsonl().splitlines()]
    assert rows[2]["attempted_write"] is True and rows[2]["denied"] is True and rows[2]["status"] == 403
    assert "token" not in traj.to_jsonl().lower()
