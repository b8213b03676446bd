"""The real kubectl (the pinned 1.36 wheel, which sends protobuf bodies) against the embedded API server,
for every command of the protocol notes' section 4. Table output is compared with goldens whose headers cite
the upstream code they mirror; the rest asserts on behaviour."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import KUBECTL, RunningSim, golden
from .seed import HOUR, NS, log_provider, seed_shop, set_status

MANIFEST = """\
apiVersion: v1
kind: Namespace
metadata:
  name: applied
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: applied
spec:
  replicas: 2
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: registry.example/api:1.0
        env:
        - {name: MODE, value: prod}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: applied
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: m
        image: busybox:1.36
        command: ["true"]
"""


@pytest.fixture(scope="module")
def shop(sim: RunningSim) -> dict[str, Any]:
    objs = sim.call(lambda: seed_shop(sim.store))
    sim.call(lambda: sim.server.clock.advance(HOUR))
    sim.call(lambda: set_status(sim.store, objs))
    sim.store.log_provider = log_provider
    return objs


def k(sim: RunningSim, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return sim.kubectl(*args, **kw)


def test_kubectl_client_is_minor_36(sim: RunningSim) -> None:
    out = json.loads(k(sim, "version", "--client", "-o", "json").stdout)
    assert out["clientVersion"]["minor"] == "36"


def test_version_reports_136(sim: RunningSim) -> None:
    out = json.loads(k(sim, "version", "-o", "json").stdout)
    assert out["serverVersion"]["gitVersion"] == "v1.36.0"
    assert out["serverVersion"]["minor"] == "36"


def test_get_pods(sim: RunningSim, shop: dict[str, Any]) -> None:
    golden("get_pods.txt", k(sim, "get", "pods", "-n", NS).stdout)


def test_get_pods_wide(sim: RunningSim, shop: dict[str, Any]) -> None:
    golden("get_pods_wide.txt", k(sim, "get", "pods", "-n", NS, "-o", "wide").stdout)


def test_get_pods_json_yaml_jsonpath_name(sim: RunningSim, shop: dict[str, Any]) -> None:
    doc = json.loads(k(sim, "get", "pods", "-n", NS, "-o", "json").stdout)
    assert doc["kind"] == "List"
    assert [i["metadata"]["name"] for i in doc["items"]] == ["web-7d4b9c-abcde", "web-7d4b9c-fghij"]
    y = yaml.safe_load(k(sim, "get", "pods", "-n", NS, "-o", "yaml").stdout)
    assert "managedFields" not in y["items"][0]["metadata"]
    jp = k(sim, "get", "pods", "-n", NS, "-o",
           "jsonpath={.items[*].status.containerStatuses[*].state.waiting.reason}").stdout
    assert jp == "CrashLoopBackOff"
    assert k(sim, "get", "pods", "-n", NS, "-o", "name").stdout.split() == [
        "pod/web-7d4b9c-abcde", "pod/web-7d4b9c-fghij"]
    golden("get_pods_custom_columns.txt", k(
        sim, "get", "pods", "-n", NS, "-o", "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,"
        "RESTARTS:.status.containerStatuses[0].restartCount").stdout)


def test_get_multiple_kinds(sim: RunningSim, shop: dict[str, Any]) -> None:
    golden("get_deploy_svc_jobs_endpointslices.txt",
           k(sim, "get", "deploy,svc,jobs,endpointslices", "-n", NS).stdout)


def test_get_events(sim: RunningSim, shop: dict[str, Any]) -> None:
    golden("get_events.txt", k(sim, "get", "events", "-n", NS).stdout)
    sel = k(sim, "get", "events", "-n", NS, "--field-selector", "involvedObject.name=web-7d4b9c-fghij").stdout
    assert "BackOff" in sel and "Scheduled" not in sel
    sorted_ = k(sim, "get", "events", "-n", NS, "--sort-by=.lastTimestamp").stdout.splitlines()
    assert "Scheduled" in sorted_[1] and "BackOff" in sorted_[2]


def test_describe_pod(sim: RunningSim, shop: dict[str, Any]) -> None:
    golden("describe_pod.txt", k(sim, "describe", "pod", "-n", NS, "web-7d4b9c-fghij").stdout)


def test_describe_deployment(sim: RunningSim, shop: dict[str, Any]) -> None:
    golden("describe_deployment.txt", k(sim, "describe", "deployment", "-n", NS, "web").stdout)


def test_logs(sim: RunningSim, shop: dict[str, Any]) -> None:
    assert k(sim, "logs", "-n", NS, "web-7d4b9c-abcde").stdout == \
        "starting web\nlistening on :80\nready (web-7d4b9c-abcde)\n"
    assert k(sim, "logs", "-n", NS, "web-7d4b9c-fghij", "--previous").stdout == \
        "starting web\nfatal: cannot bind :80\n"
    r = k(sim, "logs", "-n", NS, "web-7d4b9c-abcde", "--previous", check=False)
    assert r.returncode == 1
    assert r.stderr.strip() == ('Error from server (BadRequest): previous terminated container "web" in pod '
                                '"web-7d4b9c-abcde" not found')
    r = k(sim, "logs", "-n", NS, "deploy/web", "--tail=1")
    assert r.stdout.startswith("ready (web-7d4b9c-")
    assert r.stderr.startswith("Found 2 pods, using pod/web-7d4b9c-")


@pytest.mark.timeout(60)  # a line lost by the stream would otherwise block readline() for the 900 s backstop
def test_logs_follow_streams_until_the_container_stops_running(sim: RunningSim, shop: dict[str, Any]) -> None:
    import os

    env = {kk: v for kk, v in os.environ.items() if not kk.startswith("KUBE")}
    env.update(KUBECONFIG=str(sim.harness_kubeconfig), KUBECACHEDIR=str(sim.cache), HOME=str(sim.tmp))
    lines = ["one"]
    sim.store.log_provider = lambda ns, pod, c, **kw: "".join(x + "\n" for x in lines)
    proc = subprocess.Popen([KUBECTL, "logs", "-f", "-n", NS, "web-7d4b9c-abcde"], stdout=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "one\n"
        lines.append("two")
        assert proc.stdout.readline() == "two\n"

        def stop() -> None:
            p = sim.store.get("pods", "web-7d4b9c-abcde", NS)
            p["status"]["containerStatuses"][0]["state"] = {"terminated": {"exitCode": 0, "reason": "Completed"}}
            sim.store.update_status("pods", p)

        sim.call(stop)
        assert proc.wait(timeout=5) == 0
    finally:
        proc.kill()
        sim.store.log_provider = log_provider

        def restore() -> None:
            p = sim.store.get("pods", "web-7d4b9c-abcde", NS)
            p["status"]["containerStatuses"][0]["state"] = {"running": {"startedAt": p["status"]["startTime"]}}
            sim.store.update_status("pods", p)

        sim.call(restore)


def test_get_all_namespaces_and_nodes(sim: RunningSim, shop: dict[str, Any]) -> None:
    out = k(sim, "get", "pods", "-A").stdout
    assert out.splitlines()[0].split() == ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    system = ("kube-system ", "local-path-storage ")
    assert all(line.startswith((NS + " ", *system)) for line in out.splitlines()[1:])
    assert sum(line.startswith(NS + " ") for line in out.splitlines()[1:]) == 2
    golden("get_nodes.txt", k(sim, "get", "nodes").stdout)


def test_get_missing_pod_is_not_found(sim: RunningSim, shop: dict[str, Any]) -> None:
    r = k(sim, "get", "pod", "nope", "-n", NS, check=False)
    assert r.returncode == 1
    assert r.stderr.strip() == 'Error from server (NotFound): pods "nope" not found'


def test_create_namespace_protobuf_and_already_exists(sim: RunningSim) -> None:
    assert k(sim, "create", "namespace", "staging").stdout.strip() == "namespace/staging created"
    r = k(sim, "create", "namespace", "staging", check=False)
    assert r.stderr.strip() == 'Error from server (AlreadyExists): namespaces "staging" already exists'
    assert k(sim, "create", "configmap", "cfg", "-n", "staging", "--from-literal=a=b").returncode == 0
    cm = sim.call(lambda: sim.store.get("configmaps", "cfg", "staging"))
    assert cm["data"] == {"a": "b"}
    assert cm["metadata"]["managedFields"][0]["manager"] == "kubectl-create"


def test_apply_server_side_then_noop_then_delete(sim: RunningSim, tmp_path: Path) -> None:
    m = tmp_path / "m.yaml"
    m.write_text(MANIFEST)
    out = k(sim, "apply", "--server-side", "-f", str(m)).stdout
    assert out.splitlines() == ["namespace/applied serverside-applied", "deployment.apps/api serverside-applied",
                                "job.batch/migrate serverside-applied"]
    rv = sim.call(lambda: sim.store.get("deployments", "api", "applied"))["metadata"]["resourceVersion"]
    k(sim, "apply", "--server-side", "-f", str(m))
    again = sim.call(lambda: sim.store.get("deployments", "api", "applied"))
    assert again["metadata"]["resourceVersion"] == rv, "a no-op apply must not bump resourceVersion"
    assert again["spec"]["strategy"]["rollingUpdate"]["maxSurge"] == "25%"
    out = k(sim, "delete", "-f", str(m)).stdout
    assert 'deployment.apps "api" deleted' in out
    assert sim.call(lambda: sim.store.get_or_none("deployments", "api", "applied")) is None


def test_client_side_apply_and_create_f(sim: RunningSim, tmp_path: Path) -> None:
    m = tmp_path / "cm.yaml"
    m.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\n  namespace: default\ndata:\n  k: v1\n")
    assert k(sim, "create", "-f", str(m)).stdout.strip() == "configmap/csa created"
    m.write_text(m.read_text().replace("k: v1", "k: v2"))
    assert k(sim, "apply", "-f", str(m)).stdout.strip() == "configmap/csa configured"
    assert sim.call(lambda: sim.store.get("configmaps", "csa", "default"))["data"] == {"k": "v2"}


def test_get_watch_streams_table_rows(sim: RunningSim, shop: dict[str, Any]) -> None:
    import os

    env = {kk: v for kk, v in os.environ.items() if not kk.startswith("KUBE")}
    env.update(KUBECONFIG=str(sim.harness_kubeconfig), KUBECACHEDIR=str(sim.cache), HOME=str(sim.tmp))
    proc = subprocess.Popen([KUBECTL, "get", "pods", "-n", NS, "-w"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        assert lines[0].split()[:2] == ["NAME", "READY"]
        time.sleep(0.3)

        def touch() -> None:
            p = sim.store.get("pods", "web-7d4b9c-abcde", NS)
            p["metadata"]["labels"]["touched"] = "yes"
            sim.store.update("pods", p)

        sim.call(touch)
        line = proc.stdout.readline()
        assert line.split()[:3] == ["web-7d4b9c-abcde", "1/1", "Running"]
    finally:
        proc.kill()
        proc.wait()


def test_wait_and_rollout_status(sim: RunningSim, shop: dict[str, Any]) -> None:
    r = k(sim, "wait", "--for=condition=Complete", "job/once", "-n", NS, "--timeout=10s")
    assert r.stdout.strip() == "job.batch/once condition met"
    r = k(sim, "rollout", "status", "deploy/web", "-n", NS, "--timeout=2s", check=False)
    assert 'Waiting for deployment "web" rollout to finish: 1 of 2 updated replicas are available...' in r.stdout


def test_mutating_commands(sim: RunningSim, shop: dict[str, Any]) -> None:
    assert k(sim, "scale", "deploy/web", "-n", NS, "--replicas=3").stdout.strip() == "deployment.apps/web scaled"
    dep = sim.call(lambda: sim.store.get("deployments", "web", NS))
    assert dep["spec"]["replicas"] == 3 and dep["metadata"]["generation"] == 2
    assert k(sim, "rollout", "restart", "deploy/web", "-n", NS).stdout.strip() == "deployment.apps/web restarted"
    assert k(sim, "set", "image", "deploy/web", "web=nginx:1.28", "-n", NS).stdout.strip() == \
        "deployment.apps/web image updated"
    assert k(sim, "label", "deploy/web", "tier=front", "-n", NS).stdout.strip() == "deployment.apps/web labeled"
    assert k(sim, "patch", "deploy/web", "-n", NS, "-p", '{"spec":{"minReadySeconds":5}}').stdout.strip() == \
        "deployment.apps/web patched"
    assert k(sim, "patch", "deploy/web", "-n", NS, "--type=json",
             "-p", '[{"op":"replace","path":"/spec/replicas","value":1}]').stdout.strip() == \
        "deployment.apps/web patched"
    dep = sim.call(lambda: sim.store.get("deployments", "web", NS))
    spec = dep["spec"]
    assert spec["replicas"] == 1 and spec["minReadySeconds"] == 5
    assert spec["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert "kubectl.kubernetes.io/restartedAt" in spec["template"]["metadata"]["annotations"]
    assert dep["metadata"]["labels"] == {"tier": "front"}
    managers = {(e["manager"], e["operation"]) for e in dep["metadata"]["managedFields"]}
    assert {("kubectl-rollout", "Update"), ("kubectl-set", "Update"), ("kubectl-label", "Update")} <= managers
    assert k(sim, "cordon", "kind-control-plane").stdout.strip() == "node/kind-control-plane cordoned"
    assert sim.call(lambda: sim.store.get("nodes", "kind-control-plane"))["spec"]["unschedulable"] is True
    k(sim, "uncordon", "kind-control-plane")


def test_subject_cannot_write(sim: RunningSim, shop: dict[str, Any], tmp_path: Path) -> None:
    kc = sim.subject_kubeconfig(tmp_path)
    r = k(sim, "auth", "can-i", "create", "pods", "-n", NS, kubeconfig_path=kc, check=False)
    assert (r.returncode, r.stdout.strip()) == (1, "no")
    r = k(sim, "auth", "can-i", "list", "pods", "-n", NS, kubeconfig_path=kc, check=False)
    assert (r.returncode, r.stdout.strip()) == (0, "yes")
    r = k(sim, "auth", "can-i", "create", "pods/exec", "-n", NS, kubeconfig_path=kc, check=False)
    assert r.stdout.strip() == "no"
    r = k(sim, "run", "x", "--image=nginx", "-n", NS, kubeconfig_path=kc, check=False)
    assert r.returncode == 1
    # a create has no name in its authorization attributes, so the message names only the resource
    assert r.stderr.strip() == ('Error from server (Forbidden): pods is forbidden: User "subject" cannot create '
                                'resource "pods" in API group "" in the namespace "shop"')
    r = k(sim, "delete", "pod", "web-7d4b9c-abcde", "-n", NS, kubeconfig_path=kc, check=False)
    assert r.stderr.strip() == ('Error from server (Forbidden): pods "web-7d4b9c-abcde" is forbidden: User "subject" '
                                'cannot delete resource "pods" in API group "" in the namespace "shop"')
    r = k(sim, "scale", "deploy/web", "--replicas=5", "-n", NS, kubeconfig_path=kc, check=False)
    assert 'cannot patch resource "deployments/scale" in API group "apps"' in r.stderr
    r = k(sim, "exec", "web-7d4b9c-abcde", "-n", NS, "--", "ls", kubeconfig_path=kc, check=False)
    assert r.returncode == 1
    assert r.stderr.strip() == ('error: unable to upgrade connection: pods "web-7d4b9c-abcde" is forbidden: User '
                                '"subject" cannot create resource "pods/exec" in API group "" in the namespace "shop"')
    r = k(sim, "get", "secrets", "-n", NS, kubeconfig_path=kc)
    assert r.returncode == 0
    assert k(sim, "get", "pods", "-n", NS, kubeconfig_path=kc).returncode == 0
    who = k(sim, "auth", "whoami", "-o", "json", kubeconfig_path=kc).stdout
    assert json.loads(who)["status"]["userInfo"]["username"] == "subject"
    log = [json.loads(x) for x in (sim.tmp / "requests.jsonl").read_text().splitlines()]
    mine = [x for x in log if x["identity"] == "subject:test"]
    assert any(x["status"] == 403 and x["method"] == "POST" and x["kubectl_command"] == "kubectl run"
               for x in mine)


def test_field_validation_strict_warn_and_apply(sim: RunningSim, tmp_path: Path) -> None:
    m = tmp_path / "bad.yaml"
    m.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\n  namespace: default\n"
                 "  labelz: {a: b}\ndata:\n  k: v\n")
    r = k(sim, "create", "-f", str(m), check=False)
    assert r.returncode == 1
    assert r.stderr.strip() == (f'Error from server (BadRequest): error when creating "{m}": ConfigMap in version "v1" '
                                'cannot be handled as a ConfigMap: strict decoding error: unknown field '
                                '"metadata.labelz"')
    r = k(sim, "apply", "--server-side", "-f", str(m), check=False)
    assert r.stderr.strip() == ("Error from server: failed to create typed patch object (default/typo; /v1, "
                                "Kind=ConfigMap): .metadata.labelz: field not declared in schema")
    r = k(sim, "create", "-f", str(m), "--validate=warn")
    assert r.stderr.strip() == 'Warning: unknown field "metadata.labelz"'
    stored = sim.call(lambda: sim.store.get("configmaps", "typo", "default"))
    assert "labelz" not in stored["metadata"] and stored["data"] == {"k": "v"}


def test_dry_run_server_writes_nothing(sim: RunningSim) -> None:
    rv = sim.call(lambda: sim.store.resource_version)
    out = k(sim, "create", "deployment", "ghost", "--image=nginx", "-n", "default", "--dry-run=server",
            "-o", "json").stdout
    assert json.loads(out)["spec"]["strategy"]["type"] == "RollingUpdate"
    assert sim.call(lambda: sim.store.get_or_none("deployments", "ghost", "default")) is None
    assert sim.call(lambda: sim.store.resource_version) == rv


def test_delete_collection_by_label(sim: RunningSim) -> None:
    for i in range(3):
        k(sim, "create", "configmap", f"dc{i}", "-n", "default", f"--from-literal=i={i}")
    k(sim, "label", "configmap", "dc0", "dc1", "-n", "default", "sweep=yes")
    out = k(sim, "delete", "configmaps", "-n", "default", "-l", "sweep=yes").stdout
    assert out.splitlines() == ['configmap "dc0" deleted from default namespace',
                                'configmap "dc1" deleted from default namespace']
    left = {c["metadata"]["name"] for c in sim.call(lambda: sim.store.items("configmaps", "default"))}
    assert "dc2" in left and not {"dc0", "dc1"} & left


def test_drain_evicts_and_honours_disruption_budgets(sim: RunningSim) -> None:
    def setup() -> None:
        st = sim.store
        st.create("namespaces", {"metadata": {"name": "drainns"}})
        for n in ("d1", "d2"):
            p = st.create("pods", {"metadata": {"name": n, "namespace": "drainns", "labels": {"app": "drain"},
                                                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                                     "name": "x", "uid": "u-1", "controller": True}]},
                                   "spec": {"nodeName": "kind-control-plane",
                                            "containers": [{"name": "c", "image": "nginx:1.27"}]}})
            p["status"] = {"phase": "Running"}
            st.update_status("pods", p)
        pdb = st.create("poddisruptionbudgets", {"metadata": {"name": "keep-one", "namespace": "drainns"},
                                                 "spec": {"minAvailable": 1,
                                                          "selector": {"matchLabels": {"app": "drain"}}}})
        pdb["status"] = {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2,
                         "observedGeneration": 1}
        st.update_status("poddisruptionbudgets", pdb)

    sim.call(setup)
    r = k(sim, "drain", "kind-control-plane", "--pod-selector=app=drain", "--timeout=2s", check=False)
    assert "node/kind-control-plane cordoned" in r.stdout
    left = [p["metadata"]["name"] for p in sim.call(lambda: sim.store.items("pods", "drainns"))]
    assert len(left) == 1, "the budget allows exactly one disruption"
    (gone,) = {"d1", "d2"} - set(left)
    assert f"pod/{gone} evicted" in r.stdout  # kubectl evicts in parallel, so which one goes first varies
    assert (f'error when evicting pods/"{left[0]}" -n "drainns" (will retry after 5s): Cannot evict pod as it '
            "would violate the pod's disruption budget.") in r.stderr
    k(sim, "uncordon", "kind-control-plane")
