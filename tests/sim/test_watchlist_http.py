"""HTTP-level exchanges as client-go speaks them: the WatchList protocol (sendInitialEvents with
resourceVersionMatch=NotOlderThan and the k8s.io/initial-events-end bookmark), 410 as an ERROR event,
undrained protobuf bodies on a keep-alive connection, aggregated discovery's content type, Status bodies."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from pytest_simian.sim.app import make_app
from pytest_simian.sim.auth import HARNESS, Authenticator, Identity
from pytest_simian.sim.bootstrap import seed
from pytest_simian.sim.clock import VirtualClock
from pytest_simian.sim.store import Store

ADMIN = {"Authorization": "Bearer admin-token"}
READER = {"Authorization": "Bearer reader-token"}


def run(test: Callable[[TestClient, Store], Awaitable[None]]) -> None:
    async def main() -> None:
        store = Store(VirtualClock())
        seed(store)
        auth = Authenticator()
        auth.add("admin-token", HARNESS)
        auth.add("reader-token", Identity("reader", label="subject:t"))
        app = make_app(store, auth, bookmark_interval=0.2)
        async with TestClient(TestServer(app)) as client:
            await test(client, store)

    asyncio.run(main())


async def _lines(resp: Any, n: int) -> list[dict[str, Any]]:
    out = []
    while len(out) < n:
        line = await asyncio.wait_for(resp.content.readline(), 5)
        if not line:
            break
        out.append(json.loads(line))
    return out


def test_watch_list_exchange() -> None:
    async def t(client: TestClient, store: Store) -> None:
        for i in range(3):
            store.create("configmaps", {"metadata": {"name": f"c{i}", "namespace": "default"}})
        resp = await client.get("/api/v1/namespaces/default/configmaps", params={
            "watch": "1", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan",
            "allowWatchBookmarks": "true", "resourceVersion": "", "timeoutSeconds": "3"}, headers=ADMIN)
        assert resp.status == 200 and resp.headers["Content-Type"] == "application/json"
        evs = await _lines(resp, 5)
        assert [e["type"] for e in evs] == ["ADDED"] * 4 + ["BOOKMARK"]
        assert sorted(e["object"]["metadata"]["name"] for e in evs[:4]) == ["c0", "c1", "c2", "kube-root-ca.crt"]
        bm = evs[4]["object"]
        assert bm["kind"] == "ConfigMap" and bm["apiVersion"] == "v1"
        assert bm["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
        assert int(bm["metadata"]["resourceVersion"]) >= max(int(e["object"]["metadata"]["resourceVersion"])
                                                             for e in evs[:4])
        store.create("configmaps", {"metadata": {"name": "live", "namespace": "default"}})
        (ev,) = await _lines(resp, 1)
        assert (ev["type"], ev["object"]["metadata"]["name"]) == ("ADDED", "live")
        (ev,) = await _lines(resp, 1)  # an idle watch with bookmarks allowed gets a progress bookmark
        assert ev["type"] == "BOOKMARK" and "annotations" not in ev["object"]["metadata"]
        resp.close()

    run(t)


def test_send_initial_events_requires_not_older_than() -> None:
    async def t(client: TestClient, store: Store) -> None:
        resp = await client.get("/api/v1/namespaces/default/configmaps", params={
            "watch": "1", "sendInitialEvents": "true"}, headers=ADMIN)
        assert resp.status == 422
        body = await resp.json()
        assert body["reason"] == "Invalid"

    run(t)


def test_too_old_resource_version_is_an_error_event() -> None:
    async def t(client: TestClient, store: Store) -> None:
        store._history_floor = 50
        store.resource_version = 100
        resp = await client.get("/api/v1/namespaces/default/pods",
                                params={"watch": "true", "resourceVersion": "7"}, headers=ADMIN)
        assert resp.status == 200
        (ev,) = await _lines(resp, 1)
        assert ev == {"type": "ERROR", "object": {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "too old resource version: 7 (51)", "reason": "Expired", "code": 410}}

    run(t)


def test_error_before_reading_a_body_keeps_the_connection_usable() -> None:
    async def t(client: TestClient, store: Store) -> None:
        body = b"k8s\x00" + b"\x0a\x05junk!" * 200
        r1 = await client.post("/api/v1/namespaces/default/pods", data=body, headers={
            **READER, "Content-Type": "application/vnd.kubernetes.protobuf"})
        assert r1.status == 403
        r2 = await client.get("/version", headers=READER)
        assert r2.status == 200 and (await r2.json())["gitVersion"] == "v1.36.0"

    run(t)


def test_aggregated_discovery_content_type_and_legacy_fallback() -> None:
    async def t(client: TestClient, store: Store) -> None:
        agg = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
        r = await client.get("/apis", headers={**ADMIN, "Accept": agg})
        assert r.headers["Content-Type"] == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
        doc = json.loads(await r.text())
        apps = next(i for i in doc["items"] if i["metadata"]["name"] == "apps")
        dep = next(x for x in apps["versions"][0]["resources"] if x["resource"] == "deployments")
        assert {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                "verbs": ["get", "patch", "update"]} in dep["subresources"]
        r = await client.get("/apis", headers=ADMIN)
        assert (await r.json())["kind"] == "APIGroupList"
        r = await client.get("/apis/apps/v1", headers=ADMIN)
        names = [x["name"] for x in (await r.json())["resources"]]
        assert "deployments/scale" in names and "deployments/status" in names

    run(t)


def test_status_bodies_and_unauthenticated() -> None:
    async def t(client: TestClient, store: Store) -> None:
        r = await client.get("/apis/apps/v1/namespaces/default/deployments/nope", headers=ADMIN)
        assert r.status == 404
        assert await r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                  "message": 'deployments.apps "nope" not found', "reason": "NotFound",
                                  "details": {"name": "nope", "group": "apps", "kind": "deployments"},
                                  "code": 404}
        r = await client.get("/api/v1/pods")
        assert r.status == 401 and (await r.json())["reason"] == "Unauthorized"
        r = await client.get("/api/v1/nothings", headers=ADMIN)
        assert r.status == 404
        assert (await r.json())["message"] == "the server could not find the requested resource"
        r = await client.get("/not-an-api", headers=ADMIN)
        assert r.status == 404 and await r.text() == "404 page not found\n"
        r = await client.get("/api/v1/namespaces/default/pods", headers={
            **READER, "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
        assert (await r.json())["kind"] == "Table"

    run(t)


def test_table_watch_sends_one_row_tables() -> None:
    async def t(client: TestClient, store: Store) -> None:
        store.create("configmaps", {"metadata": {"name": "t1", "namespace": "default"}, "data": {"a": "b"}})
        resp = await client.get("/api/v1/namespaces/default/configmaps", params={"watch": "true"}, headers={
            **ADMIN, "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
        evs = await _lines(resp, 2)
        assert {e["type"] for e in evs} == {"ADDED"}
        for e in evs:
            assert e["object"]["kind"] == "Table" and len(e["object"]["rows"]) == 1
            assert e["object"]["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
        names = sorted(e["object"]["rows"][0]["cells"][0] for e in evs)
        assert names == ["kube-root-ca.crt", "t1"]
        resp.close()

    run(t)


def test_request_log_records_identity_and_resource_fields(tmp_path: Any) -> None:
    from pytest_simian.sim.requestlog import RequestLog

    async def main() -> None:
        store = Store(VirtualClock())
        seed(store)
        auth = Authenticator()
        auth.add("reader-token", Identity("reader", label="subject:t"))
        app = make_app(store, auth, request_log=RequestLog(tmp_path / "r.jsonl"))
        async with TestClient(TestServer(app)) as client:
            await client.get("/api/v1/namespaces/default/pods?limit=500", headers={
                **READER, "User-Agent": "kubectl/v1.36.4", "Kubectl-Command": "kubectl get"})
            await client.delete("/api/v1/namespaces/default/configmaps/kube-root-ca.crt", headers=READER)

    asyncio.run(main())
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert lines[0] == {**lines[0], "v": 1, "identity": "subject:t", "user": "reader", "method": "GET",
                        "path": "/api/v1/namespaces/default/pods", "query": "limit=500",
                        "user_agent": "kubectl/v1.36.4", "kubectl_command": "kubectl get", "verb": "list",
                        "resource": "pods", "group": "", "namespace": "default", "name": "", "status": 200}
    assert (lines[1]["verb"], lines[1]["name"], lines[1]["status"]) == ("delete", "kube-root-ca.crt", 403)
    assert set(lines[0]) == {"v", "time", "identity", "user", "method", "path", "query", "user_agent",
                             "kubectl_command", "kubectl_session", "status", "duration_ms", "verb", "resource",
                             "group", "namespace", "name", "subresource"}


def test_partial_object_metadata_for_the_metadata_client() -> None:
    async def t(client: TestClient, store: Store) -> None:
        accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
        r = await client.get("/api/v1/namespaces/default/configmaps", headers={**ADMIN, "Accept": accept})
        doc = await r.json()
        assert doc["kind"] == "PartialObjectMetadataList" and doc["apiVersion"] == "meta.k8s.io/v1"
        assert [i["metadata"]["name"] for i in doc["items"]] == ["kube-root-ca.crt"]
        assert set(doc["items"][0]) == {"kind", "apiVersion", "metadata"}
        r = await client.get("/api/v1/namespaces/default/configmaps/kube-root-ca.crt", headers={
            **ADMIN, "Accept": "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"})
        assert (await r.json())["kind"] == "PartialObjectMetadata"

    run(t)
