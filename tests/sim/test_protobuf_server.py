"""End to end: kubectl 1.36's protobuf request bodies through the embedded API server.

The decoder's own tests (``test_protobuf.py``) compare decoded bodies with kubectl's JSON; this module
checks that every typed-client write kubectl sends as protobuf is accepted by the server and stored with
the fields the body carried (explicit zeros of pointer fields included). It shares the session's server,
so it stays in its own namespace and creates nothing that draws from a shared allocator (no Services).
"""

from __future__ import annotations

import base64
import json

import pytest

from .conftest import RunningSim

NS = "pb-e2e"

CREATES = [
    ["create", "deployment", "d0", "--image=nginx", "--replicas=0", "-n", NS],
    ["create", "job", "j", "--image=busybox", "-n", NS, "--", "echo", "hi"],
    ["create", "cronjob", "cj", "--image=busybox", "--schedule=*/5 * * * *", "-n", NS],
    ["create", "secret", "generic", "s", "--from-literal=k=v", "-n", NS],
    ["create", "configmap", "c", "--from-literal=a=b", "-n", NS],
    ["create", "serviceaccount", "sa", "-n", NS],
    ["create", "quota", "q", "--hard=pods=2,requests.cpu=500m", "-n", NS],
    ["create", "poddisruptionbudget", "pdb", "--selector=app=d0", "--min-available=50%", "-n", NS],
    ["create", "role", "r", "--verb=get,list", "--resource=pods", "-n", NS],
    ["create", "rolebinding", "rb", "--role=r", "--serviceaccount=pb-e2e:sa", "-n", NS],
    ["create", "clusterrole", "pb-e2e-cr", "--verb=get", "--non-resource-url=/healthz"],
]


@pytest.fixture(scope="module")
def created(sim: RunningSim) -> RunningSim:
    sim.kubectl("create", "namespace", NS)
    for args in CREATES:
        r = sim.kubectl(*args, check=False)
        assert r.returncode == 0, f"kubectl {' '.join(args)}: {r.stderr}"
        assert "created" in r.stdout
    return sim


def _get(sim: RunningSim, *args: str) -> dict:  # type: ignore[type-arg]
    return json.loads(sim.kubectl("get", *args, "-o", "json").stdout)


def test_pointer_zero_survives_to_storage(created: RunningSim) -> None:
    deploy = _get(created, "deployment", "d0", "-n", NS)
    assert deploy["spec"]["replicas"] == 0
    assert deploy["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx"
    assert "stdin" not in deploy["spec"]["template"]["spec"]["containers"][0]


def test_bytes_quantities_and_intorstring_are_stored_as_json(created: RunningSim) -> None:
    assert _get(created, "secret", "s", "-n", NS)["data"] == {"k": base64.b64encode(b"v").decode()}
    assert _get(created, "resourcequota", "q", "-n", NS)["spec"]["hard"] == {"pods": "2", "requests.cpu": "500m"}
    assert _get(created, "pdb", "pdb", "-n", NS)["spec"]["minAvailable"] == "50%"


def test_rbac_objects(created: RunningSim) -> None:
    rb = _get(created, "rolebinding", "rb", "-n", NS)
    assert rb["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}
    assert rb["subjects"] == [{"kind": "ServiceAccount", "name": "sa", "namespace": NS}]
    cr = _get(created, "clusterrole", "pb-e2e-cr")
    assert cr["rules"] == [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]


def test_token_request(created: RunningSim) -> None:
    r = created.kubectl("create", "token", "sa", "--duration=1h", "-n", NS, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
