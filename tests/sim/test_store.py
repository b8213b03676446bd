"""Unit tests of the store's bookkeeping: resourceVersion, generation, watch resume and 410, selectors on
watches, garbage collection (background, foreground, orphan), finalizers, namespace finalization, and the
virtual clock's rendering."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pytest_simian.sim.clock import VirtualClock, parse_time
from pytest_simian.sim.errors import ApiError
from pytest_simian.sim.store import INITIAL_EVENTS_END, Store, WatchEvent


def _store(**kw: Any) -> Store:
    s = Store(VirtualClock(realtime=False), **kw)
    s.namespace_finalize_delay = 0
    for ns in ("default", "a"):
        s.create("namespaces", {"metadata": {"name": ns}})
    return s


def _cm(name: str, ns: str = "a", **md: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": ns, **md}, "data": {"k": "v"}}


def _owned(name: str, owner: dict[str, Any], kind: str = "ConfigMap", **extra: Any) -> dict[str, Any]:
    ref = {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
           "uid": owner["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}
    return _cm(name, ownerReferences=[ref], **extra)


def _drain(w: Any) -> list[tuple[str, str]]:
    out = []
    while not w._queue.empty():
        ev = w._queue.get_nowait()
        if ev is None:
            break
        out.append((ev.type, ev.object["metadata"].get("name", "")))
    return out


def test_resource_version_is_a_global_counter_and_noop_update_keeps_it() -> None:
    s = _store()
    a = s.create("configmaps", _cm("x"))
    b = s.create("secrets", {"metadata": {"name": "y", "namespace": "a"}})
    assert int(b["metadata"]["resourceVersion"]) > int(a["metadata"]["resourceVersion"])
    same = s.update("configmaps", a)
    assert same["metadata"]["resourceVersion"] == a["metadata"]["resourceVersion"]
    lst = s.list("configmaps", "a")
    assert int(lst["metadata"]["resourceVersion"]) >= int(b["metadata"]["resourceVersion"])


def test_stale_update_is_409_with_the_real_message() -> None:
    s = _store()
    a = s.create("configmaps", _cm("x"))
    s.patch("configmaps", "x", {"data": {"k": "w"}}, namespace="a")
    with pytest.raises(ApiError) as e:
        s.update("configmaps", a)
    assert e.value.code == 409
    assert e.value.message == ('Operation cannot be fulfilled on configmaps "x": the object has been modified; '
                               "please apply your changes to the latest version and try again")


def test_generation_moves_with_spec_only() -> None:
    s = _store()
    d = s.create("deployments", {"metadata": {"name": "d", "namespace": "a"}, "spec": {
        "selector": {"matchLabels": {"app": "d"}},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
    assert d["metadata"]["generation"] == 1
    d = s.patch("deployments", "d", {"metadata": {"labels": {"x": "y"}}}, namespace="a")
    assert d["metadata"]["generation"] == 1
    d = s.patch("deployments", "d", {"spec": {"replicas": 5}}, namespace="a")
    assert d["metadata"]["generation"] == 2
    d["status"] = {"replicas": 5}
    d = s.update_status("deployments", d)
    assert d["metadata"]["generation"] == 2 and d["status"] == {"replicas": 5}


def test_watch_resume_from_resource_version_replays_only_later_events() -> None:
    async def main() -> None:
        s = _store()
        s.create("configmaps", _cm("one"))
        rv = str(s.resource_version)
        s.create("configmaps", _cm("two"))
        s.patch("configmaps", "one", {"data": {"k": "2"}}, namespace="a")
        w = s.watch("configmaps", "a", resource_version=rv)
        assert _drain(w) == [("ADDED", "two"), ("MODIFIED", "one")]
        s.delete("configmaps", "two", "a")
        assert _drain(w) == [("DELETED", "two")]
        w.close()
        w0 = s.watch("configmaps", "a", resource_version="0")
        assert _drain(w0) == [("ADDED", "kube-root-ca.crt"), ("ADDED", "one")]

    asyncio.run(main())


def test_watch_older_than_history_is_410_expired() -> None:
    async def main() -> None:
        s = _store(history_size=5)
        for i in range(10):
            s.create("configmaps", _cm(f"c{i}"))
        with pytest.raises(ApiError) as e:
            s.watch("configmaps", "a", resource_version="3")
        assert e.value.code == 410 and e.value.reason == "Expired"
        assert e.value.message.startswith("too old resource version: 3 (")
        s.watch("configmaps", "a", resource_version=str(s.resource_version - 2))  # inside the window: fine

    asyncio.run(main())


def test_watch_list_initial_events_end_with_annotated_bookmark() -> None:
    async def main() -> None:
        s = _store()
        s.create("configmaps", _cm("one"))
        w = s.watch("configmaps", "a", send_initial_events=True, allow_bookmarks=True, resource_version="")
        evs: list[WatchEvent] = []
        while not w._queue.empty():
            evs.append(w._queue.get_nowait())  # type: ignore[arg-type]
        assert [e.type for e in evs] == ["ADDED", "ADDED", "BOOKMARK"]
        assert evs[-1].object["metadata"]["annotations"] == {INITIAL_EVENTS_END: "true"}
        assert evs[-1].object["metadata"]["resourceVersion"] == str(s.resource_version)

    asyncio.run(main())


def test_label_selector_watch_emits_synthetic_added_and_deleted() -> None:
    async def main() -> None:
        s = _store()
        s.create("configmaps", _cm("x", labels={"app": "a"}))
        w = s.watch("configmaps", "a", resource_version=str(s.resource_version), label_selector="app=b")
        s.patch("configmaps", "x", {"metadata": {"labels": {"app": "b"}}}, namespace="a")
        s.patch("configmaps", "x", {"metadata": {"labels": {"app": "c"}}}, namespace="a")
        assert _drain(w) == [("ADDED", "x"), ("DELETED", "x")]

    asyncio.run(main())


def test_background_gc_deletes_dependents_but_keeps_co_owned() -> None:
    s = _store()
    owner = s.create("configmaps", _cm("owner"))
    other = s.create("configmaps", _cm("other"))
    s.create("configmaps", _owned("dep", owner))
    co = _owned("co", owner)
    co["metadata"]["ownerReferences"].append({"apiVersion": "v1", "kind": "ConfigMap", "name": "other",
                                              "uid": other["metadata"]["uid"]})
    s.create("configmaps", co)
    s.create("configmaps", _owned("grandchild", s.get("configmaps", "dep", "a")))
    s.delete("configmaps", "owner", "a")
    names = {o["metadata"]["name"] for o in s.items("configmaps", "a")}
    assert names == {"kube-root-ca.crt", "other", "co"}
    assert [r["name"] for r in s.get("configmaps", "co", "a")["metadata"]["ownerReferences"]] == ["other"]


def test_orphan_keeps_dependents_and_strips_the_reference() -> None:
    s = _store()
    owner = s.create("configmaps", _cm("owner"))
    s.create("configmaps", _owned("dep", owner))
    s.delete("configmaps", "owner", "a", propagation_policy="Orphan")
    assert "ownerReferences" not in s.get("configmaps", "dep", "a")["metadata"]


def test_foreground_waits_for_finalized_dependents() -> None:
    s = _store()
    owner = s.create("configmaps", _cm("owner"))
    s.create("configmaps", _owned("dep", owner, finalizers=["example.com/hold"]))
    marked = s.delete("configmaps", "owner", "a", propagation_policy="Foreground")
    assert marked["metadata"]["deletionTimestamp"]
    assert "foregroundDeletion" in marked["metadata"]["finalizers"]
    dep = s.get("configmaps", "dep", "a")
    assert dep["metadata"]["deletionTimestamp"]
    dep["metadata"]["finalizers"] = []
    s.update("configmaps", dep)
    assert s.get_or_none("configmaps", "dep", "a") is None
    assert s.get_or_none("configmaps", "owner", "a") is None


def test_namespace_deletion_finalizes_content_then_goes() -> None:
    async def main() -> None:
        s = _store()
        s.create("configmaps", _cm("x"))
        ns = s.delete("namespaces", "a")
        assert ns["status"]["phase"] == "Terminating"
        with pytest.raises(ApiError) as e:
            s.create("configmaps", _cm("late"))
        assert e.value.code == 403
        assert "unable to create new content in namespace a because it is being terminated" in e.value.message
        await asyncio.sleep(0.01)
        assert s.get_or_none("namespaces", "a") is None
        assert s.items("configmaps", "a") == []

    asyncio.run(main())


def test_create_in_missing_namespace_is_404() -> None:
    s = _store()
    with pytest.raises(ApiError) as e:
        s.create("configmaps", _cm("x", ns="nowhere"))
    assert (e.value.code, e.value.message) == (404, 'namespaces "nowhere" not found')


def test_clock_renders_virtual_time_as_host_time_with_nominal_intervals() -> None:
    host = [1_000_000.0]
    clock = VirtualClock(realtime=False, host=lambda: host[0])
    s = Store(clock)
    s.create("namespaces", {"metadata": {"name": "a"}})
    created = s.create("configmaps", _cm("x"))["metadata"]["creationTimestamp"]
    clock.advance(300)  # five virtual minutes pass while the host clock stands still
    host[0] += 2.0
    shown = clock.render(s.get("configmaps", "x", "a"))["metadata"]["creationTimestamp"]
    age = host[0] - parse_time(shown).timestamp()
    assert 300 <= age < 301, "the rendered creationTimestamp is five minutes before the host's now"
    assert parse_time(created).timestamp() == 1_000_000.0


def test_clock_sleep_wakes_on_advance_not_on_wall_time() -> None:
    async def main() -> None:
        clock = VirtualClock(realtime=False)
        t = asyncio.ensure_future(clock.sleep(60))
        await asyncio.sleep(0.05)
        assert not t.done()
        clock.advance(30)
        await asyncio.sleep(0.01)
        assert not t.done()
        clock.advance(31)
        await asyncio.wait_for(t, 1)

    asyncio.run(main())


def test_controllers_start_with_the_store_and_see_events() -> None:
    seen: list[str] = []

    async def controller(store: Store) -> None:
        w = store.watch("configmaps", "a")
        async for ev in w:
            seen.append(f"{ev.type} {ev.object['metadata']['name']}")

    async def main() -> None:
        s = _store()
        s.add_controller("cm-watcher", controller)
        await s.start_controllers()
        await asyncio.sleep(0)
        s.create("configmaps", _cm("new"))
        await asyncio.sleep(0.01)
        await s.stop_controllers()

    asyncio.run(main())
    assert seen == ["ADDED kube-root-ca.crt", "ADDED new"]


def test_core_and_events_k8s_io_events_are_one_object() -> None:
    async def main() -> None:
        s = _store()
        w = s.watch("events.events.k8s.io", "a", resource_version=str(s.resource_version))
        core = s.create("events", {"metadata": {"name": "e1", "namespace": "a"}, "reason": "BackOff",
                                   "message": "Back-off restarting failed container", "type": "Warning",
                                   "involvedObject": {"kind": "Pod", "name": "p", "namespace": "a"}, "count": 3})
        new = s.get("events.events.k8s.io", "e1", "a")
        assert new["apiVersion"] == "events.k8s.io/v1"
        assert new["note"] == "Back-off restarting failed container" and new["deprecatedCount"] == 3
        assert new["regarding"]["name"] == "p"
        assert new["metadata"]["uid"] == core["metadata"]["uid"]
        assert new["metadata"]["resourceVersion"] == core["metadata"]["resourceVersion"]
        s.delete("events", "e1", "a")
        assert s.get_or_none("events.events.k8s.io", "e1", "a") is None
        assert _drain(w) == [("ADDED", "e1"), ("DELETED", "e1")]

    asyncio.run(main())


def test_eviction_respects_pod_disruption_budgets() -> None:
    s = _store()
    for n in ("p1", "p2"):
        p = s.create("pods", {"metadata": {"name": n, "namespace": "a", "labels": {"app": "w"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}})
        p["status"] = {"phase": "Running"}
        s.update_status("pods", p)
    pdb = s.create("poddisruptionbudgets", {"metadata": {"name": "w", "namespace": "a"},
                                            "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "w"}}}})
    pdb["status"] = {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2}
    s.update_status("poddisruptionbudgets", pdb)
    with pytest.raises(ApiError) as e:
        s.evict("p1", "a")
    assert (e.value.code, e.value.reason) == (429, "TooManyRequests")
    assert e.value.message == "Cannot evict pod as it would violate the pod's disruption budget."
    why = "The disruption budget w needs 2 healthy pods and has 2 currently"
    assert e.value.details == {"causes": [{"reason": "DisruptionBudget", "message": why}]}
    pdb = s.get("poddisruptionbudgets", "w", "a")
    pdb["status"]["disruptionsAllowed"] = 1
    s.update_status("poddisruptionbudgets", pdb)
    assert s.evict("p1", "a")["status"] == "Success"
    assert s.get_or_none("pods", "p1", "a") is None
    after = s.get("poddisruptionbudgets", "w", "a")["status"]
    assert after["disruptionsAllowed"] == 0 and "p1" in after["disruptedPods"]


def test_views_and_the_node_index_follow_writes_and_share_the_stored_objects() -> None:
    s = _store()
    spec = {"containers": [{"name": "c", "image": "busybox:1.36"}]}
    s.create("pods", {"metadata": {"name": "p", "namespace": "a"}, "spec": spec})
    secrets_before = s.version_of("secrets")
    pods_before = s.version_of("pods")
    assert s.pods_on_node("n1") == []
    pod = s.get("pods", "p", "a")
    pod["spec"]["nodeName"] = "n1"
    s.update("pods", pod, namespace="a")
    assert [p["metadata"]["name"] for p in s.pods_on_node("n1")] == ["p"]
    assert s.version_of("pods") > pods_before and s.version_of("secrets") == secrets_before
    # a view is the stored object itself; items() hands out copies a caller may change
    assert s.view("pods", "a")[0] is s.raw_get(s._rt("pods"), "p", "a")
    copy_ = s.items("pods", "a")[0]
    copy_["metadata"]["labels"] = {"changed": "here"}
    assert "labels" not in s.view("pods", "a")[0]["metadata"]
    assert s.view("pods", "default") == []
    deleted_at = s.version_of("pods")
    s.delete("pods", "p", "a", grace_period_seconds=0)
    assert s.pods_on_node("n1") == [] and s.version_of("pods") > deleted_at
