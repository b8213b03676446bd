"""The pod/container state machine reaches the states a kind node shows, on virtual time."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_simian.sim import busybox
from pytest_simian.sim.containers import (
    Backoff,
    KubeletEvent,
    NullEnvironment,
    PodRuntime,
    go_duration,
    parse_quantity,
    render_logs,
)

UID = "0b1c2d3e-aaaa-bbbb-cccc-000000000001"


def make_pod(command: list[str] | None = None, *, image: str = "busybox:1.36", limits: dict[str, str] | None = None,
             requests: dict[str, str] | None = None, policy: str = "Always", extra: dict[str, Any] | None = None,
             volumes: list[dict[str, Any]] | None = None, init: list[dict[str, Any]] | None = None,
             name: str = "web-abc", pull_policy: str | None = "IfNotPresent") -> dict[str, Any]:
    c: dict[str, Any] = {"name": "app", "image": image}
    if pull_policy:
        c["imagePullPolicy"] = pull_policy
    if command:
        c["command"] = command
    res: dict[str, Any] = {}
    if limits:
        res["limits"] = limits
    if requests:
        res["requests"] = requests
    if res:
        c["resources"] = res
    c.update(extra or {})
    spec: dict[str, Any] = {"containers": [c], "restartPolicy": policy}
    if volumes:
        spec["volumes"] = volumes
    if init:
        spec["initContainers"] = init
    return {"metadata": {"name": name, "namespace": "ns", "uid": UID}, "spec": spec}


class Env(NullEnvironment):
    def __init__(self, configmaps: dict[str, dict[str, str]] | None = None,
                 secrets: dict[str, dict[str, str]] | None = None) -> None:
        self.cms = configmaps or {}
        self.secrets = secrets or {}

    def configmap(self, namespace: str, name: str) -> dict[str, str] | None:
        return self.cms.get(name)

    def secret(self, namespace: str, name: str) -> dict[str, str] | None:
        return self.secrets.get(name)


def cstatus(rt: PodRuntime, t: float) -> dict[str, Any]:
    rt.step(t)
    return rt.status(t)["containerStatuses"][0]


def waiting_reason(rt: PodRuntime, t: float) -> str | None:
    return cstatus(rt, t)["state"].get("waiting", {}).get("reason")


def events(rt: PodRuntime, reason: str | None = None) -> list[KubeletEvent]:
    return [e for e in rt.events if reason is None or e.reason == reason]


CRASH = ["sh", "-c", "echo 'connecting to payments db'; sleep 2; echo 'FATAL: connection refused' >&2; exit 1"]


# --------------------------------------------------------------------------- helpers
@pytest.mark.parametrize("secs,text", [(10, "10s"), (20, "20s"), (40, "40s"), (80, "1m20s"), (160, "2m40s"),
                                       (300, "5m0s"), (1.2, "1.2s"), (0.25, "250ms"), (3725, "1h2m5s")])
def test_go_duration(secs: float, text: str) -> None:
    assert go_duration(secs) == text


def test_parse_quantity() -> None:
    assert parse_quantity("64Mi") == 64 * 1024 * 1024
    assert parse_quantity("200m") == pytest.approx(0.2)
    assert parse_quantity("1G") == 1e9
    assert parse_quantity(2) == 2.0


def test_flowcontrol_backoff_doubles_caps_and_expires() -> None:
    b = Backoff(10, 300)
    t = 0.0
    seen = []
    for _ in range(7):
        b.next("k", t)
        seen.append(b.get("k"))
        t += 1
    assert seen == [10, 20, 40, 80, 160, 300, 300]
    b.next("k", t + 601)  # more than 2*max since the last update: reset
    assert b.get("k") == 10


# --------------------------------------------------------------------------- crash loop
def test_crash_loop_restarts_on_the_kubelet_backoff_schedule() -> None:
    rt = PodRuntime(make_pod(CRASH), now=0.0)
    rt.step(400)
    starts = [round(e.time, 1) for e in events(rt, "Started")]
    # first start; an immediate restart; then each back-off (10s, 20s, 40s, 80s, 160s from the exit) ends at
    # the pod worker's requeue: min(remaining, 60s) x 1.25 after the sync that found it (1s after the exit),
    # so a restart comes a little after the back-off, and a back-off over 60s takes two requeues
    assert starts == [0.3, 3.3, 17.6, 44.3, 96.0, 179.1, 343.3]
    backoffs = [round(e.time, 1) for e in events(rt, "BackOff")]
    # one BackOff event per sync that finds the container in back-off: the PLEG sync after each exit, plus
    # the requeues inside back-offs longer than the 60s cap
    assert backoffs == [6.3, 20.6, 47.3, 99.0, 174.1, 182.1, 257.1, 332.1, 346.3]
    st = rt.status(400)["containerStatuses"][0]
    assert st["restartCount"] == 6
    assert st["lastState"]["terminated"]["reason"] == "Error"
    assert st["lastState"]["terminated"]["exitCode"] == 1


def test_crash_loop_shows_terminated_error_until_a_backoff_outlasts_the_requeue_cap() -> None:
    """The status a sync writes is rendered before the sync acts, so the CrashLoopBackOff a sync records shows
    only from the next sync on; while back-offs are shorter than the 60s requeue cap the next sync is the one
    that restarts the container. Upstream measured the same on kind 1.36: CrashLoopBackOff observable at about
    the 1m20s step, ~170s after the first start, earlier restarts showing terminated.reason=Error."""
    rt = PodRuntime(make_pod(CRASH), now=0.0)
    seen: list[tuple[str, str, int]] = []
    for tenth in range(0, 1760):
        st = cstatus(rt, tenth / 10)
        kind = next(iter(st["state"]))
        cur = (kind, st["state"][kind].get("reason", ""), st["restartCount"])
        if not seen or seen[-1] != cur:
            seen.append(cur)
    assert seen == [("waiting", "ContainerCreating", 0), ("running", "", 0), ("terminated", "Error", 0),
                    ("running", "", 1), ("terminated", "Error", 1), ("running", "", 2), ("terminated", "Error", 2),
                    ("running", "", 3), ("terminated", "Error", 3), ("running", "", 4), ("terminated", "Error", 4),
                    ("waiting", "CrashLoopBackOff", 4)]
    st = cstatus(rt, 175.9)
    assert st["lastState"]["terminated"]["reason"] == "Error"


def test_crash_loop_waiting_message_and_backoff_event() -> None:
    rt = PodRuntime(make_pod(CRASH), now=0.0)
    st = cstatus(rt, 176)
    assert st["state"]["waiting"] == {
        "reason": "CrashLoopBackOff",
        "message": f"back-off 1m20s restarting failed container=app pod=web-abc_ns({UID})"}
    ev = events(rt, "BackOff")[0]
    assert (ev.type, ev.message, ev.field_path) == (
        "Warning", f"Back-off restarting failed container app in pod web-abc_ns({UID})", "spec.containers{app}")
    assert rt.phase() == "Running"
    cond = {c["type"]: c for c in rt.status(50)["conditions"]}
    assert cond["Ready"]["status"] == "False" and cond["Ready"]["reason"] == "ContainersNotReady"
    assert cond["Ready"]["message"] == "containers with unready status: [app]"


def test_crash_loop_polled_every_2s_is_seen_at_the_1m20s_step_as_upstream_measured_on_kind() -> None:
    """upstream-parity-record.yaml, fault-crashloop: waiting.reason=CrashLoopBackOff observable only at roughly
    the 1m20s back-off step, about 170s after the pod first starts; well inside the 5m settle deadline."""
    rt = PodRuntime(make_pod(CRASH), now=0.0)
    t = 0.0
    while waiting_reason(rt, t) != "CrashLoopBackOff":
        t += 2
        assert t < 300
    assert 165 <= t <= 180
    st = cstatus(rt, t)
    assert st["restartCount"] == 4 and "back-off 1m20s" in st["state"]["waiting"]["message"]


def test_backoff_resets_after_ten_minutes_of_running() -> None:
    script = ["sh", "-c", "echo up; sleep 700; exit 1"]
    rt = PodRuntime(make_pod(["sh", "-c", "exit 1"]), now=0.0)
    rt.step(100)  # a few fast crashes build up the back-off
    assert rt.crash_backoff.get(rt._backoff_key(rt.containers[0])) >= 40
    rt2 = PodRuntime(make_pod(script), now=0.0)
    rt2.step(2000)
    starts = [round(e.time, 1) for e in events(rt2, "Started")]
    # each run lasts 700s (> 600s): every exit restarts at once with a fresh 10s back-off
    assert starts[:3] == [0.3, 701.3, 1402.3]
    assert not events(rt2, "BackOff")


def test_restart_policy_on_failure_and_never() -> None:
    ok = PodRuntime(make_pod(["sh", "-c", "echo done"], policy="OnFailure"), now=0.0)
    ok.step(60)
    assert ok.phase() == "Succeeded"
    st = ok.status(60)
    assert st["containerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"
    assert {c["type"]: c.get("reason") for c in st["conditions"]}["Ready"] == "PodCompleted"
    job = PodRuntime(make_pod(["sh", "-c", "echo 'building nightly report'; sleep 1; "
                                           "echo 'ERROR: source table missing' >&2; exit 2"], policy="Never"), now=0.0)
    job.step(60)
    assert job.phase() == "Failed"
    term = job.status(60)["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (2, "Error")
    assert render_logs(job.logs("app")) == "building nightly report\nERROR: source table missing\n"


# --------------------------------------------------------------------------- OOM
def test_memory_hog_over_the_limit_is_oom_killed() -> None:
    cmd = ["sh", "-c", "echo 'warming cache'; head -c 400000000 /dev/zero | tail -n 1; sleep 3600"]
    rt = PodRuntime(make_pod(cmd, limits={"memory": "64Mi", "cpu": "200m"},
                             requests={"memory": "32Mi", "cpu": "10m"}), now=0.0)
    rt.step(1.0)
    st = rt.status(1.0)["containerStatuses"][0]
    term = st["state"]["terminated"]
    assert (term["reason"], term["exitCode"]) == ("OOMKilled", 137)
    assert rt.status(1.0)["qosClass"] == "Burstable"
    st = cstatus(rt, 60)
    assert st["lastState"]["terminated"]["reason"] == "OOMKilled"
    assert st["restartCount"] >= 2
    assert render_logs(rt.logs("app", previous=True)) == "warming cache\n"


def test_the_same_hog_fits_without_a_limit_is_reported_unmodelled() -> None:
    cmd = ["sh", "-c", "head -c 400000000 /dev/zero | tail -n 1; sleep 3600"]
    rt = PodRuntime(make_pod(cmd), now=0.0)
    rt.step(5)
    assert rt.containers[0].state == "running"
    assert rt.unmodelled  # 400MB of NULs into the log is not something the model writes


# --------------------------------------------------------------------------- image pulls
MISSING = "ghcr.io/go-steer/no-such-image:v0.0.0-does-not-exist"


def test_missing_image_alternates_err_image_pull_and_image_pull_backoff() -> None:
    rt = PodRuntime(make_pod(None, image=MISSING), now=0.0)
    seen = []
    for t in range(0, 200, 1):
        r = waiting_reason(rt, float(t))
        if r and (not seen or seen[-1] != r):
            seen.append(r)
    assert seen[:5] == ["ContainerCreating", "ErrImagePull", "ImagePullBackOff", "ErrImagePull", "ImagePullBackOff"]
    pulls = [round(e.time, 2) for e in events(rt, "Pulling")]
    gaps = [round(b - a, 1) for a, b in zip(pulls, pulls[1:], strict=False)]
    assert gaps[:3] == [11.0, 20.3, 40.0] or all(g >= 10 for g in gaps)
    assert rt.phase() == "Pending"
    st = cstatus(rt, 200)
    assert st["image"] == MISSING and st["imageID"] == "" and st["started"] is False


def test_image_pull_messages() -> None:
    rt = PodRuntime(make_pod(None, image=MISSING), now=0.0)
    rt.step(2)
    failed = [e.message for e in events(rt, "Failed")]
    assert failed[0].startswith(f'Failed to pull image "{MISSING}": rpc error: code = Unknown desc = '
                                f'failed to pull and unpack image "{MISSING}": failed to resolve reference')
    assert failed[0].endswith("403 Forbidden")
    assert "Error: ErrImagePull" in failed and "Error: ImagePullBackOff" in failed
    assert events(rt, "BackOff")[0].message == f'Back-off pulling image "{MISSING}"'
    assert events(rt, "BackOff")[0].type == "Normal"
    # the sync after the failed pull (the PLEG relist that saw the sandbox) shows the pull error; the one after
    # that (the 10s error requeue x1.25) shows the back-off it recorded
    w = cstatus(rt, 2)["state"]["waiting"]
    assert w["reason"] == "ErrImagePull"
    assert w["message"].startswith('failed to pull and unpack image') or "rpc error" in w["message"]
    w = cstatus(rt, 15)["state"]["waiting"]
    assert w["reason"] == "ImagePullBackOff"
    assert w["message"].startswith(f'Back-off pulling image "{MISSING}": ErrImagePull: rpc error:')


def test_successful_pull_events_and_image_ids() -> None:
    rt = PodRuntime(make_pod(["sleep", "3600"], image="nginx:1.27", pull_policy=None), now=0.0)
    rt.step(10)
    msgs = [(e.reason, e.message) for e in rt.events]
    assert msgs[0] == ("Pulling", 'Pulling image "nginx:1.27"')
    assert msgs[1][0] == "Pulled" and msgs[1][1].startswith('Successfully pulled image "nginx:1.27" in 2.156s '
                                                            "(2.156s including waiting). Image size: ")
    assert msgs[2:4] == [("Created", "Container created"), ("Started", "Container started")]
    st = rt.status(10)["containerStatuses"][0]
    assert st["image"] == "docker.io/library/nginx:1.27"
    assert st["imageID"].startswith("docker.io/library/nginx@sha256:")
    assert st["containerID"].startswith("containerd://")


def test_preloaded_image_is_already_present() -> None:
    rt = PodRuntime(make_pod(["sleep", "3600"]), now=0.0)
    rt.step(1)
    assert rt.events[0].message == ('Container image "busybox:1.36" already present on machine '
                                    "and can be accessed by the pod")


def test_invalid_image_name() -> None:
    rt = PodRuntime(make_pod(None, image="Busybox:1.36"), now=0.0)
    w = cstatus(rt, 2)["state"]["waiting"]
    assert w["reason"] == "InvalidImageName"
    assert w["message"] == ('Failed to apply default image tag "Busybox:1.36": couldn\'t parse image name '
                            '"Busybox:1.36": invalid reference format')


def test_program_missing_from_the_image_is_a_start_error() -> None:
    rt = PodRuntime(make_pod(["python3", "app.py"]), now=0.0)
    rt.step(1)
    term = rt.status(1)["containerStatuses"][0]["state"]["terminated"]
    assert (term["reason"], term["exitCode"]) == ("StartError", 128)
    assert 'exec: "python3": executable file not found in $PATH' in term["message"]


# --------------------------------------------------------------------------- config errors
@pytest.mark.parametrize("env,cms,secrets,message", [
    ([{"name": "X", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "k"}}}], {}, {},
     'configmap "cfg" not found'),
    ([{"name": "X", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "k"}}}], {"cfg": {"other": "1"}}, {},
     "couldn't find key k in ConfigMap ns/cfg"),
    ([{"name": "X", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "password"}}}], {}, {},
     'secret "creds" not found'),
    ([{"name": "X", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "password"}}}], {}, {"creds": {}},
     "couldn't find key password in Secret ns/creds"),
])
def test_create_container_config_error(env: list[dict[str, Any]], cms: dict[str, Any], secrets: dict[str, Any],
                                       message: str) -> None:
    rt = PodRuntime(make_pod(["sleep", "3600"], extra={"env": env}), env=Env(cms, secrets), now=0.0)
    w = cstatus(rt, 5)["state"]["waiting"]
    assert w == {"reason": "CreateContainerConfigError", "message": message}
    assert f"Error: {message}" in [e.message for e in events(rt, "Failed")]
    assert rt.phase() == "Pending"


def test_env_from_configmap_reaches_the_program() -> None:
    pod = make_pod(["sh", "-c", 'echo "$MODE $APP_KEY $(cat /etc/app/k)" $MY_POD'],
                   extra={"env": [{"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "mode"}}},
                                  {"name": "MY_POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                          "envFrom": [{"configMapRef": {"name": "cfg"}, "prefix": "APP_"}],
                          "volumeMounts": [{"name": "c", "mountPath": "/etc/app"}]},
                   volumes=[{"name": "c", "configMap": {"name": "cfg"}}], policy="Never")
    rt = PodRuntime(pod, env=Env({"cfg": {"mode": "fast", "KEY": "v", "k": "file-v"}}), now=0.0)
    rt.step(5)
    assert render_logs(rt.logs("app")) == "fast v file-v web-abc\n"


def test_missing_configmap_volume_fails_the_mount() -> None:
    pod = make_pod(["sleep", "3600"], extra={"volumeMounts": [{"name": "config", "mountPath": "/etc/app",
                                                               "readOnly": True}]},
                   volumes=[{"name": "config", "configMap": {"name": "missing-config"}}])
    rt = PodRuntime(pod, now=0.0)
    st = cstatus(rt, 130)
    assert st["state"] == {"waiting": {"reason": "ContainerCreating"}}
    mounts = events(rt, "FailedMount")
    assert mounts[0].message == 'MountVolume.SetUp failed for volume "config" : configmap "missing-config" not found'
    assert mounts[0].type == "Warning" and mounts[0].field_path == ""
    assert 6 <= len(mounts) <= 12
    status = rt.status(130)
    assert status["phase"] == "Pending"
    cond = {c["type"]: c["status"] for c in status["conditions"]}
    assert cond == {"PodReadyToStartContainers": "False", "Initialized": "True", "Ready": "False",
                    "ContainersReady": "False", "PodScheduled": "True"}
    assert "podIP" not in status


# --------------------------------------------------------------------------- probes
def test_readiness_probe_failing_keeps_the_pod_unready() -> None:
    pod = make_pod(["sh", "-c", "sleep 3600"], extra={
        "readinessProbe": {"httpGet": {"path": "/", "port": 8080}, "periodSeconds": 5}})
    rt = PodRuntime(pod, now=0.0)
    st = cstatus(rt, 30)
    assert st["ready"] is False and st["started"] is True and "running" in st["state"]
    unhealthy = events(rt, "Unhealthy")
    assert unhealthy[0].message == ('Readiness probe failed: Get "http://10.244.0.5:8080/": dial tcp '
                                    "10.244.0.5:8080: connect: connection refused")
    assert st["restartCount"] == 0


def test_readiness_probe_passes_against_a_listening_server() -> None:
    pod = make_pod(["sh", "-c", "httpd -f -p 8080"], extra={
        "readinessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 5}})
    rt = PodRuntime(pod, now=0.0)
    assert cstatus(rt, 1)["ready"] is True
    assert {c["type"]: c["status"] for c in rt.status(1)["conditions"]}["Ready"] == "True"


def test_liveness_failure_restarts_the_container() -> None:
    pod = make_pod(["sh", "-c", "touch /tmp/healthy; sleep 20; rm /tmp/healthy; sleep 600"], extra={
        "livenessProbe": {"exec": {"command": ["cat", "/tmp/healthy"]}, "periodSeconds": 5,
                          "initialDelaySeconds": 5}})
    rt = PodRuntime(pod, now=0.0)
    rt.step(80)
    unhealthy = events(rt, "Unhealthy")
    assert unhealthy[0].message == "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n"
    kill = events(rt, "Killing")[0]
    assert kill.message == "Container app failed liveness probe, will be restarted"
    # sh ignores SIGTERM as PID 1: killed after the 30s grace period, exit 137
    st = cstatus(rt, 80)
    assert st["restartCount"] == 1
    assert st["lastState"]["terminated"]["exitCode"] == 137
    assert st["lastState"]["terminated"]["reason"] == "Error"


# --------------------------------------------------------------------------- init containers, logs, deletion
def test_init_container_runs_first() -> None:
    init = [{"name": "wait", "image": "busybox:1.36", "command": ["sh", "-c", "echo waiting; sleep 5"]}]
    rt = PodRuntime(make_pod(["sleep", "3600"], init=init), now=0.0)
    rt.step(2)
    st = rt.status(2)
    assert st["phase"] == "Pending"
    assert st["containerStatuses"][0]["state"]["waiting"]["reason"] == "PodInitializing"
    assert {c["type"]: c.get("reason") for c in st["conditions"]}["Initialized"] == "ContainersNotInitialized"
    rt.step(10)
    st = rt.status(10)
    assert st["phase"] == "Running"
    assert st["initContainerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"


def test_logs_since_tail_and_timestamps() -> None:
    rt = PodRuntime(make_pod(["sh", "-c", "i=0; while true; do i=$((i+1)); echo line $i; sleep 10; done"]),
                    now=1_800_000_000.0)
    rt.step(1_800_000_045.0)
    lines = rt.logs("app")
    assert render_logs(lines, tail=2) == "line 4\nline 5\n"
    assert render_logs(lines, since=1_800_000_025.0) == "line 4\nline 5\n"
    assert render_logs(lines, timestamps=True, tail=1) == "2027-01-15T08:00:40.300000000Z line 5\n"


def test_terminate_gives_sh_the_grace_period() -> None:
    rt = PodRuntime(make_pod(["sh", "-c", "sleep 3600"]), now=0.0)
    rt.step(5)
    ev = rt.terminate(5, grace=30)
    assert [(e.reason, e.message) for e in ev] == [("Killing", "Stopping container app")]
    rt.step(20)
    assert not rt.finished
    rt.step(35)
    assert rt.finished


def test_wget_to_a_service_goes_through_the_environment() -> None:
    class Net(NullEnvironment):
        def connect(self, namespace: str, action: busybox.Connect) -> busybox.ConnectResult:
            assert (namespace, action.host, action.port) == ("ns", "backend", 80)
            return busybox.ConnectResult("refused", "10.96.0.5")

    rt = PodRuntime(make_pod(["sh", "-c", "wget -qO- http://backend/ ; sleep 3600"]), env=Net(), now=0.0)
    rt.step(3)
    assert render_logs(rt.logs("app")) == "wget: can't connect to remote host (10.96.0.5): Connection refused\n"
