"""The failure-family vocabulary the hallucination measure charges against.

Why: `hallucinated_fault` charges only claims of a concrete failure mode the fault kinds can inject,
looked up by exact normalized token. The table is ported from the upstream agent rig (exclusions
included) so numbers compare; it is versioned and the version is recorded in every run.
Must not: do substring matching (a bare family member must not annex every longer token), or I/O.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field


def normalize(token: str) -> str:
    """Upstream's normalization: trim, delete every `_`, `-` and space, lowercase."""
    return token.strip().replace("_", "").replace("-", "").replace(" ", "").lower()


@dataclass(frozen=True)
class Vocabulary:
    """A named, versioned family table plus the generic reasons that never name a family."""

    name: str
    version: str
    families: Mapping[str, tuple[str, ...]]
    generic: frozenset[str]
    _lookup: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for family, tokens in self.families.items():
            for token in tokens:
                key = normalize(token)
                if key in self._lookup and self._lookup[key] != family:
                    raise ValueError(f"token {token!r} is in two families")
                self._lookup[key] = family

    def family_of(self, token: str) -> str | None:
        """The family a reason token asserts, or None (generic, unknown or empty)."""
        key = normalize(token)
        if not key or key in self.generic:
            return None
        return self._lookup.get(key)

    @property
    def tokens(self) -> list[str]:
        return [t for tokens in self.families.values() for t in tokens]

    @property
    def digest(self) -> str:
        body = json.dumps({"families": {k: list(v) for k, v in self.families.items()},
                           "generic": sorted(self.generic)}, sort_keys=True)
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def identity(self) -> dict[str, str]:
        """What run.json records about the vocabulary a run was scored with."""
        return {"name": self.name, "version": self.version, "digest": self.digest}


UPSTREAM = Vocabulary(
    name="upstream",
    version="1",
    families={
        "image-pull": ("ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ImagePullError"),
        "crash-loop": ("CrashLoopBackOff", "CrashLooping"),
        "oom": ("OOMKilled", "OutOfMemory", "MemoryLimitExceeded"),
        "resource-pressure": ("InsufficientCPU", "InsufficientMemory", "InsufficientResources"),
        "job-failed": ("BackoffLimitExceeded", "JobFailed"),
        "no-endpoints": ("NoEndpoints", "SelectorMismatch", "NoMatchingPods", "EmptyEndpoints",
                         "ServiceHasNoEndpoints"),
        "node-down": ("NodeNotReady", "NodeUnreachable"),
        "disk": ("DiskPressure", "Evicted", "VolumeMountFailed", "FailedMount"),
        "volume-binding": ("Unbound", "UnboundImmediatePersistentVolumeClaims", "VolumeBindingFailed",
                           "ProvisioningFailed", "StorageClassNotFound", "NoStorageClass",
                           "MissingStorageClass"),
    },
    generic=frozenset({"pending", "failed", "error", "unhealthy", "failedscheduling", "unschedulable"}),
)
"""The upstream agent rig's table (upstream-scoring.md §5.2). Parity is always scored with it."""

VOCABULARIES: dict[str, Vocabulary] = {UPSTREAM.name: UPSTREAM}


def get_vocabulary(name: str) -> Vocabulary:
    try:
        return VOCABULARIES[name]
    except KeyError:
        raise KeyError(f"unknown family vocabulary {name!r} (known: {', '.join(sorted(VOCABULARIES))})") from None
