"""Authentication (bearer token -> identity) and authorization (who may do what) for the embedded cluster.

Why: a subject must meet the same walls it would meet on a real cluster with a read-only credential: writes,
``pods/exec``, ``pods/attach``, ``pods/portforward`` and ``pods/eviction`` are refused with the RBAC
authorizer's exact words, and SelfSubjectAccessReview (``kubectl auth can-i``) tells the truth because it
asks the same function the request path asks.
Must not: log or print tokens; grant anything by default (an unknown token is 401).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from .resources import READ_VERBS

#: Subresources a read-only identity may not reach even with a read verb (they open a shell or a socket).
DENIED_SUBRESOURCES = frozenset({"exec", "attach", "portforward", "eviction", "proxy"})


@dataclass(frozen=True)
class Identity:
    user: str
    groups: tuple[str, ...] = ("system:authenticated",)
    admin: bool = False
    label: str = ""
    """What the request log records (``harness``, ``subject:<attempt id>``); never shown to the client."""
    uid: str = ""
    extra: dict[str, list[str]] = field(default_factory=dict)


HARNESS = Identity("kubernetes-admin", ("kubeadm:cluster-admins", "system:authenticated"), admin=True,
                   label="harness")


class Authenticator:
    """Token table. Tokens are random 43-character strings."""

    def __init__(self) -> None:
        self._tokens: dict[str, Identity] = {}

    def add(self, token: str, identity: Identity) -> None:
        self._tokens[token] = identity

    def mint(self, identity: Identity) -> str:
        token = secrets.token_urlsafe(32)
        self._tokens[token] = identity
        return token

    def revoke(self, token: str) -> None:
        self._tokens.pop(token, None)

    def authenticate(self, authorization: str | None) -> Identity | None:
        if not authorization or not authorization.lower().startswith("bearer "):
            return None
        return self._tokens.get(authorization[7:].strip())


def allowed(identity: Identity, verb: str, group: str, resource: str, subresource: str = "") -> bool:
    """The one authorization decision. Admins may do anything; everyone else reads (get, list, watch) and may
    create the self-reviews every authenticated user may create."""
    if identity.admin:
        return True
    if resource in ("selfsubjectaccessreviews", "selfsubjectrulesreviews", "selfsubjectreviews") and \
            verb == "create":
        return True
    if subresource in DENIED_SUBRESOURCES:
        return False
    return verb in READ_VERBS


def forbidden_reason(identity: Identity, verb: str, group: str, resource: str, subresource: str,
                     namespace: str) -> str:
    """The RBAC authorizer's sentence (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters
    forbiddenMessage)."""
    res = f"{resource}/{subresource}" if subresource else resource
    if namespace:
        return (f'User "{identity.user}" cannot {verb} resource "{res}" in API group "{group}" in the namespace '
                f'"{namespace}"')
    return f'User "{identity.user}" cannot {verb} resource "{res}" in API group "{group}" at the cluster scope'


def non_resource_forbidden(identity: Identity, verb: str, path: str) -> str:
    return f'User "{identity.user}" cannot {verb} path "{path}"'


def rules(identity: Identity) -> tuple[list[dict[str, list[str]]], list[dict[str, list[str]]]]:
    """(resourceRules, nonResourceRules) for SelfSubjectRulesReview."""
    self_reviews = {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
                    "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]}
    whoami = {"verbs": ["create"], "apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"]}
    if identity.admin:
        return ([self_reviews, whoami, {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                [{"verbs": ["*"], "nonResourceURLs": ["*"]}])
    return ([self_reviews, whoami, {"verbs": list(READ_VERBS), "apiGroups": ["*"], "resources": ["*"]}],
            [{"verbs": ["get"], "nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                                    "/openapi", "/openapi/*", "/readyz", "/version", "/version/"]}])
