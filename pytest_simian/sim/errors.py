"""API errors as the real API server words them, and the Status bodies that carry them.

Why: kubectl prints ``Error from server (<reason>): <message>`` straight from the Status body, and the Python
client raises on its code, so reasons, codes and messages must be the apiserver's own
(k8s.io/apimachinery/pkg/api/errors/errors.go). Every layer (store, handlers, auth) raises :class:`ApiError`;
only the HTTP layer turns it into a response.
Must not: know about HTTP transport or aiohttp.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error with a Kubernetes Status body. ``status_body()`` is what goes on the wire."""

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        *,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
        }
        if self.reason:
            body["reason"] = self.reason
        if self.details is not None:
            body["details"] = self.details
        body["code"] = self.code
        return body


def _details(name: str, group: str, kind: str) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if name:
        d["name"] = name
    if group:
        d["group"] = group
    d["kind"] = kind
    return d


def qualified(plural: str, group: str) -> str:
    return f"{plural}.{group}" if group else plural


def not_found(plural: str, group: str, name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{qualified(plural, group)} "{name}" not found',
                    details=_details(name, group, plural))


def already_exists(plural: str, group: str, name: str) -> ApiError:
    return ApiError(409, "AlreadyExists", f'{qualified(plural, group)} "{name}" already exists',
                    details=_details(name, group, plural))


def conflict(plural: str, group: str, name: str, why: str) -> ApiError:
    return ApiError(409, "Conflict",
                    f'Operation cannot be fulfilled on {qualified(plural, group)} "{name}": {why}',
                    details=_details(name, group, plural))


MODIFIED = "the object has been modified; please apply your changes to the latest version and try again"


def invalid(kind: str, group: str, name: str, causes: list[tuple[str, str, str]]) -> ApiError:
    """``causes`` are ``(field, type, message)`` with ``type`` like ``FieldValueRequired`` and message the
    full ``Required value: ...`` text."""
    msgs = [f"{f}: {m}" for f, _, m in causes]
    joined = msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"
    details = _details(name, group, kind)
    details["causes"] = [{"reason": t, "message": m, "field": f} for f, t, m in causes]
    kind_q = f"{kind}.{group}" if group else kind
    return ApiError(422, "Invalid", f'{kind_q} "{name}" is invalid: {joined}', details=details)


def forbidden(plural: str, group: str, name: str, why: str) -> ApiError:
    q = qualified(plural, group)
    msg = f'{q} "{name}" is forbidden: {why}' if name else f"{q} is forbidden: {why}"
    return ApiError(403, "Forbidden", msg, details=_details(name, group, plural))


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def method_not_supported(plural: str, group: str, action: str) -> ApiError:
    return ApiError(405, "MethodNotAllowed", f"{action} is not supported on resources of kind "
                    f'"{qualified(plural, group)}"', details=_details("", group, plural))


def expired(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


def unsupported_media_type(accepted: list[str]) -> ApiError:
    """apimachinery NewUnsupportedMediaTypeError: the accepted types, not the one sent."""
    return ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media "
                    "types include: " + ", ".join(accepted))


BODY_TYPES = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"]
PATCH_BODY_TYPES = ["application/json-patch+json", "application/merge-patch+json",
                    "application/strategic-merge-patch+json", "application/apply-patch+yaml"]


def resource_not_found() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource", details={})


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized", "Unauthorized")


def internal(message: str) -> ApiError:
    return ApiError(500, "InternalError", f"Internal error occurred: {message}",
                    details={"causes": [{"message": message}]})
