"""The aiohttp application: authentication, the request log and error mapping around :class:`handlers.Api`.

Why: every request, whatever its path, must be authenticated, drained (an unread protobuf body on a
keep-alive connection is parsed as the next request), answered with a Status body on error, and written to
the request log exactly once. Doing it in one wrapper keeps handlers free of that plumbing.
Must not: make authorization decisions (handlers ask ``auth.allowed``) or touch the store.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from . import errors
from .auth import Authenticator, Identity
from .handlers import WARNINGS_KEY, Api, error_response
from .requestlog import RequestLog
from .store import Store

log = logging.getLogger(__name__)

#: Paths an unauthenticated client may read, as kube-apiserver's system:public-info-viewer allows.
PUBLIC_PATHS = ("/version", "/healthz", "/livez", "/readyz")
STORE_KEY = web.AppKey("store", Store)
API_KEY = web.AppKey("api", Api)
ANONYMOUS = Identity("system:anonymous", ("system:unauthenticated",), label="anonymous")


def make_app(store: Store, authenticator: Authenticator, *, request_log: RequestLog | None = None,
             server_address: str = "127.0.0.1:6443", bookmark_interval: float = 60.0) -> web.Application:
    api = Api(store, authenticator, server_address=server_address, bookmark_interval=bookmark_interval)
    rlog = request_log or RequestLog(None)

    async def handle(request: web.Request) -> web.StreamResponse:
        started = time.monotonic()
        record: dict[str, Any] = {
            "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
            "identity": "",
            "user": "",
            "method": request.method,
            "path": request.path,
            "query": request.query_string,
            "user_agent": request.headers.get("User-Agent", ""),
            "kubectl_command": request.headers.get("Kubectl-Command", ""),
            "kubectl_session": request.headers.get("Kubectl-Session", ""),
        }
        status = 500
        try:
            body = await request.read()  # always drain the body first
            identity = authenticator.authenticate(request.headers.get("Authorization"))
            if identity is None:
                if request.headers.get("Authorization") or request.path not in PUBLIC_PATHS:
                    raise errors.unauthorized()
                identity = ANONYMOUS
            record["identity"] = identity.label or identity.user
            record["user"] = identity.user
            resp = await api.handle(request, identity, body, record)
            if not resp.prepared:
                for w in request.get(WARNINGS_KEY, ()):
                    resp.headers.add("Warning", '299 - "' + w.replace('"', '\\"') + '"')
            status = resp.status
            return resp
        except errors.ApiError as e:
            status = e.code
            return error_response(e)
        except web.HTTPException:
            raise
        except ConnectionResetError:  # the client left mid-response; nothing to answer
            status = 499
            raise
        except Exception as e:  # an unexpected bug is a 500 Status, never a dropped connection
            log.exception("internal error on %s %s", request.method, request.path)
            err = errors.internal(f"{type(e).__name__}: {e}")
            status = err.code
            return error_response(err)
        finally:
            record["status"] = status
            record["duration_ms"] = round((time.monotonic() - started) * 1000, 2)
            rlog.write(record)

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", handle)
    app[STORE_KEY] = store
    app[API_KEY] = api

    async def on_startup(_: web.Application) -> None:
        await store.start_controllers()

    async def on_cleanup(_: web.Application) -> None:
        await store.stop_controllers()
        rlog.close()

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    return app
