"""Rendering shifts the cluster's own timestamps to host time, and leaves the ones clients wrote alone."""

from __future__ import annotations

from pytest_simian.sim.clock import VirtualClock


def _clock() -> VirtualClock:
    t = [1_000_000.0]
    c = VirtualClock(host=lambda: t[0])
    c.set_realtime(False)
    t[0] += 100  # the host moved 100 s while the cluster stood still: shift is +100 s
    return c


def test_cluster_timestamps_are_shifted_to_host_time() -> None:
    c = _clock()
    pod = {"kind": "Pod", "metadata": {"creationTimestamp": "2026-11-29T15:00:00Z"},
           "status": {"startTime": "2026-11-29T15:00:05Z"}}
    out = c.render(pod)
    assert out["metadata"]["creationTimestamp"] == "2026-11-29T15:01:40Z"
    assert out["status"]["startTime"] == "2026-11-29T15:01:45Z"


def test_timestamps_clients_write_round_trip_unchanged() -> None:
    c = _clock()
    cm = {"kind": "ConfigMap", "metadata": {"creationTimestamp": "2026-11-29T15:00:00Z",
                                            "annotations": {"simian.chaos/expires-at": "2026-11-29T16:00:00Z"},
                                            "labels": {}},
          "data": {"when": "2026-11-29T15:00:00Z"}}
    out = c.render(cm)
    assert out["metadata"]["annotations"]["simian.chaos/expires-at"] == "2026-11-29T16:00:00Z"
    assert out["data"]["when"] == "2026-11-29T15:00:00Z"
    assert out["metadata"]["creationTimestamp"] == "2026-11-29T15:01:40Z"


def test_a_client_lease_keeps_its_times_and_a_node_lease_is_shifted() -> None:
    c = _clock()
    spec = {"holderIdentity": "x", "renewTime": "2026-11-29T15:00:00.000000Z"}
    mine = {"kind": "Lease", "metadata": {"namespace": "simian-holds"}, "spec": dict(spec)}
    node = {"kind": "Lease", "metadata": {"namespace": "kube-node-lease"}, "spec": dict(spec)}
    assert c.render(mine)["spec"]["renewTime"] == "2026-11-29T15:00:00.000000Z"
    assert c.render(node)["spec"]["renewTime"] == "2026-11-29T15:01:40.000000Z"
