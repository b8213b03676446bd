"""The pack format: Pack, Scenario, FaultSpec, ProbeSpec and ExpectedFinding as pydantic v2 models.

Why: a scenario is the unit of ground truth. Its models are strict (`extra="forbid"`, frozen) so a
typo in a pack is a load error that names the field, never a silently ignored key, and the exported
JSON Schema documents the format in editors. Field names follow the Go Simian's Scenario,
FaultManifest and ExpectedFinding where they fit.
Must not: import pytest or kubernetes, read files (see loader.py), or know how a fault is applied.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from pytest_simian.pack.durations import parse_duration
from pytest_simian.scoring.vocabulary import get_vocabulary

SEVERITIES = ("ok", "info", "warning", "critical")
"""Report-level severities, lowest first (upstream's exact lowercase vocabulary)."""

DEFAULT_ENGINE = "kube-state"
"""The engine a fault names when it names none. Which engines and kinds exist is not this module's to
say: the registered engines' catalogue is passed into validation (`Catalog.context()`)."""

KNOWN_TIERS = ("namespace", "node", "external")
KNOWN_MODES = ("synthesize", "mutate")
PROBE_TYPES = ("k8s", "logs", "http")
PROBE_MODES_IMPLEMENTED = ("Settle",)
PROBE_MODES_KNOWN = ("Settle", "SOT", "EOT", "Edge", "Continuous", "OnChaos")

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SCENARIO_ID = re.compile(r"^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$")


def _duration(value: Any) -> str:
    parse_duration(value)
    return str(value)


Duration = Annotated[str, BeforeValidator(_duration)]
"""A Go-style duration string such as `30s`, `5m` or `1h30m`."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


def _check_mode(value: str) -> str:
    if value in PROBE_MODES_IMPLEMENTED:
        return value
    if value in PROBE_MODES_KNOWN:
        raise ValueError(f"probe mode {value!r} is not implemented; only Settle probes gate a fault")
    raise ValueError(f"unknown probe mode {value!r} (known: {', '.join(PROBE_MODES_KNOWN)})")


class _Probe(_Model):
    name: str = Field(min_length=1)
    """What the probe waits for, in words: `pods report an image pull failure`."""
    mode: str = "Settle"
    """When the probe runs. Only `Settle` is implemented: it gates the fault."""

    @field_validator("mode")
    @classmethod
    def _mode(cls, v: str) -> str:
        return _check_mode(v)


class K8sProbe(_Probe):
    """The shape of a `kubectl get`: resource, optional name, namespace, label selector, and a
    kubectl-style JSONPath template whose output must contain, equal, or be empty."""

    type: Literal["k8s"]
    resource: str = Field(min_length=1)
    """Resource as kubectl names it: `pods`, `deployment`, `endpointslices`, `jobs.batch`."""
    name: str = Field(min_length=1)
    object_name: str | None = Field(default=None, alias="object")
    """One object's name (like `kubectl get job nightly-report`); omit to list."""
    namespace: str | None = None
    """Namespace to look in; defaults to the fault's namespace."""
    selector: str | None = None
    """Label selector, as `-l` takes it."""
    jsonpath: str = Field(min_length=1)
    """kubectl JSONPath template, e.g. `{.items[*].status.phase}`."""
    contains: str | None = None
    """Passes when the rendered output contains this (case-sensitive)."""
    equals: str | None = None
    """Passes when the rendered output, trimmed, equals this."""
    empty: bool | None = None
    """Passes when the rendered output is empty after trimming, and the objects it lists exist."""

    @model_validator(mode="after")
    def _one_expectation(self) -> K8sProbe:
        given = [k for k in ("contains", "equals") if getattr(self, k) is not None]
        if self.empty:
            given.append("empty")
        if len(given) != 1:
            raise ValueError("a k8s probe needs exactly one of contains, equals or empty: true")
        return self


class LogsProbe(_Probe):
    """A pattern in a container's current or previous log."""

    type: Literal["logs"]
    namespace: str | None = None
    """Namespace; defaults to the fault's."""
    pod: str | None = None
    """Pod name, or a name prefix (`checkout-api` matches `checkout-api-7d9f…`)."""
    selector: str | None = None
    """Label selector picking the pods (alternative to `pod`)."""
    container: str | None = None
    previous: bool = False
    """Read the previous container instance's log (`kubectl logs --previous`)."""
    since: Duration | None = None
    contains: str | None = None
    """Substring to find."""
    regex: str | None = None
    """Regular expression to search for."""

    @model_validator(mode="after")
    def _pattern(self) -> LogsProbe:
        if (self.contains is None) == (self.regex is None):
            raise ValueError("a logs probe needs exactly one of contains or regex")
        if (self.pod is None) == (self.selector is None):
            raise ValueError("a logs probe needs exactly one of pod or selector")
        if self.regex is not None:
            try:
                re.compile(self.regex)
            except re.error as exc:
                raise ValueError(f"regex does not compile: {exc}") from exc
        return self


class HttpProbe(_Probe):
    """A request from where the harness runs, with an expected status or latency bound."""

    type: Literal["http"]
    url: str = Field(min_length=1)
    method: str = "GET"
    expect_status: int | None = None
    min_latency: Duration | None = None
    """Passes when the response takes at least this long (a latency fault landed)."""
    max_latency: Duration | None = None

    @model_validator(mode="after")
    def _something(self) -> HttpProbe:
        if self.expect_status is None and self.min_latency is None and self.max_latency is None:
            raise ValueError("an http probe needs expect_status, min_latency or max_latency")
        return self


def _probe_type_first(value: Any) -> Any:
    if isinstance(value, dict):
        t = value.get("type")
        if t == "cmd":
            raise ValueError("probe type 'cmd' is deliberately not implemented: a probe that runs a "
                             "command on the harness host is a back door; use k8s, logs or http")
        if t not in PROBE_TYPES:
            raise ValueError(f"unknown probe type {t!r} (known: {', '.join(PROBE_TYPES)})")
    return value


ProbeSpec = Annotated[
    Annotated[K8sProbe | LogsProbe | HttpProbe, Field(discriminator="type")],
    BeforeValidator(_probe_type_first),
]
"""A Settle probe: proof that a fault landed. Typed by `type`."""


class FaultSpec(_Model):
    """One fault, in the shape of the Go Simian's FaultManifest."""

    kind: str = Field(min_length=1)
    """Fault kind within the engine (kube-state: ContainerExitLoop, NoOp, Manifests, ...)."""
    namespace: str
    """The namespace the fault's bundle lives in; the scenario holds it exclusively."""
    engine: str = DEFAULT_ENGINE
    """The engine that renders the fault; an engine no installed plugin provides is refused at load."""
    mode: str = "synthesize"
    """`synthesize` applies a born-broken bundle; `mutate` (not yet implemented) patches a workload."""
    tier: str = "namespace"
    """Blast-radius tier: namespace, node or external."""
    duration: Duration = "30m"
    """Lease: the fault is cleared by the reaper after this long, whatever happens to the runner."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Kind-specific parameters (workload name, image, command, resources, ...)."""
    manifests: list[dict[str, Any]] | None = None
    """For kind `Manifests`: the user's own born-broken objects."""
    probes: list[ProbeSpec] = Field(default_factory=list)
    """Settle probes, checked in order under the scenario's one deadline. Kinds add defaults."""

    @field_validator("namespace")
    @classmethod
    def _ns(cls, v: str) -> str:
        if not _NAME.match(v) or len(v) > 63:
            raise ValueError(f"{v!r} is not a valid namespace name")
        return v

    @field_validator("engine")
    @classmethod
    def _engine(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError(f"{v!r} is not a valid engine name")
        return v

    @field_validator("mode")
    @classmethod
    def _mode(cls, v: str) -> str:
        if v not in KNOWN_MODES:
            raise ValueError(f"unknown mode {v!r} (known: {', '.join(KNOWN_MODES)})")
        return v

    @field_validator("tier")
    @classmethod
    def _tier(cls, v: str) -> str:
        if v not in KNOWN_TIERS:
            raise ValueError(f"unknown tier {v!r} (known: {', '.join(KNOWN_TIERS)})")
        return v

    @field_validator("duration")
    @classmethod
    def _positive(cls, v: str) -> str:
        if parse_duration(v) <= 0:
            raise ValueError("duration must be above zero")
        return v

    @model_validator(mode="after")
    def _kind(self, info: ValidationInfo) -> FaultSpec:
        """Engine and kind against the registered engines' catalogue, when validation is given one."""
        catalog = (info.context or {}).get("catalog") if info is not None else None
        if catalog is None:
            return self
        if self.engine not in catalog.engines():
            raise ValueError(f"unknown engine {self.engine!r} (installed: {', '.join(catalog.engines()) or 'none'})")
        kind = catalog.kind(self.engine, self.kind)
        if kind is None:
            known = ", ".join(k.name for k in catalog.kinds(self.engine))
            raise ValueError(f"unknown {self.engine} kind {self.kind!r} (known: {known})")
        if kind.takes_manifests and not self.manifests:
            raise ValueError(f"kind {self.kind} needs a non-empty `manifests` list")
        if not kind.takes_manifests and self.manifests is not None:
            raise ValueError(f"`manifests` is not for kind {self.kind}")
        if kind.needs_probes and not self.probes:
            raise ValueError(f"kind {self.kind} needs its own Settle probes: nothing else can prove that its "
                             "objects landed")
        return self

    @property
    def duration_seconds(self) -> float:
        return parse_duration(self.duration)


class ExpectedFinding(_Model):
    """A finding a correct report must contain: field for field upstream's Want."""

    kind: str = Field(min_length=1)
    """Kubernetes kind, compared case-insensitively."""
    name: str = Field(min_length=1)
    """Object name; a reported name matches when equal or starting with `name-` (case-sensitive)."""
    reasons: list[str] = Field(default_factory=list)
    """Accepted reason tokens, any one suffices (normalized, bidirectional substring). Empty: ungraded."""
    also_accept_kinds: list[str] = Field(default_factory=list)
    """Other kinds accepted in place of `kind` (a Deployment finding for a Pod want)."""
    min_severity: Literal["info", "warning", "critical"] | None = None
    """Least finding severity accepted; null means severity is not graded."""
    root: bool = False
    """Marks a root cause, scored separately by `root_cause`."""
    source: str | None = None
    """Where this expectation came from (upstream fixture, upstream readme, verify step, our reading)."""


class Scenario(_Model):
    """One fault scenario: the faults to inject, the prompt, and the ground truth."""

    id: str
    """Stable id, stamped into every audit event; the join key. Unique across every loaded pack."""
    name: str | None = None
    """Human name; defaults to the id."""
    prompt: str = Field(min_length=1)
    """What the subject is asked. Names the task, never the fault (see the prompt lint)."""
    substrate: str | None = None
    """A registered system under test to stand up first (dataplane scenarios); usually empty."""
    faults: list[FaultSpec] = Field(min_length=1)
    """Every fault needs a passing efficacy record before the subject is asked; a control injects NoOp."""
    expect: list[ExpectedFinding] = Field(default_factory=list)
    """Ground truth. Empty means the scenario is a control."""
    also_true: list[str] = Field(default_factory=list)
    """Reason tokens the fault mechanically produces: they license a claim, add nothing to recall."""
    severity: Literal["ok", "info", "warning", "critical"]
    """The overall severity a correct report gives."""
    settle_timeout: Duration = "5m"
    """One deadline shared by every Settle probe of the scenario, in order."""
    source: str | None = None
    """Provenance, e.g. `pack:parity`; defaults to `pack:<pack name>`."""
    tags: list[str] = Field(default_factory=list)
    """Free labels; each becomes a pytest marker usable with `-m`."""
    divergences: list[str] = Field(default_factory=list)
    """Recorded differences from the upstream fixture this scenario transcribes."""
    notes: str | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not _SCENARIO_ID.match(v):
            raise ValueError(f"{v!r} is not a valid scenario id (lowercase letters, digits, - _ .)")
        return v

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str]) -> list[str]:
        for tag in v:
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", tag):
                raise ValueError(f"tag {tag!r} must be a valid Python identifier (it becomes a marker)")
        return v

    @model_validator(mode="after")
    def _control_rules(self) -> Scenario:
        if self.is_control:
            if self.severity != "ok":
                raise ValueError("a control (expect: []) must have severity ok")
            if self.also_true:
                raise ValueError("a control (expect: []) may not carry also_true: an exemption on the "
                                 "scenario that measures invention would disarm the measure")
        return self

    @property
    def is_control(self) -> bool:
        return not self.expect

    @property
    def display_name(self) -> str:
        return self.name or self.id

    @property
    def settle_seconds(self) -> float:
        return parse_duration(self.settle_timeout)

    def check_also_true(self, vocabulary_name: str) -> None:
        """Every also_true entry must name a failure family, or the exemption silently misses."""
        vocab = get_vocabulary(vocabulary_name)
        for token in self.also_true:
            if vocab.family_of(token) is None:
                raise ValueError(f"also_true entry {token!r} names no failure family in vocabulary "
                                 f"{vocabulary_name!r}, so it would license nothing")


class Pack(_Model):
    """A named set of scenarios scored with one family vocabulary."""

    name: str
    description: str = ""
    vocabulary: str = "upstream"
    """Family vocabulary the hallucination measure uses (see scoring/vocabulary.py)."""
    scenarios: list[Scenario] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError(f"{v!r} is not a valid pack name (lowercase letters, digits, -)")
        return v

    @field_validator("vocabulary")
    @classmethod
    def _vocab(cls, v: str) -> str:
        get_vocabulary(v)
        return v


class PackHeader(_Model):
    """`pack.yaml` in a pack directory: the pack's fields without its scenarios."""

    name: str
    description: str = ""
    vocabulary: str = "upstream"
