"""Server-side Tables: objects in, the cells a real 1.36 kube-apiserver sends out.

Where the expected values come from: never from running ``render_table``. Every
expectation was derived by hand from the upstream code the printers transliterate:

* kubernetes ``pkg/printers/internalversion/printers.go`` (``AddHandlers`` and the
  ``printX`` functions); the ``TestPrintPod``, ``TestPrintPodWithRestartableInitContainer``
  and ``TestPrintPodwide`` cases below are ports of the cases of the same name in
  upstream ``printers_test.go`` (same inputs, same expected cells);
* ``staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go`` for every age
  (worked out from its thresholds: ``< 2m`` seconds, ``< 10m`` ``XmYs``, ``< 3h``
  minutes, ``< 8h`` ``XhYm``, ``< 48h`` hours, ``< 8d`` ``XdYh``, ``< 2y`` days, ...);
* apiserver ``handlers/response.go`` ``asTable`` and ``registry/rest/table.go`` for
  the envelope, ``includeObject`` and the default table.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pytest_simian.sim.humanize import human_duration, short_human_duration
from pytest_simian.sim.tables import render_table, supports, table_options_error

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


def ago(**kw: float) -> str:
    """An RFC 3339 timestamp ``kw`` before NOW."""
    return (NOW - timedelta(**kw)).strftime("%Y-%m-%dT%H:%M:%SZ")


def table(objs: list[dict[str, Any]], resource: str, group: str = "", **kw: Any) -> dict[str, Any]:
    return render_table(objs, resource=resource, group=group, now=NOW, **kw)


def cells(obj: dict[str, Any], resource: str, group: str = "") -> list[Any]:
    return table([obj], resource, group)["rows"][0]["cells"]


def col_names(t: dict[str, Any]) -> list[str]:
    return [c["name"] for c in t["columnDefinitions"]]


# --------------------------------------------------------------------------- durations


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-3, "<invalid>"),
        (-2, "<invalid>"),
        (-1.5, "0s"),  # int(d.Seconds()) truncates toward zero: -1, tolerated skew
        (-1, "0s"),
        (0, "0s"),
        (5, "5s"),
        (119, "119s"),
        (120, "2m"),
        (160, "2m40s"),
        (599, "9m59s"),
        (600, "10m"),
        (179 * 60 + 59, "179m"),
        (180 * 60, "3h"),
        (195 * 60, "3h15m"),
        (7 * 3600 + 59 * 60 + 59, "7h59m"),
        (8 * 3600, "8h"),
        (47 * 3600 + 3599, "47h"),
        (48 * 3600, "2d"),
        (53 * 3600, "2d5h"),
        (191 * 3600, "7d23h"),
        (192 * 3600, "8d"),
        (729 * 86400, "729d"),
        (730 * 86400, "2y"),
        (800 * 86400, "2y70d"),
        (8 * 365 * 86400, "8y"),
        (10 * 365 * 86400 + 100 * 86400, "10y"),
    ],
)
def test_human_duration(seconds: float, expected: str) -> None:
    assert human_duration(timedelta(seconds=seconds)) == expected
    assert human_duration(seconds) == expected


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-2, "<invalid>"),
        (-1, "0s"),
        (59, "59s"),
        (60, "1m"),
        (59 * 60 + 59, "59m"),
        (3600, "1h"),
        (23 * 3600 + 3599, "23h"),
        (24 * 3600, "1d"),
        (364 * 86400, "364d"),
        (365 * 86400, "1y"),
        (730 * 86400, "2y"),
    ],
)
def test_short_human_duration(seconds: float, expected: str) -> None:
    assert short_human_duration(timedelta(seconds=seconds)) == expected


# --------------------------------------------------------------------------- pods: upstream cases


def _statuses(*specs: dict[str, Any]) -> list[dict[str, Any]]:
    return list(specs)


RUNNING: dict[str, Any] = {"running": {}}

# Ports of TestPrintPod in upstream printers_test.go (name, pod status -> first five cells).
UPSTREAM_POD_CASES: list[tuple[dict[str, Any], list[Any]]] = [
    (
        {
            "metadata": {"name": "test1"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "podPhase",
                "containerStatuses": [
                    {"ready": True, "restartCount": 3, "state": RUNNING},
                    {"restartCount": 3},
                ],
            },
        },
        ["test1", "1/2", "podPhase", "6", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test2"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "podPhase",
                "containerStatuses": [
                    {"ready": True, "restartCount": 3, "state": RUNNING},
                    {"state": {"waiting": {"reason": "ContainerWaitingReason"}}, "restartCount": 3},
                ],
            },
        },
        ["test2", "1/2", "ContainerWaitingReason", "6", "<unknown>"],
    ),
    (
        # the first container overwrites the rest
        {
            "metadata": {"name": "test3"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "podPhase",
                "containerStatuses": [
                    {"state": {"waiting": {"reason": "ContainerWaitingReason"}}, "restartCount": 3},
                    {"state": {"terminated": {"reason": "ContainerTerminatedReason"}}, "restartCount": 3},
                ],
            },
        },
        ["test3", "0/2", "ContainerWaitingReason", "6", "<unknown>"],
    ),
    (
        # ready is not enough for reporting running
        {
            "metadata": {"name": "test4"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "podPhase",
                "containerStatuses": [
                    {"ready": True, "restartCount": 3, "state": RUNNING},
                    {"ready": True, "restartCount": 3},
                ],
            },
        },
        ["test4", "1/2", "podPhase", "6", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test5"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "reason": "podReason",
                "phase": "podPhase",
                "containerStatuses": [
                    {"ready": True, "restartCount": 3, "state": RUNNING},
                    {"ready": True, "restartCount": 3},
                ],
            },
        },
        ["test5", "1/2", "podReason", "6", "<unknown>"],
    ),
    (
        # one running, one completed, without Ready condition
        {
            "metadata": {"name": "test6"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "Running",
                "containerStatuses": [
                    {"ready": True, "restartCount": 3, "state": {"terminated": {"reason": "Completed"}}},
                    {"ready": True, "restartCount": 3, "state": RUNNING},
                ],
            },
        },
        ["test6", "1/2", "NotReady", "6", "<unknown>"],
    ),
    (
        # same with Ready condition
        {
            "metadata": {"name": "test6"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "Running",
                "containerStatuses": [
                    {"ready": True, "restartCount": 3, "state": {"terminated": {"reason": "Completed"}}},
                    {"ready": True, "restartCount": 3, "state": RUNNING},
                ],
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        },
        ["test6", "1/2", "Running", "6", "<unknown>"],
    ),
    (
        # 1 init container restarting and 1 container not running
        {
            "metadata": {"name": "test7"},
            "spec": {"initContainers": [{}], "containers": [{}]},
            "status": {
                "phase": "podPhase",
                "initContainerStatuses": [
                    {
                        "restartCount": 3,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
                    }
                ],
                "containerStatuses": [{"restartCount": 0, "state": {"waiting": {}}}],
            },
        },
        ["test7", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"],
    ),
    (
        # 2 init containers, one restarting, the other not running
        {
            "metadata": {"name": "test8"},
            "spec": {"initContainers": [{}, {}], "containers": [{}]},
            "status": {
                "phase": "podPhase",
                "initContainerStatuses": [
                    {
                        "restartCount": 3,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
                    },
                    {"state": {"waiting": {}}},
                ],
                "containerStatuses": [{"state": {"waiting": {}}}],
            },
        },
        ["test8", "0/1", "Init:0/2", "3 (10s ago)", "<unknown>"],
    ),
    (
        # 2 init containers, one completed without restarts, the other restarting
        {
            "metadata": {"name": "test9"},
            "spec": {"initContainers": [{}, {}], "containers": [{}]},
            "status": {
                "phase": "podPhase",
                "initContainerStatuses": [
                    {"state": {"terminated": {}}},
                    {
                        "restartCount": 3,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
                    },
                ],
                "containerStatuses": [{"state": {"waiting": {}}}],
            },
        },
        ["test9", "0/1", "Init:1/2", "3 (10s ago)", "<unknown>"],
    ),
    (
        # 2 init containers, one completed with restarts, the other restarting
        {
            "metadata": {"name": "test10"},
            "spec": {"initContainers": [{}, {}], "containers": [{}]},
            "status": {
                "phase": "podPhase",
                "initContainerStatuses": [
                    {
                        "restartCount": 2,
                        "state": {"terminated": {}},
                        "lastState": {"terminated": {"finishedAt": ago(minutes=2)}},
                    },
                    {
                        "restartCount": 3,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
                    },
                ],
                "containerStatuses": [{"state": {"waiting": {}}}],
            },
        },
        ["test10", "0/1", "Init:1/2", "5 (10s ago)", "<unknown>"],
    ),
    (
        # 1 init container completed with restarts and one container restarting
        {
            "metadata": {"name": "test11"},
            "spec": {"initContainers": [{}], "containers": [{}]},
            "status": {
                "phase": "Running",
                "initContainerStatuses": [
                    {
                        "restartCount": 2,
                        "state": {"terminated": {}},
                        "lastState": {"terminated": {"finishedAt": ago(minutes=2)}},
                    }
                ],
                "containerStatuses": [
                    {
                        "restartCount": 4,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=20)}},
                    }
                ],
            },
        },
        ["test11", "0/1", "Running", "4 (20s ago)", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test12"},
            "spec": {"containers": [{}]},
            "status": {
                "phase": "Running",
                "containerStatuses": [
                    {
                        "ready": True,
                        "restartCount": 3,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(days=5)}},
                    }
                ],
            },
        },
        ["test12", "1/1", "Running", "3 (5d ago)", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test13"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "Running",
                "containerStatuses": [
                    {"ready": True, "restartCount": 0, "state": RUNNING},
                    {
                        "ready": True,
                        "restartCount": 3,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(days=10)}},
                    },
                ],
            },
        },
        ["test13", "2/2", "Running", "3 (10d ago)", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test14"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "Running",
                "containerStatuses": [
                    {
                        "ready": True,
                        "restartCount": 6,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(days=5)}},
                    },
                    {
                        "ready": True,
                        "restartCount": 3,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(days=20)}},
                    },
                ],
            },
        },
        ["test14", "2/2", "Running", "9 (5d ago)", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test15"},
            "spec": {"containers": [{}, {}]},
            "status": {
                "phase": "podPhase",
                "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
            },
        },
        ["test15", "0/2", "SchedulingGated", "0", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test16"},
            "spec": {"containers": [{}]},
            "status": {
                "phase": "Succeeded",
                "containerStatuses": [{"state": {"terminated": {"reason": "Completed", "exitCode": 0}}}],
            },
        },
        ["test16", "0/1", "Completed", "0", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test17"},
            "spec": {"containers": [{}]},
            "status": {
                "phase": "Failed",
                "containerStatuses": [{"state": {"terminated": {"reason": "Error", "exitCode": 1}}}],
            },
        },
        ["test17", "0/1", "Error", "0", "<unknown>"],
    ),
    (
        # succeeded with deletion: terminal phases are never "Terminating"
        {
            "metadata": {"name": "test18", "deletionTimestamp": ago(seconds=10)},
            "spec": {"containers": [{}]},
            "status": {
                "phase": "Succeeded",
                "containerStatuses": [{"state": {"terminated": {"reason": "Completed", "exitCode": 0}}}],
            },
        },
        ["test18", "0/1", "Completed", "0", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test19", "deletionTimestamp": ago(seconds=10)},
            "spec": {"containers": [{}]},
            "status": {"phase": "Running", "containerStatuses": [{"state": RUNNING}]},
        },
        ["test19", "0/1", "Terminating", "0", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test20", "deletionTimestamp": ago(seconds=10)},
            "spec": {"containers": [{}]},
            "status": {"phase": "Pending"},
        },
        ["test20", "0/1", "Terminating", "0", "<unknown>"],
    ),
]

ALWAYS = {"restartPolicy": "Always"}

# Ports of TestPrintPodWithRestartableInitContainer (sidecars).
UPSTREAM_SIDECAR_CASES: list[tuple[dict[str, Any], list[Any]]] = [
    (
        {
            "metadata": {"name": "test1"},
            "spec": {
                "initContainers": [{"name": "restartable-init-1", **ALWAYS}, {"name": "restartable-init-2", **ALWAYS}],
                "containers": [{}],
            },
            "status": {
                "phase": "Pending",
                "initContainerStatuses": [
                    {
                        "name": "restartable-init-1",
                        "restartCount": 3,
                        "state": RUNNING,
                        "started": False,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
                    },
                    {"name": "restartable-init-2", "state": {"waiting": {}}, "started": False},
                ],
                "containerStatuses": [{"restartCount": 0, "state": {"waiting": {}}}],
                "conditions": [{"type": "Initialized", "status": "False"}],
            },
        },
        ["test1", "0/3", "Init:0/2", "3 (10s ago)", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test1"},
            "spec": {
                "initContainers": [{"name": "restartable-init-1", **ALWAYS}, {"name": "restartable-init-2", **ALWAYS}],
                "containers": [{}],
            },
            "status": {
                "phase": "Pending",
                "initContainerStatuses": [
                    {
                        "name": "restartable-init-1",
                        "restartCount": 3,
                        "state": RUNNING,
                        "started": True,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
                    },
                    {"name": "restartable-init-2", "state": RUNNING, "started": False},
                ],
                "containerStatuses": [{"restartCount": 0, "state": {"waiting": {}}}],
                "conditions": [{"type": "Initialized", "status": "False"}],
            },
        },
        ["test1", "0/3", "Init:1/2", "3 (10s ago)", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test2"},
            "spec": {
                "initContainers": [{"name": "restartable-init-1", **ALWAYS}, {"name": "restartable-init-2", **ALWAYS}],
                "containers": [{}],
            },
            "status": {
                "phase": "Running",
                "initContainerStatuses": [
                    {
                        "name": "restartable-init-1",
                        "restartCount": 3,
                        "state": RUNNING,
                        "started": True,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
                    },
                    {"name": "restartable-init-2", "state": RUNNING, "started": True},
                ],
                "containerStatuses": [
                    {
                        "ready": True,
                        "restartCount": 4,
                        "state": RUNNING,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=20)}},
                    }
                ],
                "conditions": [{"type": "Initialized", "status": "True"}],
            },
        },
        ["test2", "1/3", "Running", "7 (10s ago)", "<unknown>"],
    ),
    (
        {
            "metadata": {"name": "test3"},
            "spec": {
                "initContainers": [{"name": "restartable-init-1", **ALWAYS}, {"name": "restartable-init-2", **ALWAYS}],
                "containers": [{}],
            },
            "status": {
                "phase": "Succeeded",
                "initContainerStatuses": [
                    {
                        "name": "restartable-init-1",
                        "restartCount": 3,
                        "state": {"terminated": {"reason": "Error", "exitCode": 137}},
                        "started": False,
                        "lastState": {"terminated": {"finishedAt": ago(seconds=10)}},
                    },
                    {
                        "name": "restartable-init-2",
                        "state": {"terminated": {"reason": "Error", "exitCode": 137}},
                        "started": False,
                    },
                ],
                "containerStatuses": [
                    {
                        "restartCount": 4,
                        "state": {"terminated": {"reason": "Completed", "exitCode": 0}},
                        "lastState": {"terminated": {"finishedAt": ago(seconds=20)}},
                    }
                ],
                "conditions": [{"type": "Initialized", "status": "True"}],
            },
        },
        ["test3", "0/3", "Completed", "7 (10s ago)", "<unknown>"],
    ),
    (
        # container statuses for non-existent initContainers and containers
        {
            "metadata": {"name": "test4"},
            "spec": {
                "initContainers": [
                    {"name": "init1", "image": "initimage"},
                    {"name": "sidecar1", "image": "sidecarimage", **ALWAYS},
                ],
                "containers": [{"name": "container1", "image": "containerimage"}],
            },
            "status": {
                "phase": "Running",
                "initContainerStatuses": [{"name": "initinvalid"}, {"name": "init1"}, {"name": "sidecar1"}],
                "containerStatuses": [{"name": "containerinvalid"}, {"name": "container1"}],
            },
        },
        ["test4", "0/2", "Init:0/2", "0", "<unknown>"],
    ),
]


@pytest.mark.parametrize(("pod", "expected"), UPSTREAM_POD_CASES + UPSTREAM_SIDECAR_CASES)
def test_pod_upstream_cases(pod: dict[str, Any], expected: list[Any]) -> None:
    assert cells(pod, "pods")[:5] == expected


def test_pod_ip_prefers_v1_pod_ip() -> None:
    # Convert_v1_PodStatus_To_core_PodStatus: podIP is authoritative, podIPs fills in when it is unset.
    base = {"metadata": {"name": "p"}, "spec": {"containers": [{}]}}
    only_ip = {**base, "status": {"phase": "Running", "podIP": "10.0.0.1"}}
    assert cells(only_ip, "pods")[5] == "10.0.0.1"
    both = {**base, "status": {"phase": "Running", "podIP": "10.0.0.2", "podIPs": [{"ip": "10.0.0.9"}]}}
    assert cells(both, "pods")[5] == "10.0.0.2"


def test_pod_row_conditions_for_terminal_phases() -> None:
    # podSuccessConditions / podFailedConditions (printers.go), TestPrintPodConditions
    rows = table(
        [
            {"metadata": {"name": "a"}, "spec": {"containers": [{}]}, "status": {"phase": "Running"}},
            {"metadata": {"name": "b"}, "spec": {"containers": [{}]}, "status": {"phase": "Succeeded"}},
            {"metadata": {"name": "c"}, "spec": {"containers": [{}]}, "status": {"phase": "Failed"}},
        ],
        "pods",
    )["rows"]
    assert "conditions" not in rows[0]
    assert rows[1]["conditions"] == [
        {
            "type": "Completed",
            "status": "True",
            "reason": "Succeeded",
            "message": "The pod has completed successfully.",
        }
    ]
    assert rows[2]["conditions"] == [
        {"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}
    ]


def test_pod_wide_upstream_cases() -> None:
    # TestPrintPodwide: podIPs[0] (not podIP), readiness gates counted against conditions.
    gates = [{"conditionType": "condition1"}, {"conditionType": "condition2"}, {"conditionType": "condition3"}]
    conditions = [{"type": "condition1", "status": "False"}, {"type": "condition2", "status": "True"}]
    statuses = [{"ready": True, "restartCount": 3, "state": RUNNING}, {"restartCount": 3}]
    pod = {
        "metadata": {"name": "test1"},
        "spec": {"containers": [{}, {}], "nodeName": "test1", "readinessGates": gates},
        "status": {
            "conditions": conditions,
            "phase": "podPhase",
            "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2001:db8::"}],
            "containerStatuses": statuses,
            "nominatedNodeName": "node1",
        },
    }
    assert cells(pod, "pods") == ["test1", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"]
    pod2 = {
        "metadata": {"name": "test2"},
        "spec": {"containers": [{}, {}], "nodeName": ""},
        "status": {
            "phase": "podPhase",
            "containerStatuses": [
                {"ready": True, "restartCount": 3, "state": RUNNING},
                {"state": {"waiting": {"reason": "ContainerWaitingReason"}}, "restartCount": 3},
            ],
        },
    }
    assert cells(pod2, "pods") == [
        "test2",
        "1/2",
        "ContainerWaitingReason",
        "6",
        "<unknown>",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
    ]


# --------------------------------------------------------------------------- pods: realistic shapes


def _pod(name: str, status: dict[str, Any], *, created: str | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "creationTimestamp": created or ago(hours=3, minutes=15),
            "resourceVersion": "1234",
        },
        "spec": {"containers": [{"name": "app", "image": "busybox:1.36"}], **spec},
        "status": status,
    }


def test_crash_looping_pod() -> None:
    pod = _pod(
        "api-7d9f",
        {
            "phase": "Running",
            "podIP": "10.244.1.7",
            "podIPs": [{"ip": "10.244.1.7"}],
            "containerStatuses": [
                {
                    "name": "app",
                    "ready": False,
                    "restartCount": 7,
                    "started": False,
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
                    "lastState": {
                        "terminated": {
                            "exitCode": 1,
                            "reason": "Error",
                            "startedAt": ago(minutes=2, seconds=5),
                            "finishedAt": ago(minutes=2),
                        }
                    },
                }
            ],
        },
        nodeName="kind-worker",
    )
    assert cells(pod, "pods") == [
        "api-7d9f",
        "0/1",
        "CrashLoopBackOff",
        "7 (2m ago)",
        "3h15m",
        "10.244.1.7",
        "kind-worker",
        "<none>",
        "<none>",
    ]


def test_crash_looping_pod_restart_age_uses_human_duration() -> None:
    pod = _pod(
        "api",
        {
            "phase": "Running",
            "containerStatuses": [
                {
                    "restartCount": 12,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": ago(seconds=160)}},
                }
            ],
        },
    )
    assert cells(pod, "pods")[3] == "12 (2m40s ago)"


@pytest.mark.parametrize(
    "reason", ["ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError"]
)
def test_waiting_reason_is_the_status(reason: str) -> None:
    pod = _pod(
        "web",
        {
            "phase": "Pending",
            "containerStatuses": [
                {"name": "app", "ready": False, "restartCount": 0, "state": {"waiting": {"reason": reason}}}
            ],
        },
    )
    assert cells(pod, "pods")[:4] == ["web", "0/1", reason, "0"]


def test_pending_unschedulable_pod() -> None:
    pod = _pod(
        "big",
        {
            "phase": "Pending",
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "reason": "Unschedulable",
                    "message": "0/1 nodes are available: 1 Insufficient memory.",
                }
            ],
        },
        created=ago(seconds=42),
    )
    assert cells(pod, "pods") == ["big", "0/1", "Pending", "0", "42s", "<none>", "<none>", "<none>", "<none>"]


def test_completed_job_pod() -> None:
    pod = _pod(
        "pi-x2k9",
        {
            "phase": "Succeeded",
            "podIPs": [{"ip": "10.244.0.9"}],
            "containerStatuses": [
                {
                    "ready": False,
                    "restartCount": 0,
                    "state": {"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": ago(minutes=4)}},
                }
            ],
        },
        created=ago(minutes=5),
        nodeName="kind-worker",
    )
    row = table([pod], "pods")["rows"][0]
    assert row["cells"][:5] == ["pi-x2k9", "0/1", "Completed", "0", "5m"]
    assert row["conditions"][0]["reason"] == "Succeeded"


def test_oomkilled_and_exit_code_and_signal() -> None:
    def one(state: dict[str, Any]) -> str:
        return cells(_pod("p", {"phase": "Running", "containerStatuses": [{"state": state}]}), "pods")[2]

    assert one({"terminated": {"exitCode": 137, "reason": "OOMKilled"}}) == "OOMKilled"
    assert one({"terminated": {"exitCode": 3}}) == "ExitCode:3"
    assert one({"terminated": {"exitCode": 143, "signal": 15}}) == "Signal:15"


def test_terminating_pod() -> None:
    pod = _pod(
        "web",
        {"phase": "Running", "containerStatuses": [{"ready": True, "restartCount": 0, "state": RUNNING}]},
    )
    pod["metadata"]["deletionTimestamp"] = ago(seconds=-30)
    pod["metadata"]["deletionGracePeriodSeconds"] = 30
    assert cells(pod, "pods")[:3] == ["web", "1/1", "Terminating"]


def test_node_lost_pod_is_unknown() -> None:
    # node.NodeUnreachablePodReason == "NodeLost" + deletionTimestamp -> "Unknown"
    pod = _pod("web", {"phase": "Running", "reason": "NodeLost"})
    pod["metadata"]["deletionTimestamp"] = ago(minutes=1)
    assert cells(pod, "pods")[2] == "Unknown"
    del pod["metadata"]["deletionTimestamp"]
    assert cells(pod, "pods")[2] == "NodeLost"


def test_init_container_failures() -> None:
    def status_of(init_state: dict[str, Any]) -> str:
        pod = _pod(
            "p",
            {
                "phase": "Pending",
                "initContainerStatuses": [{"name": "init", "state": init_state}],
                "containerStatuses": [{"name": "app", "state": {"waiting": {"reason": "PodInitializing"}}}],
            },
            initContainers=[{"name": "init", "image": "busybox"}, {"name": "init2", "image": "busybox"}],
        )
        return cells(pod, "pods")[2]

    assert status_of({"waiting": {"reason": "CrashLoopBackOff"}}) == "Init:CrashLoopBackOff"
    assert status_of({"waiting": {"reason": "PodInitializing"}}) == "Init:0/2"
    assert status_of({"terminated": {"exitCode": 1, "reason": "Error"}}) == "Init:Error"
    assert status_of({"terminated": {"exitCode": 2}}) == "Init:ExitCode:2"
    assert status_of({"terminated": {"exitCode": 137, "signal": 9}}) == "Init:Signal:9"
    assert status_of({"running": {}}) == "Init:0/2"


# --------------------------------------------------------------------------- table envelope


def test_pod_column_definitions() -> None:
    t = table([], "pods")
    assert t["kind"] == "Table"
    assert t["apiVersion"] == "meta.k8s.io/v1"
    assert t["rows"] == []
    defs = t["columnDefinitions"]
    assert [(c["name"], c["type"], c["format"], c["priority"]) for c in defs] == [
        ("Name", "string", "name", 0),
        ("Ready", "string", "", 0),
        ("Status", "string", "", 0),
        ("Restarts", "string", "", 0),
        ("Age", "string", "", 0),
        ("IP", "string", "", 1),
        ("Node", "string", "", 1),
        ("Nominated Node", "string", "", 1),
        ("Readiness Gates", "string", "", 1),
    ]
    assert defs[0]["description"].startswith("Name must be unique within a namespace.")
    assert "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system." in defs[4]["description"]
    assert defs[1]["description"] == "The aggregate readiness state of this pod for accepting traffic."
    assert defs[2]["description"] == "The aggregate status of the containers in this pod."
    assert defs[3]["description"] == (
        "The number of times the containers in this pod have been restarted and when the last container in "
        "this pod has restarted."
    )
    assert defs[5]["description"] == (
        "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."
    )
    # Go struct field order, so json.dumps matches the wire.
    assert list(defs[0]) == ["name", "type", "format", "description", "priority"]
    assert list(t) == ["kind", "apiVersion", "metadata", "columnDefinitions", "rows"]


def test_include_object_variants() -> None:
    pod = _pod("web", {"phase": "Running"})
    pod["metadata"]["managedFields"] = [{"manager": "kubectl", "operation": "Apply"}]
    meta = table([pod], "pods")["rows"][0]["object"]
    assert meta == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": pod["metadata"]}
    assert table([pod], "pods", include_object="")["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert table([pod], "pods", include_object="Object")["rows"][0]["object"] == pod
    none_row = table([pod], "pods", include_object="None")["rows"][0]
    assert none_row["object"] is None  # RawExtension{} marshals as null
    assert list(none_row) == ["cells", "object"]
    v1beta1 = table([pod], "pods", table_api_version="meta.k8s.io/v1beta1")
    assert v1beta1["apiVersion"] == "meta.k8s.io/v1beta1"
    assert v1beta1["rows"][0]["object"]["apiVersion"] == "meta.k8s.io/v1beta1"
    # validation.ValidateTableOptions, wrapped by optionsForTransform into a BadRequest
    message = (
        'Unable to convert to Table as requested: includeObject: Invalid value: "Everything": '
        "must be 'Metadata', 'Object', 'None', or empty"
    )
    assert table_options_error("Everything") == message
    assert table_options_error("") is None and table_options_error("None") is None
    with pytest.raises(ValueError) as exc:
        table([pod], "pods", include_object="Everything")
    assert str(exc.value) == message


def test_input_objects_are_not_mutated() -> None:
    pod = _pod("web", {"phase": "Running"})
    before = json.dumps(pod, sort_keys=True)
    t = table([pod], "pods", include_object="Object")
    t["rows"][0]["object"]["metadata"]["name"] = "changed"
    assert json.dumps(pod, sort_keys=True) == before


def test_list_meta_and_single_object_resource_version() -> None:
    pod = _pod("web", {"phase": "Running"})
    listed = table([pod], "pods", list_meta={"resourceVersion": "99", "continue": "tok", "remainingItemCount": 3})
    assert listed["metadata"] == {"resourceVersion": "99", "continue": "tok", "remainingItemCount": 3}
    assert table([pod], "pods", list_meta={"resourceVersion": "99"})["metadata"] == {"resourceVersion": "99"}
    assert table([pod], "pods")["metadata"] == {"resourceVersion": "1234"}
    assert table([], "pods", list_meta={})["metadata"] == {}


def test_watch_events_after_the_first_have_no_headers() -> None:
    pod = _pod("web", {"phase": "Running"})
    t = table([pod], "pods", no_headers=True)
    assert t["columnDefinitions"] is None
    assert t["rows"][0]["cells"][0] == "web"


def test_json_round_trip() -> None:
    pod = _pod("web", {"phase": "Running"})
    t = table([pod], "pods")
    assert json.loads(json.dumps(t)) == t


# --------------------------------------------------------------------------- nodes


def _node(name: str, ready: str | None, **extra: Any) -> dict[str, Any]:
    conditions = [{"type": "MemoryPressure", "status": "False"}, {"type": "DiskPressure", "status": "False"}]
    if ready is not None:
        conditions.append({"type": "Ready", "status": ready})
    node: dict[str, Any] = {
        "metadata": {"name": name, "creationTimestamp": ago(days=2, hours=5), "labels": extra.pop("labels", {})},
        "spec": extra.pop("spec", {}),
        "status": {
            "conditions": conditions,
            "addresses": [{"type": "InternalIP", "address": "172.18.0.2"}, {"type": "Hostname", "address": name}],
            "nodeInfo": {
                "kubeletVersion": "v1.36.4",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "kernelVersion": "6.8.0-45-generic",
                "containerRuntimeVersion": "containerd://2.1.3",
            },
        },
    }
    return node


def test_node_ready_control_plane_cordoned() -> None:
    node = _node(
        "kind-control-plane",
        "True",
        labels={"node-role.kubernetes.io/control-plane": "", "kubernetes.io/hostname": "kind-control-plane"},
        spec={"unschedulable": True},
    )
    t = table([node], "nodes")
    assert col_names(t) == [
        "Name",
        "Status",
        "Roles",
        "Age",
        "Version",
        "Internal-IP",
        "External-IP",
        "OS-Image",
        "Kernel-Version",
        "Container-Runtime",
    ]
    assert t["rows"][0]["cells"] == [
        "kind-control-plane",
        "Ready,SchedulingDisabled",
        "control-plane",
        "2d5h",
        "v1.36.4",
        "172.18.0.2",
        "<none>",
        "Debian GNU/Linux 12 (bookworm)",
        "6.8.0-45-generic",
        "containerd://2.1.3",
    ]


def test_node_not_ready_unknown_and_roles() -> None:
    worker = _node("w1", "Unknown", labels={"kubernetes.io/role": "worker", "node-role.kubernetes.io/infra": ""})
    assert cells(worker, "nodes")[1:3] == ["NotReady", "infra,worker"]
    bare = _node("w2", None)
    bare["status"]["nodeInfo"] = {}
    assert cells(bare, "nodes")[1:3] == ["Unknown", "<none>"]
    assert cells(bare, "nodes")[4:] == ["", "172.18.0.2", "<none>", "<unknown>", "<unknown>", "<unknown>"]


# --------------------------------------------------------------------------- services & endpoints


def _svc(name: str, spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "creationTimestamp": ago(minutes=5)},
        "spec": spec,
        "status": status or {"loadBalancer": {}},
    }


def test_cluster_ip_service() -> None:
    svc = _svc(
        "kube-dns",
        {
            "type": "ClusterIP",
            "clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10"],
            "selector": {"k8s-app": "kube-dns"},
            "ports": [
                {"name": "dns", "port": 53, "protocol": "UDP"},
                {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
                {"name": "metrics", "port": 9153, "protocol": "TCP"},
            ],
        },
    )
    t = table([svc], "services")
    assert col_names(t) == ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"]
    assert t["columnDefinitions"][6]["priority"] == 1
    assert t["rows"][0]["cells"] == [
        "kube-dns",
        "ClusterIP",
        "10.96.0.10",
        "<none>",
        "53/UDP,53/TCP,9153/TCP",
        "5m",
        "k8s-app=kube-dns",
    ]


def test_node_port_service() -> None:
    svc = _svc(
        "web",
        {
            "type": "NodePort",
            "clusterIPs": ["10.96.12.34"],
            "selector": {"app": "web", "tier": "frontend"},
            "ports": [{"port": 80, "targetPort": 8080, "nodePort": 30080, "protocol": "TCP"}],
        },
    )
    assert cells(svc, "services") == [
        "web",
        "NodePort",
        "10.96.12.34",
        "<none>",
        "80:30080/TCP",
        "5m",
        "app=web,tier=frontend",
    ]


def test_load_balancer_external_name_headless() -> None:
    lb = {"type": "LoadBalancer", "clusterIPs": ["10.96.0.50"], "ports": [{"port": 443, "nodePort": 31443}]}
    assert cells(_svc("lb", lb), "services")[3:5] == ["<pending>", "443:31443/TCP"]
    with_ip = _svc("lb", lb, {"loadBalancer": {"ingress": [{"ip": "203.0.113.10"}, {"hostname": "lb.example.com"}]}})
    assert cells(with_ip, "services")[3] == "203.0.113.10,lb.example.com"  # sorted set, never clipped: Wide
    ext = _svc("db", {"type": "ExternalName", "externalName": "db.example.com"})
    assert cells(ext, "services")[1:5] == ["ExternalName", "<none>", "db.example.com", "<none>"]
    headless = _svc("sts", {"type": "ClusterIP", "clusterIP": "None", "clusterIPs": ["None"], "selector": {}})
    assert cells(headless, "services")[2:7] == ["None", "<none>", "<none>", "5m", "<none>"]
    with_external = _svc("x", {"type": "ClusterIP", "clusterIPs": ["10.0.0.1"], "externalIPs": ["1.2.3.4", "5.6.7.8"]})
    assert cells(with_external, "services")[3] == "1.2.3.4,5.6.7.8"


def test_endpoints() -> None:
    ep = {
        "metadata": {"name": "kube-dns", "creationTimestamp": ago(days=4, hours=21)},
        "subsets": [
            {
                "addresses": [{"ip": "10.1.0.20"}, {"ip": "10.1.0.21"}],
                "ports": [{"name": "dns", "port": 53, "protocol": "UDP"}, {"name": "dns-tcp", "port": 53}],
            }
        ],
    }
    # 2 ports x 2 addresses = 4 endpoints, 3 shown
    assert cells(ep, "endpoints") == ["kube-dns", "10.1.0.20:53,10.1.0.21:53,10.1.0.20:53 + 1 more...", "4d21h"]
    empty = {"metadata": {"name": "web", "creationTimestamp": ago(seconds=3)}}
    assert cells(empty, "endpoints") == ["web", "<none>", "3s"]
    v6 = {"metadata": {"name": "v6"}, "subsets": [{"addresses": [{"ip": "fd00::1"}], "ports": [{"port": 80}]}]}
    assert cells(v6, "endpoints")[1] == "[fd00::1]:80"
    headless = {"metadata": {"name": "h"}, "subsets": [{"addresses": [{"ip": "10.0.0.1"}]}]}
    assert cells(headless, "endpoints")[1] == "10.0.0.1"


def test_endpoint_slices() -> None:
    eps = {
        "metadata": {"name": "web-abcde", "creationTimestamp": ago(minutes=1)},
        "addressType": "IPv4",
        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
        "endpoints": [{"addresses": [f"10.244.0.{i}"]} for i in range(1, 6)],
    }
    t = table([eps], "endpointslices", "discovery.k8s.io")
    assert col_names(t) == ["Name", "AddressType", "Ports", "Endpoints", "Age"]
    assert t["rows"][0]["cells"] == ["web-abcde", "IPv4", "80", "10.244.0.1,10.244.0.2,10.244.0.3 + 2 more...", "60s"]
    bare = {"metadata": {"name": "x"}, "addressType": "IPv4", "ports": [{}], "endpoints": []}
    assert cells(bare, "endpointslices", "discovery.k8s.io")[1:4] == ["IPv4", "*", "<unset>"]


# --------------------------------------------------------------------------- events


def test_core_event() -> None:
    ev = {
        "metadata": {"name": "api-7d9f.17a1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "api-7d9f", "fieldPath": "spec.containers{app}"},
        "reason": "BackOff",
        "message": "Back-off restarting failed container app in pod api-7d9f_default(uid)\n",
        "source": {"component": "kubelet", "host": "kind-worker"},
        "firstTimestamp": ago(minutes=14),
        "lastTimestamp": ago(seconds=30),
        "count": 61,
        "type": "Warning",
        "reportingComponent": "kubelet",
        "reportingInstance": "kind-worker",
    }
    t = table([ev], "events")
    assert col_names(t) == [
        "Last Seen",
        "Type",
        "Reason",
        "Object",
        "Subobject",
        "Source",
        "Message",
        "First Seen",
        "Count",
        "Name",
    ]
    assert [c["priority"] for c in t["columnDefinitions"]] == [0, 0, 0, 0, 1, 1, 0, 1, 1, 1]
    assert t["columnDefinitions"][9]["format"] == "name"
    assert t["rows"][0]["cells"] == [
        "30s",
        "Warning",
        "BackOff",
        "pod/api-7d9f",
        "spec.containers{app}",
        "kubelet, kind-worker",
        "Back-off restarting failed container app in pod api-7d9f_default(uid)",
        "14m",
        61,
        "api-7d9f.17a1",
    ]


def test_event_timestamps_fallbacks_and_series() -> None:
    # new-style event: no first/lastTimestamp, eventTime only, count 0 -> 1, reportingController as source
    ev = {
        "metadata": {"name": "e"},
        "involvedObject": {"kind": "Node"},
        "reason": "Starting",
        "message": "",
        "eventTime": "2026-11-29T11:59:50.123456Z",
        "type": "Normal",
        "reportingComponent": "kube-proxy",
    }
    c = cells(ev, "events")
    assert c[0] == "9s" and c[7] == "9s"
    assert c[3] == "node"
    assert c[5] == "kube-proxy"
    assert c[8] == 1
    ev["series"] = {"count": 5, "lastObservedTime": "2026-11-29T11:59:00.000000Z"}
    c = cells(ev, "events")
    assert c[0] == "60s" and c[8] == 5
    missing = {"metadata": {"name": "m"}, "involvedObject": {"kind": "Pod", "name": "p"}}
    assert cells(missing, "events")[0] == "<unknown>"


def test_events_k8s_io_event_uses_the_core_table() -> None:
    ev = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "web.1", "namespace": "default", "resourceVersion": "7"},
        "eventTime": None,
        "regarding": {"kind": "Pod", "name": "web", "fieldPath": "spec.containers{app}"},
        "note": 'Pulling image "nginx:1.25"',
        "reason": "Pulling",
        "type": "Normal",
        "deprecatedSource": {"component": "kubelet", "host": "kind-worker"},
        "deprecatedFirstTimestamp": ago(minutes=3),
        "deprecatedLastTimestamp": ago(minutes=1),
        "deprecatedCount": 2,
        "reportingController": "kubelet",
    }
    t = table([ev], "events", "events.k8s.io", include_object="Object")
    assert col_names(t)[:4] == ["Last Seen", "Type", "Reason", "Object"]
    assert t["rows"][0]["cells"] == [
        "60s",
        "Normal",
        "Pulling",
        "pod/web",
        "spec.containers{app}",
        "kubelet, kind-worker",
        'Pulling image "nginx:1.25"',
        "3m",
        2,
        "web.1",
    ]
    assert t["rows"][0]["object"] == ev


# --------------------------------------------------------------------------- config & storage


def test_configmap_secret_serviceaccount_namespace() -> None:
    cm = {"metadata": {"name": "cfg", "creationTimestamp": ago(hours=1)}, "data": {"a": "1"}, "binaryData": {"b": ""}}
    assert cells(cm, "configmaps") == ["cfg", 2, "60m"]
    assert cells({"metadata": {"name": "kube-root-ca.crt"}}, "configmaps") == ["kube-root-ca.crt", 0, "<unknown>"]
    sec = {
        "metadata": {"name": "tls", "creationTimestamp": ago(days=30)},
        "type": "kubernetes.io/tls",
        "data": {"tls.crt": "", "tls.key": ""},
    }
    t = table([sec], "secrets")
    assert col_names(t) == ["Name", "Type", "Data", "Age"]
    assert t["rows"][0]["cells"] == ["tls", "kubernetes.io/tls", 2, "30d"]
    sa = {"metadata": {"name": "default", "creationTimestamp": ago(minutes=9, seconds=59)}}
    assert cells(sa, "serviceaccounts") == ["default", 0, "9m59s"]
    ns = {"metadata": {"name": "prod", "creationTimestamp": ago(days=800)}, "status": {"phase": "Terminating"}}
    assert cells(ns, "namespaces") == ["prod", "Terminating", "2y70d"]


def test_persistent_volume_claims() -> None:
    bound = {
        "metadata": {"name": "data-db-0", "creationTimestamp": ago(hours=2)},
        "spec": {
            "volumeName": "pvc-123",
            "storageClassName": "standard",
            "volumeMode": "Filesystem",
            "resources": {"requests": {"storage": "1Gi"}},
            "accessModes": ["ReadWriteOnce"],
        },
        "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}},
    }
    t = table([bound], "persistentvolumeclaims")
    assert col_names(t) == [
        "Name",
        "Status",
        "Volume",
        "Capacity",
        "Access Modes",
        "StorageClass",
        "VolumeAttributesClass",
        "Age",
        "VolumeMode",
    ]
    assert t["rows"][0]["cells"] == [
        "data-db-0",
        "Bound",
        "pvc-123",
        "1Gi",
        "RWO",
        "standard",
        "<unset>",
        "120m",
        "Filesystem",
    ]
    pending = {
        "metadata": {"name": "claim", "creationTimestamp": ago(seconds=30)},
        "spec": {"resources": {"requests": {"storage": "5Gi"}}, "accessModes": ["ReadWriteMany"]},
        "status": {"phase": "Pending"},
    }
    # capacity and access modes only once bound (spec.volumeName set); no class -> ""
    assert cells(pending, "persistentvolumeclaims") == ["claim", "Pending", "", "", "", "", "<unset>", "30s", "<unset>"]


def test_persistent_volumes() -> None:
    pv = {
        "metadata": {"name": "pvc-123", "creationTimestamp": ago(hours=2)},
        "spec": {
            "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany"],
            "persistentVolumeReclaimPolicy": "Delete",
            "claimRef": {"namespace": "default", "name": "data-db-0"},
            "storageClassName": "standard",
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Bound"},
    }
    assert cells(pv, "persistentvolumes") == [
        "pvc-123",
        "10Gi",
        "RWO,ROX,RWX",
        "Delete",
        "Bound",
        "default/data-db-0",
        "standard",
        "<unset>",
        "",
        "120m",
        "Filesystem",
    ]


def test_storage_classes() -> None:
    sc = {
        "metadata": {
            "name": "standard",
            "creationTimestamp": ago(days=3),
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
        },
        "provisioner": "rancher.io/local-path",
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    t = table([sc], "storageclasses", "storage.k8s.io")
    assert col_names(t) == [
        "Name",
        "Provisioner",
        "ReclaimPolicy",
        "VolumeBindingMode",
        "AllowVolumeExpansion",
        "Age",
    ]
    assert t["rows"][0]["cells"] == [
        "standard (default)",
        "rancher.io/local-path",
        "Delete",
        "WaitForFirstConsumer",
        False,
        "3d",
    ]
    plain = {"metadata": {"name": "fast"}, "provisioner": "x", "allowVolumeExpansion": True}
    assert cells(plain, "storageclasses", "storage.k8s.io")[:5] == ["fast", "x", "Delete", "Immediate", True]


def test_resource_quota() -> None:
    rq = {
        "metadata": {"name": "compute", "creationTimestamp": ago(minutes=30)},
        "status": {
            "hard": {"requests.cpu": "1", "requests.memory": "1Gi", "limits.cpu": "2", "pods": "10"},
            "used": {"requests.cpu": "500m", "limits.cpu": "1", "pods": "3"},
        },
    }
    assert cells(rq, "resourcequotas") == [
        "compute",
        "pods: 3/10, requests.cpu: 500m/1, requests.memory: 0/1Gi",
        "limits.cpu: 1/2",
        "30m",
    ]


def test_default_table_for_resources_without_printer() -> None:
    lr = {"metadata": {"name": "limits", "creationTimestamp": "2026-11-01T08:09:10Z"}}
    t = table([lr], "limitranges")
    assert t["columnDefinitions"] == [
        t["columnDefinitions"][0] | {"name": "Name", "type": "string", "format": "name", "priority": 0},
        t["columnDefinitions"][1] | {"name": "Created At", "type": "date", "format": "", "priority": 0},
    ]
    assert t["rows"][0]["cells"] == ["limits", "2026-11-01T08:09:10Z"]
    assert cells({"metadata": {"name": "admin"}}, "clusterroles", "rbac.authorization.k8s.io") == [
        "admin",
        "0001-01-01T00:00:00Z",
    ]
    # the default convertor appends to a nil slice: an empty list has "rows": null
    assert table([], "roles", "rbac.authorization.k8s.io")["rows"] is None


def test_custom_resources() -> None:
    cr = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "creationTimestamp": ago(hours=50)},
        "spec": {"size": 3, "color": "blue", "ready": True},
    }
    t = table([cr], "widgets", "example.com")
    assert [(c["name"], c["type"]) for c in t["columnDefinitions"]] == [("Name", "string"), ("Age", "date")]
    assert t["rows"][0]["cells"] == ["w", "2d2h"]
    cols = [
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
        {"name": "Color", "type": "string", "jsonPath": ".spec.color", "priority": 1},
        {"name": "Missing", "type": "string", "jsonPath": ".status.phase"},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    ]
    t = table([cr], "widgets", "example.com", printer_columns=cols)
    assert t["columnDefinitions"][2]["description"] == (
        "Custom resource definition column (in JSONPath format): .spec.color"
    )
    assert t["columnDefinitions"][2]["priority"] == 1
    assert t["rows"][0]["cells"] == ["w", 3, "blue", None, "2d2h"]


# --------------------------------------------------------------------------- workloads


def _template(*containers: tuple[str, str]) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": n, "image": i} for n, i in containers]}}


def test_deployment_mid_rollout() -> None:
    dep = {
        "metadata": {"name": "web", "creationTimestamp": ago(days=1, hours=2)},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": _template(("nginx", "nginx:1.27"), ("sidecar", "busybox:1.36")),
        },
        "status": {
            "replicas": 4,
            "updatedReplicas": 1,
            "readyReplicas": 2,
            "availableReplicas": 2,
            "unavailableReplicas": 2,
        },
    }
    t = table([dep], "deployments", "apps")
    assert col_names(t) == ["Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"]
    assert [c["type"] for c in t["columnDefinitions"]] == ["string"] * 8
    assert t["rows"][0]["cells"] == [
        "web",
        "2/3",
        1,
        2,
        "26h",
        "nginx,sidecar",
        "nginx:1.27,busybox:1.36",
        "app=web",
    ]
    fresh = {
        "metadata": {"name": "new"},
        "spec": {"replicas": 2, "selector": {}, "template": _template()},
        "status": {},
    }
    assert cells(fresh, "deployments", "apps") == ["new", "0/2", 0, 0, "<unknown>", "", "", ""]


def test_replica_set_stateful_set_daemon_set() -> None:
    rs = {
        "metadata": {"name": "web-5d4f", "creationTimestamp": ago(minutes=7)},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web", "pod-template-hash": "5d4f"}},
            "template": _template(("nginx", "nginx:1.27")),
        },
        "status": {"replicas": 3, "readyReplicas": 1},
    }
    assert cells(rs, "replicasets", "apps") == [
        "web-5d4f",
        3,
        3,
        1,
        "7m",
        "nginx",
        "nginx:1.27",
        "app=web,pod-template-hash=5d4f",
    ]
    sts = {
        "metadata": {"name": "db", "creationTimestamp": ago(minutes=7)},
        "spec": {"replicas": 3, "template": _template(("pg", "postgres:17"))},
        "status": {"readyReplicas": 2},
    }
    t = table([sts], "statefulsets", "apps")
    assert col_names(t) == ["Name", "Ready", "Age", "Containers", "Images"]
    assert t["rows"][0]["cells"] == ["db", "2/3", "7m", "pg", "postgres:17"]
    ds = {
        "metadata": {"name": "kube-proxy", "creationTimestamp": ago(days=9)},
        "spec": {
            "selector": {"matchLabels": {"k8s-app": "kube-proxy"}},
            "template": {
                "spec": {
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "containers": [{"name": "kube-proxy", "image": "registry.k8s.io/kube-proxy:v1.36.4"}],
                }
            },
        },
        "status": {
            "desiredNumberScheduled": 3,
            "currentNumberScheduled": 3,
            "numberReady": 2,
            "updatedNumberScheduled": 3,
            "numberAvailable": 2,
        },
    }
    t = table([ds], "daemonsets", "apps")
    assert col_names(t) == [
        "Name",
        "Desired",
        "Current",
        "Ready",
        "Up-to-date",
        "Available",
        "Node Selector",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    assert t["rows"][0]["cells"] == [
        "kube-proxy",
        3,
        3,
        2,
        3,
        2,
        "kubernetes.io/os=linux",
        "9d",
        "kube-proxy",
        "registry.k8s.io/kube-proxy:v1.36.4",
        "k8s-app=kube-proxy",
    ]


def _job(status: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "pi", "creationTimestamp": ago(minutes=3)},
        "spec": {
            "completions": 1,
            "parallelism": 1,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}},
            "template": _template(("pi", "perl:5.34")),
            **spec,
        },
        "status": status,
    }


def test_jobs() -> None:
    running = _job({"startTime": ago(minutes=2, seconds=40), "active": 1})
    t = table([running], "jobs", "batch")
    assert col_names(t) == ["Name", "Status", "Completions", "Duration", "Age", "Containers", "Images", "Selector"]
    assert t["rows"][0]["cells"] == [
        "pi",
        "Running",
        "0/1",
        "2m40s",
        "3m",
        "pi",
        "perl:5.34",
        "batch.kubernetes.io/controller-uid=u1",
    ]
    complete = _job(
        {
            "startTime": "2026-11-29T11:57:00Z",
            "completionTime": "2026-11-29T11:57:12Z",
            "succeeded": 1,
            "conditions": [
                {"type": "SuccessCriteriaMet", "status": "True"},
                {"type": "Complete", "status": "True"},
            ],
        }
    )
    assert cells(complete, "jobs", "batch")[1:4] == ["Complete", "1/1", "12s"]
    failed = _job(
        {
            "startTime": ago(minutes=2),
            "failed": 7,
            "conditions": [{"type": "FailureTarget", "status": "True"}, {"type": "Failed", "status": "True"}],
        }
    )
    assert cells(failed, "jobs", "batch")[1:3] == ["Failed", "0/1"]
    suspended = _job({"conditions": [{"type": "Suspended", "status": "True"}]}, suspend=True)
    assert cells(suspended, "jobs", "batch")[1:4] == ["Suspended", "0/1", ""]
    failure_target = _job({"startTime": ago(seconds=5), "conditions": [{"type": "FailureTarget", "status": "True"}]})
    assert cells(failure_target, "jobs", "batch")[1] == "FailureTarget"
    # SuccessCriteriaMet: added to printJob in 1.33 (release note "kubectl get job now displays the
    # SuccessCriteriaMet status"), checked after FailureTarget.
    criteria_met = _job({"startTime": ago(seconds=5), "conditions": [{"type": "SuccessCriteriaMet", "status": "True"}]})
    assert cells(criteria_met, "jobs", "batch")[1] == "SuccessCriteriaMet"
    deleting = _job({"startTime": ago(seconds=5)})
    deleting["metadata"]["deletionTimestamp"] = ago(seconds=1)
    assert cells(deleting, "jobs", "batch")[1] == "Terminating"
    parallel = _job({"succeeded": 2}, completions=None, parallelism=3)
    assert cells(parallel, "jobs", "batch")[2] == "2/1 of 3"
    work_queue = _job({}, completions=None, parallelism=1)
    assert cells(work_queue, "jobs", "batch")[2] == "0/1"


def test_cron_jobs() -> None:
    cj = {
        "metadata": {"name": "backup", "creationTimestamp": ago(days=2)},
        "spec": {
            "schedule": "*/5 * * * *",
            "suspend": False,
            "jobTemplate": {"spec": {"template": _template(("b", "busybox:1.36"))}},
        },
        "status": {"active": [{"name": "backup-1"}], "lastScheduleTime": ago(minutes=2)},
    }
    t = table([cj], "cronjobs", "batch")
    assert col_names(t) == [
        "Name",
        "Schedule",
        "Timezone",
        "Suspend",
        "Active",
        "Last Schedule",
        "Age",
        "Containers",
        "Images",
        "Selector",
    ]
    assert t["columnDefinitions"][3]["type"] == "boolean"
    assert t["rows"][0]["cells"] == [
        "backup",
        "*/5 * * * *",
        "<none>",
        "False",
        1,
        "2m",
        "2d",
        "b",
        "busybox:1.36",
        "<none>",
    ]
    cj["spec"].pop("suspend")
    cj["spec"]["timeZone"] = "Etc/UTC"
    cj["status"] = {}
    assert cells(cj, "cronjobs", "batch")[2:6] == ["Etc/UTC", "<unset>", 0, "<none>"]


def test_pod_disruption_budgets() -> None:
    pdb = {
        "metadata": {"name": "web-pdb", "creationTimestamp": ago(minutes=20)},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2},
    }
    t = table([pdb], "poddisruptionbudgets", "policy")
    assert col_names(t) == ["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"]
    assert t["columnDefinitions"][3]["type"] == "integer"
    assert t["rows"][0]["cells"] == ["web-pdb", "2", "N/A", 0, "20m"]
    pct = {"metadata": {"name": "p"}, "spec": {"maxUnavailable": "25%"}, "status": {"disruptionsAllowed": 1}}
    assert cells(pct, "poddisruptionbudgets", "policy")[1:4] == ["N/A", "25%", 1]


def test_network_policies_and_selector_formatting() -> None:
    deny = {"metadata": {"name": "deny-all", "creationTimestamp": ago(seconds=90)}, "spec": {"podSelector": {}}}
    assert cells(deny, "networkpolicies", "networking.k8s.io") == ["deny-all", "<none>", "90s"]
    db = {
        "metadata": {"name": "db"},
        "spec": {
            "podSelector": {
                "matchLabels": {"tier": "db"},
                "matchExpressions": [
                    {"key": "env", "operator": "In", "values": ["prod", "dev"]},
                    {"key": "canary", "operator": "DoesNotExist"},
                    {"key": "app", "operator": "Exists"},
                    {"key": "zone", "operator": "NotIn", "values": ["b"]},
                ],
            }
        },
    }
    # labels.Selector.String(): requirements sorted by key, In/NotIn values sorted
    assert (
        cells(db, "networkpolicies", "networking.k8s.io")[1] == "app,!canary,env in (dev,prod),tier=db,zone notin (b)"
    )


def test_leases_and_controller_revisions() -> None:
    lease = {
        "metadata": {"name": "kube-scheduler", "creationTimestamp": ago(hours=5)},
        "spec": {"holderIdentity": "kind-control-plane_1b2c"},
    }
    t = table([lease], "leases", "coordination.k8s.io")
    assert col_names(t) == ["Name", "Holder", "Age"]
    assert t["rows"][0]["cells"] == ["kube-scheduler", "kind-control-plane_1b2c", "5h"]
    assert cells({"metadata": {"name": "l"}, "spec": {}}, "leases", "coordination.k8s.io")[1] == ""
    cr = {
        "metadata": {
            "name": "kindnet-6f9c",
            "creationTimestamp": ago(minutes=1),
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "kindnet", "controller": True}],
        },
        "revision": 1,
    }
    assert cells(cr, "controllerrevisions", "apps") == ["kindnet-6f9c", "daemonset.apps/kindnet", 1, "60s"]


def test_rbac_bindings_priority_classes() -> None:
    rb = {
        "metadata": {"name": "read", "creationTimestamp": ago(minutes=1)},
        "roleRef": {"kind": "ClusterRole", "name": "view", "apiGroup": "rbac.authorization.k8s.io"},
        "subjects": [
            {"kind": "User", "name": "jane"},
            {"kind": "Group", "name": "devs"},
            {"kind": "ServiceAccount", "name": "ci", "namespace": "tools"},
            {"kind": "User", "name": "bob"},
        ],
    }
    t = table([rb], "rolebindings", "rbac.authorization.k8s.io")
    assert col_names(t) == ["Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"]
    assert t["rows"][0]["cells"] == ["read", "ClusterRole/view", "60s", "jane, bob", "devs", "tools/ci"]
    pc = {
        "metadata": {"name": "system-cluster-critical"},
        "value": 2000000000,
        "preemptionPolicy": "PreemptLowerPriority",
    }
    assert cells(pc, "priorityclasses", "scheduling.k8s.io") == [
        "system-cluster-critical",
        2000000000,
        False,
        "<unknown>",
        "PreemptLowerPriority",
    ]


def test_hpa_and_ingress() -> None:
    hpa = {
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 10,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
                }
            ],
        },
        "status": {
            "currentReplicas": 2,
            "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 45}}}
            ],
        },
    }
    assert cells(hpa, "horizontalpodautoscalers", "autoscaling") == [
        "web",
        "Deployment/web",
        "cpu: 45%/80%",
        "1",
        10,
        2,
        "<unknown>",
    ]
    v1 = {
        "metadata": {"name": "v1"},
        "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "d"},
            "maxReplicas": 3,
            "targetCPUUtilizationPercentage": 50,
        },
        "status": {},
    }
    assert cells(v1, "horizontalpodautoscalers", "autoscaling")[2:4] == ["cpu: <unknown>/50%", "<unset>"]
    ing = {
        "metadata": {"name": "web"},
        "spec": {
            "ingressClassName": "nginx",
            "rules": [{"host": "a.example.com"}, {"host": "b.example.com"}],
            "tls": [{"hosts": ["a.example.com"]}],
        },
        "status": {"loadBalancer": {"ingress": [{"ip": "172.18.0.3"}]}},
    }
    assert cells(ing, "ingresses", "networking.k8s.io") == [
        "web",
        "nginx",
        "a.example.com,b.example.com",
        "172.18.0.3",
        "80, 443",
        "<unknown>",
    ]


# --------------------------------------------------------------------------- supports()


def test_supports() -> None:
    for group, resource in [
        ("", "pods"),
        ("", "events"),
        ("events.k8s.io", "events"),
        ("apps", "deployments"),
        ("batch", "jobs"),
        ("storage.k8s.io", "storageclasses"),
        ("", "limitranges"),
        ("rbac.authorization.k8s.io", "clusterroles"),
        ("example.com", "widgets"),
    ]:
        assert supports(group, resource), (group, resource)
    # built-in kinds with an upstream printer that is not transliterated here
    assert not supports("certificates.k8s.io", "certificatesigningrequests")
    assert not supports("flowcontrol.apiserver.k8s.io", "flowschemas")
