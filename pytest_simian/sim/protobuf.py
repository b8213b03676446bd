"""Decode Kubernetes protobuf request bodies into the dicts a JSON client would have sent.

Why this exists: kubectl >= 1.32 sends the bodies of its typed-client writes (``create namespace``,
``create configmap|secret|deployment|job``, ``auth can-i``, ``auth whoami``, ``create token``, …) as
``Content-Type: application/vnd.kubernetes.protobuf`` and does not retry with JSON after a 415. The
embedded API server keeps every object as a JSON-shaped dict, so it needs exactly one thing: turn such a
body into the dict that ``kubectl … -o json`` would have shown for the same object.

Wire format: ``b"k8s\\x00"`` followed by a ``runtime.Unknown`` message (``typeMeta{apiVersion, kind}``,
``raw``, ``contentEncoding``, ``contentType``) whose ``raw`` is the protobuf encoding of the object, e.g.
``k8s.io.api.core.v1.Namespace``.

Choice made: a small table-driven wire-format decoder over the upstream ``generated.proto`` files, which
are vendored (comments stripped, declarations and ``// +optional`` markers verbatim) under
``data/proto/`` and parsed with regular expressions at first use. Alternatives that were rejected:

- a PyPI package with generated Kubernetes protobuf code: the only one (``k8s-proto`` 0.0.3) dates from
  2019 and lacks years of fields; none is current and maintained;
- the ``protobuf`` package's descriptor machinery: building descriptors from ``.proto`` text needs
  ``protoc`` (or a parser of our own anyway), adds a compiled dependency, and still leaves all of the
  Kubernetes JSON conventions below to write by hand.

The decoder applies the Kubernetes JSON conventions: ``Time`` → RFC 3339 seconds (``null`` when zero),
``MicroTime`` → RFC 3339 with microseconds, ``Duration`` → Go duration string, ``Quantity`` → string,
``IntOrString`` → int or string, ``RawExtension`` → the embedded JSON, ``FieldsV1`` → JSON object,
``bytes`` → base64, maps, single-``items`` wrappers (``ExtraValue``, ``Verbs``) → lists, and Go's
``json:",inline"`` embeddings (``Volume.volumeSource``, ``Probe.handler``, ``localObjectReference``, …)
flattened into their parent.

Zero values: Go writes every non-pointer field, so a body carries ``generateName: ""``,
``generation: 0``, ``stdin: false`` and the like, which JSON (``omitempty``) would have left out. A scalar
zero is dropped when the field carries ``+optional`` upstream, unless the Go field is a pointer (listed in
``_POINTER_FIELDS``), where an explicit ``0``/``false``/``""`` means something (``replicas: 0``,
``automountServiceAccountToken: false``, ``storageClassName: ""``). Zero ``Time``s of ``+optional`` fields
are dropped too (kubectl 1.36 no longer prints ``"creationTimestamp": null``); empty non-pointer structs
(``"status": {}``) are kept, as Go's JSON encoder writes them. The recorded kubectl bodies decode to
exactly what ``kubectl create … --dry-run=client -o json`` prints. What remains noisier than JSON: zero
values of required (non-``+optional``) scalars, which JSON without ``omitempty`` shows too, and of
pointer fields the table does not know (kept, never dropped: a kept zero only costs noise, a dropped one
would change meaning); nil slices that JSON prints as ``null`` are simply absent.

What it must not do: guess. Malformed input, an unknown ``apiVersion``/``kind``, a wire type that does
not match the declared field type, or an unsupported ``contentEncoding`` raise
:class:`ProtobufDecodeError` (a ``ValueError``) with a message fit for a 400/415 answer; field numbers
the vendored files do not know are skipped (a newer client may add fields). It never fetches anything,
and the server need not answer in protobuf (every client accepts JSON); :func:`encode_body`, the inverse,
exists for tests and round trips.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import re
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "PROTOBUF_CONTENT_TYPE",
    "ProtobufDecodeError",
    "decode_body",
    "decode_message",
    "encode_body",
    "is_protobuf_content_type",
    "message_for_kind",
]

PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
MAGIC = b"k8s\x00"

_PROTO_ROOT = Path(__file__).parent / "data" / "proto"
_MAX_DEPTH = 100

_META = "k8s.io.apimachinery.pkg.apis.meta.v1"
_TIME = f"{_META}.Time"
_MICROTIME = f"{_META}.MicroTime"
_TIMESTAMP = f"{_META}.Timestamp"
_DURATION = f"{_META}.Duration"
_FIELDSV1 = f"{_META}.FieldsV1"
_QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity"
_QUANTITY_VALUE = "k8s.io.apimachinery.pkg.api.resource.QuantityValue"
_INTORSTRING = "k8s.io.apimachinery.pkg.util.intstr.IntOrString"
_RAWEXTENSION = "k8s.io.apimachinery.pkg.runtime.RawExtension"
_UNKNOWN = "k8s.io.apimachinery.pkg.runtime.Unknown"

# Fields whose Go struct field is embedded with `json:",inline"`: their message is flattened into the
# parent. Keyed by "<group>.<version>.<Message>" (the part after "k8s.io.api."); "*" matches any message.
_INLINE_FIELDS: dict[str, frozenset[str]] = {
    "*": frozenset({"localObjectReference"}),
    "core.v1.Volume": frozenset({"volumeSource"}),
    "core.v1.PersistentVolumeSpec": frozenset({"persistentVolumeSource"}),
    "core.v1.Probe": frozenset({"handler"}),
    "core.v1.EphemeralContainer": frozenset({"ephemeralContainerCommon"}),
    "networking.v1.IngressRule": frozenset({"ingressRuleValue"}),
}

# Proto field names that differ from the JSON name (go-to-protobuf lower-cased the Go name there).
_JSON_NAMES: dict[str, dict[str, str]] = {
    "authentication.v1.BoundObjectReference": {"uID": "uid"},
    "networking.v1.IngressClassParametersReference": {"aPIGroup": "apiGroup"},
}

# `+optional` fields whose Go type is a pointer: an explicit zero value is meaningful and kept.
_POINTER_FIELDS: dict[str, frozenset[str]] = {
    k: frozenset(v.split())
    for k, v in {
        # meta/v1
        "meta.v1.ObjectMeta": "deletionGracePeriodSeconds",
        "meta.v1.OwnerReference": "controller blockOwnerDeletion",
        "meta.v1.DeleteOptions": (
            "gracePeriodSeconds orphanDependents propagationPolicy ignoreStoreReadErrorWithClusterBreakingPotential"
        ),
        "meta.v1.Preconditions": "uid resourceVersion",
        "meta.v1.ListMeta": "remainingItemCount",
        "meta.v1.ListOptions": "sendInitialEvents",
        # core/v1
        "core.v1.ConfigMap": "immutable",
        "core.v1.Secret": "immutable",
        "core.v1.PodSpec": (
            "terminationGracePeriodSeconds activeDeadlineSeconds automountServiceAccountToken "
            "shareProcessNamespace priority enableServiceLinks preemptionPolicy runtimeClassName "
            "setHostnameAsFQDN hostUsers hostnameOverride"
        ),
        "core.v1.SecurityContext": (
            "privileged runAsUser runAsGroup runAsNonRoot readOnlyRootFilesystem allowPrivilegeEscalation procMount"
        ),
        "core.v1.PodSecurityContext": (
            "runAsUser runAsGroup runAsNonRoot fsGroup fsGroupChangePolicy supplementalGroupsPolicy seLinuxChangePolicy"
        ),
        "core.v1.SeccompProfile": "localhostProfile",
        "core.v1.AppArmorProfile": "localhostProfile",
        "core.v1.WindowsSecurityContextOptions": (
            "gmsaCredentialSpecName gmsaCredentialSpec runAsUserName hostProcess"
        ),
        "core.v1.Container": "restartPolicy",
        "core.v1.EphemeralContainerCommon": "restartPolicy",
        "core.v1.Probe": "terminationGracePeriodSeconds",
        "core.v1.Lifecycle": "stopSignal",
        "core.v1.ConfigMapVolumeSource": "defaultMode optional",
        "core.v1.SecretVolumeSource": "defaultMode optional",
        "core.v1.ProjectedVolumeSource": "defaultMode",
        "core.v1.DownwardAPIVolumeSource": "defaultMode",
        "core.v1.KeyToPath": "mode",
        "core.v1.DownwardAPIVolumeFile": "mode",
        "core.v1.ConfigMapProjection": "optional",
        "core.v1.SecretProjection": "optional",
        "core.v1.ConfigMapKeySelector": "optional",
        "core.v1.SecretKeySelector": "optional",
        "core.v1.ConfigMapEnvSource": "optional",
        "core.v1.SecretEnvSource": "optional",
        "core.v1.FileKeySelector": "optional",
        "core.v1.ServiceAccountTokenProjection": "expirationSeconds",
        "core.v1.ClusterTrustBundleProjection": "name signerName optional",
        "core.v1.PodCertificateProjection": "maxExpirationSeconds",
        "core.v1.HostPathVolumeSource": "type",
        "core.v1.CSIVolumeSource": "readOnly fsType",
        "core.v1.AzureDiskVolumeSource": "cachingMode fsType readOnly kind",
        "core.v1.ISCSIVolumeSource": "initiatorName",
        "core.v1.ISCSIPersistentVolumeSource": "initiatorName",
        "core.v1.PersistentVolumeClaimSpec": "storageClassName volumeMode volumeAttributesClassName",
        "core.v1.PersistentVolumeClaimStatus": "currentVolumeAttributesClassName",
        "core.v1.PersistentVolumeSpec": "volumeMode volumeAttributesClassName",
        "core.v1.TypedLocalObjectReference": "apiGroup",
        "core.v1.TypedObjectReference": "apiGroup namespace",
        "core.v1.ServiceSpec": (
            "ipFamilyPolicy allocateLoadBalancerNodePorts loadBalancerClass internalTrafficPolicy trafficDistribution"
        ),
        "core.v1.ServicePort": "appProtocol",
        "core.v1.EndpointPort": "appProtocol",
        "core.v1.EndpointAddress": "nodeName",
        "core.v1.LoadBalancerIngress": "ipMode",
        "core.v1.ClientIPConfig": "timeoutSeconds",
        "core.v1.Toleration": "tolerationSeconds",
        "core.v1.TopologySpreadConstraint": "minDomains nodeAffinityPolicy nodeTaintsPolicy",
        "core.v1.ServiceAccount": "automountServiceAccountToken",
        "core.v1.ContainerStatus": "started stopSignal",
        "core.v1.PodResourceClaimStatus": "resourceClaimName",
        "core.v1.VolumeMount": "recursiveReadOnly mountPropagation",
        "core.v1.VolumeMountStatus": "recursiveReadOnly",
        "core.v1.PodDNSConfigOption": "value",
        "core.v1.GRPCAction": "service",
        "core.v1.NodeSwapStatus": "capacity",
        "core.v1.NodeFeatures": "supplementalGroupsPolicy containerUlimits",
        "core.v1.NodeRuntimeHandlerFeatures": "recursiveReadOnlyMounts userNamespaces",
        "core.v1.ReplicationControllerSpec": "replicas",
        "core.v1.ResourceHealth": "message",
        # apps/v1
        "apps.v1.DeploymentSpec": "replicas revisionHistoryLimit podReplacementPolicy",
        "apps.v1.DeploymentStatus": "collisionCount terminatingReplicas",
        "apps.v1.ReplicaSetSpec": "replicas",
        "apps.v1.ReplicaSetStatus": "terminatingReplicas",
        "apps.v1.StatefulSetSpec": "replicas",
        "apps.v1.StatefulSetStatus": "collisionCount",
        "apps.v1.DaemonSetSpec": "revisionHistoryLimit",
        "apps.v1.DaemonSetStatus": "collisionCount",
        "apps.v1.RollingUpdateStatefulSetStrategy": "partition",
        # batch/v1
        "batch.v1.JobSpec": (
            "parallelism completions activeDeadlineSeconds backoffLimit backoffLimitPerIndex "
            "maxFailedIndexes manualSelector ttlSecondsAfterFinished completionMode suspend "
            "podReplacementPolicy managedBy"
        ),
        "batch.v1.JobStatus": "terminating",
        "batch.v1.CronJobSpec": (
            "timeZone startingDeadlineSeconds suspend successfulJobsHistoryLimit failedJobsHistoryLimit"
        ),
        "batch.v1.PodFailurePolicyOnExitCodesRequirement": "containerName",
        "batch.v1.SuccessPolicyRule": "succeededIndexes succeededCount",
        # autoscaling/v1
        "autoscaling.v1.HorizontalPodAutoscalerSpec": "minReplicas targetCPUUtilizationPercentage",
        "autoscaling.v1.HorizontalPodAutoscalerStatus": "observedGeneration currentCPUUtilizationPercentage",
        # policy/v1
        "policy.v1.PodDisruptionBudgetSpec": "unhealthyPodEvictionPolicy",
        # discovery/v1
        "discovery.v1.Endpoint": "hostname nodeName zone",
        "discovery.v1.EndpointConditions": "ready serving terminating",
        "discovery.v1.EndpointPort": "appProtocol",
        # networking/v1
        "networking.v1.IngressSpec": "ingressClassName",
        "networking.v1.NetworkPolicyPort": "protocol endPort",
        "networking.v1.IngressClassParametersReference": "aPIGroup scope namespace",
        "networking.v1.IngressPortStatus": "error",
        # storage/v1
        "storage.v1.StorageClass": "reclaimPolicy allowVolumeExpansion volumeBindingMode",
        "storage.v1.VolumeAttachmentSource": "persistentVolumeName",
        "storage.v1.VolumeError": "errorCode",
        # coordination/v1
        "coordination.v1.LeaseSpec": ("holderIdentity leaseDurationSeconds leaseTransitions strategy preferredHolder"),
        # authentication/v1
        "authentication.v1.TokenRequestSpec": "expirationSeconds",
    }.items()
}

_SCALARS = frozenset(
    "double float int32 int64 uint32 uint64 sint32 sint64 fixed32 fixed64 sfixed32 sfixed64 bool string bytes".split()
)
_VARINT_TYPES = frozenset("int32 int64 uint32 uint64 sint32 sint64 bool".split())
_FIXED64_TYPES = frozenset("double fixed64 sfixed64".split())
_FIXED32_TYPES = frozenset("float fixed32 sfixed32".split())


class ProtobufDecodeError(ValueError):
    """The body is not a Kubernetes protobuf message this decoder can turn into JSON."""


# --------------------------------------------------------------------------------------------------
# Schema: parse the vendored .proto files
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Field:
    name: str
    json_name: str
    number: int
    type: str  # scalar name or fully qualified message name (no leading dot)
    repeated: bool
    map_key: str | None  # scalar key type for map<K, V> fields (type is then V)
    optional_marker: bool  # `// +optional` upstream
    pointer: bool
    inline: bool


@dataclass
class _Message:
    full_name: str
    fields: dict[int, _Field] = field(default_factory=dict)

    @property
    def short(self) -> str:
        for prefix in ("k8s.io.api.", "k8s.io.apimachinery.pkg.apis."):
            if self.full_name.startswith(prefix):
                return self.full_name[len(prefix) :]
        return self.full_name

    @property
    def is_list_wrapper(self) -> bool:
        """``ExtraValue``/``Verbs``-style messages that JSON renders as a bare list."""
        only = self.fields.get(1)
        return (
            len(self.fields) == 1
            and only is not None
            and only.name == "items"
            and only.repeated
            and only.type == "string"
            and not self.full_name.endswith("List")
        )


_PACKAGE_RE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_MESSAGE_RE = re.compile(r"^message\s+(\w+)\s*\{(.*?)^\}", re.M | re.S)
_FIELD_RE = re.compile(
    r"^\s*(?:(?P<label>optional|repeated|required)\s+(?P<type>[\w.]+)"
    r"|map\s*<\s*(?P<key>\w+)\s*,\s*(?P<value>[\w.]+)\s*>)"
    r"\s+(?P<name>\w+)\s*=\s*(?P<number>\d+)\s*(?:\[[^\]]*\])?\s*;"
)


def _parse_file(text: str, path: Path) -> list[tuple[_Message, list[tuple[str, dict[str, Any]]]]]:
    """Return messages with their raw field specs (types resolved later, once all packages are known)."""
    pkg_match = _PACKAGE_RE.search(text)
    if not pkg_match:
        raise ProtobufDecodeError(f"vendored proto {path} has no package statement")
    package = pkg_match.group(1)
    out = []
    for msg_match in _MESSAGE_RE.finditer(text):
        msg = _Message(f"{package}.{msg_match.group(1)}")
        specs: list[tuple[str, dict[str, Any]]] = []
        optional_marker = False
        for line in msg_match.group(2).splitlines():
            stripped = line.strip()
            if not stripped:
                optional_marker = False
                continue
            if stripped.startswith("//"):
                if stripped[2:].strip() == "+optional":
                    optional_marker = True
                continue
            m = _FIELD_RE.match(line)
            if not m:
                raise ProtobufDecodeError(f"cannot parse line in {msg.full_name} ({path}): {stripped!r}")
            spec = {
                "name": m.group("name"),
                "number": int(m.group("number")),
                "repeated": m.group("label") == "repeated",
                "map_key": m.group("key"),
                "type": m.group("value") if m.group("key") else m.group("type"),
                "optional_marker": optional_marker,
            }
            specs.append((package, spec))
            optional_marker = False
        out.append((msg, specs))
    return out


class _Registry:
    def __init__(self, root: Path) -> None:
        self.messages: dict[str, _Message] = {}
        parsed = []
        for path in sorted(root.rglob("*.proto")):
            parsed.extend(_parse_file(path.read_text(encoding="utf-8"), path))
        for msg, _ in parsed:
            if msg.full_name in self.messages:
                raise ProtobufDecodeError(f"message {msg.full_name} is defined twice in the vendored protos")
            self.messages[msg.full_name] = msg
        for msg, specs in parsed:
            short = msg.short
            inline = _INLINE_FIELDS.get(short, frozenset()) | _INLINE_FIELDS["*"]
            pointers = _POINTER_FIELDS.get(short, frozenset())
            renames = _JSON_NAMES.get(short, {})
            for package, spec in specs:
                ftype = self._resolve(spec["type"], package, msg.full_name)
                name = spec["name"]
                if spec["number"] in msg.fields:
                    raise ProtobufDecodeError(f"{msg.full_name} has field number {spec['number']} twice")
                msg.fields[spec["number"]] = _Field(
                    name=name,
                    json_name=renames.get(name, name),
                    number=spec["number"],
                    type=ftype,
                    repeated=spec["repeated"],
                    map_key=spec["map_key"],
                    optional_marker=spec["optional_marker"],
                    pointer=name in pointers,
                    inline=name in inline and ftype not in _SCALARS,
                )

    def _resolve(self, type_name: str, package: str, where: str) -> str:
        if type_name in _SCALARS:
            return type_name
        if type_name.startswith("."):
            candidates = [type_name[1:]]
        else:
            candidates = [f"{package}.{type_name}", type_name]
        for candidate in candidates:
            if candidate in self.messages:
                return candidate
        raise ProtobufDecodeError(f"{where} refers to unknown message type {type_name!r}")


_registry: _Registry | None = None
_registry_lock = threading.Lock()


def _get_registry() -> _Registry:
    global _registry
    if _registry is None:
        with _registry_lock:
            if _registry is None:
                _registry = _Registry(_PROTO_ROOT)
    return _registry


def message_for_kind(api_version: str, kind: str) -> str:
    """Fully qualified protobuf message name for an ``apiVersion``/``kind`` pair.

    Raises :class:`ProtobufDecodeError` when the vendored protos have no such message. Kinds from
    meta/v1 (``DeleteOptions``, ``Status``, …) are found under any group version, as the API server
    registers them in every group.
    """
    registry = _get_registry()
    group, _, version = api_version.rpartition("/")
    if not version or not kind:
        raise ProtobufDecodeError(f"protobuf body has no usable type: apiVersion={api_version!r} kind={kind!r}")
    # the package is named after the group's first label: "rbac.authorization.k8s.io" -> k8s.io.api.rbac
    short_group = group.split(".", 1)[0] if group else "core"
    candidates = [
        f"k8s.io.api.{short_group}.{version}.{kind}",
        f"k8s.io.apimachinery.pkg.apis.meta.{version}.{kind}",
    ]
    for candidate in candidates:
        if candidate in registry.messages:
            return candidate
    raise ProtobufDecodeError(
        f"unsupported protobuf kind {kind!r} in {api_version!r}: no message {candidates[0]} in the "
        "vendored protos (send the body as application/json instead)"
    )


# --------------------------------------------------------------------------------------------------
# Wire format
# --------------------------------------------------------------------------------------------------


def _read_varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise ProtobufDecodeError(f"truncated varint at byte {pos}")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ProtobufDecodeError(f"varint longer than 10 bytes at byte {pos}")


def _iter_fields(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, Any]]:
    """Yield ``(number, wire_type, value)``; value is an int for varint/fixed, ``(start, end)`` for bytes."""
    pos = start
    while pos < end:
        key, pos = _read_varint(data, pos, end)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise ProtobufDecodeError(f"invalid field number 0 at byte {pos}")
        if wire_type == 0:
            value, pos = _read_varint(data, pos, end)
            yield number, wire_type, value
        elif wire_type == 1:
            if pos + 8 > end:
                raise ProtobufDecodeError(f"truncated 64-bit field {number} at byte {pos}")
            yield number, wire_type, int.from_bytes(data[pos : pos + 8], "little")
            pos += 8
        elif wire_type == 2:
            length, pos = _read_varint(data, pos, end)
            if pos + length > end:
                raise ProtobufDecodeError(
                    f"field {number} claims {length} bytes at byte {pos} but only {end - pos} remain"
                )
            yield number, wire_type, (pos, pos + length)
            pos += length
        elif wire_type == 5:
            if pos + 4 > end:
                raise ProtobufDecodeError(f"truncated 32-bit field {number} at byte {pos}")
            yield number, wire_type, int.from_bytes(data[pos : pos + 4], "little")
            pos += 4
        else:
            raise ProtobufDecodeError(f"unsupported wire type {wire_type} for field {number} at byte {pos}")


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _scalar_from_int(ftype: str, wire_type: int, value: int) -> Any:
    if ftype in ("int32", "int64"):
        return _signed64(value)
    if ftype in ("uint32", "uint64", "fixed32", "fixed64"):
        return value
    if ftype == "bool":
        return value != 0
    if ftype in ("sint32", "sint64"):
        return (value >> 1) ^ -(value & 1)
    if ftype == "sfixed32":
        return value - (1 << 32) if value >= 1 << 31 else value
    if ftype == "sfixed64":
        return _signed64(value)
    if ftype == "double":
        return struct.unpack("<d", value.to_bytes(8, "little"))[0]
    if ftype == "float":
        return struct.unpack("<f", value.to_bytes(4, "little"))[0]
    raise AssertionError(ftype)


def _expected_wire_type(ftype: str) -> int:
    if ftype in _VARINT_TYPES:
        return 0
    if ftype in _FIXED64_TYPES:
        return 1
    if ftype in _FIXED32_TYPES:
        return 5
    return 2


def _decode_string(data: bytes, start: int, end: int, where: str) -> str:
    try:
        return data[start:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtobufDecodeError(f"{where} is not valid UTF-8: {exc}") from None


def _zero_value(ftype: str) -> Any:
    """JSON of a field whose value is absent (used for map entries without a value)."""
    if ftype == "string":
        return ""
    if ftype == "bytes":
        return ""
    if ftype == "bool":
        return False
    if ftype in _SCALARS:
        return 0
    return None  # caller decodes an empty message instead


# --------------------------------------------------------------------------------------------------
# Kubernetes JSON conventions for special messages
# --------------------------------------------------------------------------------------------------

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def _seconds_nanos(data: bytes, start: int, end: int) -> tuple[int, int, bool]:
    seconds = nanos = 0
    seen = False
    for number, wire_type, value in _iter_fields(data, start, end):
        if wire_type != 0:
            raise ProtobufDecodeError(f"timestamp field {number} has wire type {wire_type}, expected varint")
        seen = True
        if number == 1:
            seconds = _signed64(value)
        elif number == 2:
            nanos = _signed64(value)
    return seconds, nanos, seen


def _format_time(data: bytes, start: int, end: int, micro: bool) -> str | None:
    if start == end:
        return None  # zero Time marshals as null
    seconds, nanos, _ = _seconds_nanos(data, start, end)
    try:
        moment = _EPOCH + _dt.timedelta(seconds=seconds)
    except OverflowError:
        raise ProtobufDecodeError(f"timestamp {seconds}s is out of range") from None
    if moment.year < 1:
        return None
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if micro:
        text += f".{max(0, nanos) // 1000:06d}"
    return text + "Z"


def _go_duration(ns: int) -> str:
    """Go's ``time.Duration.String()``."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)

    def frac(value: int, unit: int) -> str:
        whole, rest = divmod(value, unit)
        if not rest:
            return str(whole)
        digits = str(rest).rjust(len(str(unit)) - 1, "0").rstrip("0")
        return f"{whole}.{digits}"

    if u < 1_000:
        return f"{sign}{u}ns"
    if u < 1_000_000:
        return f"{sign}{frac(u, 1_000)}µs"
    if u < 1_000_000_000:
        return f"{sign}{frac(u, 1_000_000)}ms"
    hours, rest = divmod(u, 3600 * 1_000_000_000)
    minutes, rest = divmod(rest, 60 * 1_000_000_000)
    text = f"{frac(rest, 1_000_000_000)}s"
    if hours:
        text = f"{hours}h{minutes}m{text}"
    elif minutes:
        text = f"{minutes}m{text}"
    return sign + text


def _decode_raw_json(raw: bytes, depth: int) -> Any:
    if not raw:
        return None
    if raw.startswith(MAGIC):
        return _decode_envelope(raw, depth + 1)
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return base64.b64encode(raw).decode("ascii")


def _decode_special(type_name: str, data: bytes, start: int, end: int, depth: int) -> tuple[bool, Any]:
    if type_name in (_TIME, _TIMESTAMP):
        return True, _format_time(data, start, end, micro=False)
    if type_name == _MICROTIME:
        return True, _format_time(data, start, end, micro=True)
    if type_name == _DURATION:
        ns = 0
        for number, wire_type, value in _iter_fields(data, start, end):
            if number == 1 and wire_type == 0:
                ns = _signed64(value)
        return True, _go_duration(ns)
    if type_name in (_QUANTITY, _QUANTITY_VALUE):
        text = "0"
        for number, wire_type, value in _iter_fields(data, start, end):
            if number == 1 and wire_type == 2:
                text = _decode_string(data, value[0], value[1], "Quantity")
        return True, text or "0"
    if type_name == _INTORSTRING:
        kind, int_val, str_val = 0, 0, ""
        for number, wire_type, value in _iter_fields(data, start, end):
            if number == 1 and wire_type == 0:
                kind = value
            elif number == 2 and wire_type == 0:
                int_val = _signed64(value)
            elif number == 3 and wire_type == 2:
                str_val = _decode_string(data, value[0], value[1], "IntOrString")
        return True, (str_val if kind == 1 else int_val)
    if type_name == _RAWEXTENSION:
        raw = b""
        for number, wire_type, value in _iter_fields(data, start, end):
            if number == 1 and wire_type == 2:
                raw = data[value[0] : value[1]]
        return True, _decode_raw_json(raw, depth)
    if type_name == _FIELDSV1:
        raw = b""
        for number, wire_type, value in _iter_fields(data, start, end):
            if number == 1 and wire_type == 2:
                raw = data[value[0] : value[1]]
        return True, _decode_raw_json(raw, depth)
    return False, None


# --------------------------------------------------------------------------------------------------
# Generic message decoding
# --------------------------------------------------------------------------------------------------


def _decode_value(fld: _Field, ftype: str, wire_type: int, value: Any, data: bytes, depth: int, where: str) -> Any:
    if ftype in _SCALARS:
        if wire_type != _expected_wire_type(ftype):
            expected = _expected_wire_type(ftype)
            raise ProtobufDecodeError(
                f"{where} has wire type {wire_type} but is declared {ftype} (expected {expected})"
            )
        if ftype == "string":
            return _decode_string(data, value[0], value[1], where)
        if ftype == "bytes":
            return base64.b64encode(data[value[0] : value[1]]).decode("ascii")
        return _scalar_from_int(ftype, wire_type, value)
    if wire_type != 2:
        raise ProtobufDecodeError(f"{where} has wire type {wire_type} but is declared message {ftype}")
    return _decode_message(ftype, data, value[0], value[1], depth + 1)


def _decode_map_entry(fld: _Field, data: bytes, start: int, end: int, depth: int, where: str) -> tuple[Any, Any]:
    assert fld.map_key is not None
    key: Any = _zero_value(fld.map_key)
    val: Any = None
    have_value = False
    for number, wire_type, value in _iter_fields(data, start, end):
        if number == 1:
            key = _decode_value(fld, fld.map_key, wire_type, value, data, depth, f"{where} key")
        elif number == 2:
            val = _decode_value(fld, fld.type, wire_type, value, data, depth, f"{where} value")
            have_value = True
    if not have_value:
        val = _zero_value(fld.type) if fld.type in _SCALARS else _decode_message(fld.type, b"", 0, 0, depth + 1)
    return str(key) if not isinstance(key, str) else key, val


def _decode_message(type_name: str, data: bytes, start: int, end: int, depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        raise ProtobufDecodeError(f"protobuf message nested deeper than {_MAX_DEPTH} levels")
    handled, special = _decode_special(type_name, data, start, end, depth)
    if handled:
        return special
    registry = _get_registry()
    msg = registry.messages.get(type_name)
    if msg is None:
        raise ProtobufDecodeError(f"no vendored protobuf message {type_name}")
    out: dict[str, Any] = {}
    for number, wire_type, value in _iter_fields(data, start, end):
        fld = msg.fields.get(number)
        if fld is None:
            continue  # a field newer than the vendored protos: skip, as protobuf does
        where = f"field {number} ({fld.name}) of {type_name}"
        if fld.map_key is not None:
            if wire_type != 2:
                raise ProtobufDecodeError(f"{where} has wire type {wire_type}, expected a map entry")
            key, val = _decode_map_entry(fld, data, value[0], value[1], depth, where)
            out.setdefault(fld.json_name, {})[key] = val
        elif fld.repeated:
            items = out.setdefault(fld.json_name, [])
            if wire_type == 2 and fld.type in _SCALARS and fld.type not in ("string", "bytes"):
                # packed encoding of a repeated numeric field
                inner_wire = _expected_wire_type(fld.type)
                pos, stop = value
                while pos < stop:
                    if inner_wire == 0:
                        raw, pos = _read_varint(data, pos, stop)
                    else:
                        size = 8 if inner_wire == 1 else 4
                        if pos + size > stop:
                            raise ProtobufDecodeError(f"{where}: truncated packed value")
                        raw = int.from_bytes(data[pos : pos + size], "little")
                        pos += size
                    items.append(_scalar_from_int(fld.type, inner_wire, raw))
            else:
                items.append(_decode_value(fld, fld.type, wire_type, value, data, depth, where))
        else:
            decoded = _decode_value(fld, fld.type, wire_type, value, data, depth, where)
            previous = out.get(fld.json_name)
            if isinstance(previous, dict) and isinstance(decoded, dict):
                previous.update(decoded)  # protobuf merges repeated occurrences of a message field
            else:
                out[fld.json_name] = decoded
    if msg.is_list_wrapper:
        return out.get("items", [])
    return _to_json_shape(msg, out)


def _to_json_shape(msg: _Message, decoded: dict[str, Any]) -> dict[str, Any]:
    by_json = {f.json_name: f for f in msg.fields.values()}
    result: dict[str, Any] = {}
    for key, value in decoded.items():
        fld = by_json[key]
        if fld.inline:
            if isinstance(value, dict):
                for inner_key, inner_value in value.items():
                    result.setdefault(inner_key, inner_value)
            continue
        if (
            fld.optional_marker
            and not fld.pointer
            and not fld.repeated
            and fld.map_key is None
            and fld.type in _SCALARS
            and value in ("", 0, False)
        ):
            continue  # Go wrote a non-pointer zero value that JSON's omitempty would have dropped
        if value is None and fld.optional_marker:
            continue  # zero Time/MicroTime/RawExtension: kubectl 1.36's JSON omits them (omitzero)
        result[key] = value
    return result


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------


def is_protobuf_content_type(content_type: str | None) -> bool:
    """True for ``application/vnd.kubernetes.protobuf`` (parameters ignored)."""
    if not content_type:
        return False
    return content_type.split(";", 1)[0].strip().lower() == PROTOBUF_CONTENT_TYPE


def decode_message(type_name: str, raw: bytes) -> Any:
    """Decode the bare protobuf encoding of message ``type_name`` (fully qualified, e.g.
    ``k8s.io.api.core.v1.Pod``) into its JSON shape, without ``apiVersion``/``kind``."""
    return _decode_message(type_name.lstrip("."), raw, 0, len(raw))


def decode_body(data: bytes) -> dict[str, Any]:
    """Decode a ``k8s\\x00``-prefixed ``runtime.Unknown`` envelope into the JSON object a JSON client
    would have sent: ``{"apiVersion": …, "kind": …, "metadata": …, …}``."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ProtobufDecodeError(f"protobuf body must be bytes, not {type(data).__name__}")
    return _decode_envelope(bytes(data), 0)


def _decode_envelope(data: bytes, depth: int) -> dict[str, Any]:
    if depth > _MAX_DEPTH:
        raise ProtobufDecodeError(f"protobuf message nested deeper than {_MAX_DEPTH} levels")
    if not data.startswith(MAGIC):
        raise ProtobufDecodeError(
            f"protobuf body does not start with the Kubernetes magic prefix 'k8s\\x00' (first bytes: {data[:8]!r})"
        )
    api_version = kind = content_encoding = content_type = ""
    raw = b""
    end = len(data)
    for number, wire_type, value in _iter_fields(data, len(MAGIC), end):
        if wire_type != 2:
            continue
        if number == 1:  # typeMeta
            for tm_number, tm_wire, tm_value in _iter_fields(data, value[0], value[1]):
                if tm_wire != 2:
                    continue
                if tm_number == 1:
                    api_version = _decode_string(data, tm_value[0], tm_value[1], "typeMeta.apiVersion")
                elif tm_number == 2:
                    kind = _decode_string(data, tm_value[0], tm_value[1], "typeMeta.kind")
        elif number == 2:
            raw = data[value[0] : value[1]]
        elif number == 3:
            content_encoding = _decode_string(data, value[0], value[1], "contentEncoding")
        elif number == 4:
            content_type = _decode_string(data, value[0], value[1], "contentType")
    if content_encoding:
        raise ProtobufDecodeError(f"unsupported protobuf contentEncoding {content_encoding!r}")
    if content_type and not is_protobuf_content_type(content_type):
        raise ProtobufDecodeError(f"unsupported contentType {content_type!r} inside the protobuf envelope")
    type_name = message_for_kind(api_version, kind)
    obj = _decode_message(type_name, raw, 0, len(raw), depth)
    if not isinstance(obj, dict):
        raise ProtobufDecodeError(f"{type_name} does not decode to a JSON object")
    return {"apiVersion": api_version, "kind": kind, **obj}


# --------------------------------------------------------------------------------------------------
# Encoding (the reverse, for tests and for answering protobuf-only clients should one appear)
# --------------------------------------------------------------------------------------------------

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}


def _enc_varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _enc_key(number: int, wire_type: int) -> bytes:
    return _enc_varint(number << 3 | wire_type)


def _enc_bytes(number: int, payload: bytes) -> bytes:
    return _enc_key(number, 2) + _enc_varint(len(payload)) + payload


def _parse_time(value: Any, where: str) -> tuple[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProtobufDecodeError(f"{where}: expected an RFC 3339 string, got {value!r}")
    try:
        moment = _dt.datetime.fromisoformat(value)
    except ValueError:
        raise ProtobufDecodeError(f"{where}: {value!r} is not an RFC 3339 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.UTC)
    delta = moment - _EPOCH
    seconds = delta.days * 86400 + delta.seconds
    return seconds, delta.microseconds * 1000


def _parse_go_duration(value: Any, where: str) -> int:
    if isinstance(value, int):
        return value
    if not isinstance(value, str) or not value:
        raise ProtobufDecodeError(f"{where}: expected a Go duration string, got {value!r}")
    text, sign = value, 1
    if text[0] in "+-":
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    if text == "0":
        return 0
    total = 0
    pos = 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos:
            break
        number, unit = match.groups()
        whole, _, frac = number.partition(".")
        scale = _DURATION_UNITS[unit]
        total += int(whole or 0) * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        pos = match.end()
    if pos != len(text):
        raise ProtobufDecodeError(f"{where}: {value!r} is not a Go duration")
    return sign * total


def _encode_special(type_name: str, value: Any, where: str) -> bytes | None:
    if type_name in (_TIME, _TIMESTAMP, _MICROTIME):
        parsed = _parse_time(value, where)
        if parsed is None:
            return b""
        seconds, nanos = parsed
        out = _enc_key(1, 0) + _enc_varint(seconds)
        if type_name == _MICROTIME and nanos:
            out += _enc_key(2, 0) + _enc_varint(nanos)
        return out
    if type_name == _DURATION:
        return _enc_key(1, 0) + _enc_varint(_parse_go_duration(value, where))
    if type_name in (_QUANTITY, _QUANTITY_VALUE):
        return _enc_bytes(1, str(value).encode())
    if type_name == _INTORSTRING:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ProtobufDecodeError(f"{where}: expected an int or a string, got {value!r}")
        if isinstance(value, int):
            return _enc_key(1, 0) + _enc_varint(0) + _enc_key(2, 0) + _enc_varint(value)
        return _enc_key(1, 0) + _enc_varint(1) + _enc_bytes(3, value.encode())
    if type_name in (_RAWEXTENSION, _FIELDSV1):
        if value is None:
            return b""
        return _enc_bytes(1, json.dumps(value, separators=(",", ":")).encode())
    return None


def _encode_scalar(ftype: str, number: int, value: Any, where: str) -> bytes:
    try:
        if ftype == "string":
            return _enc_bytes(number, str(value).encode())
        if ftype == "bytes":
            return _enc_bytes(number, base64.b64decode(value, validate=True))
        if ftype == "bool":
            return _enc_key(number, 0) + _enc_varint(1 if value else 0)
        if ftype in ("sint32", "sint64"):
            zigzag = (int(value) << 1) ^ (int(value) >> 63)
            return _enc_key(number, 0) + _enc_varint(zigzag)
        if ftype in _VARINT_TYPES:
            return _enc_key(number, 0) + _enc_varint(int(value))
        if ftype == "double":
            return _enc_key(number, 1) + struct.pack("<d", float(value))
        if ftype == "float":
            return _enc_key(number, 5) + struct.pack("<f", float(value))
        if ftype in ("fixed64", "sfixed64"):
            return _enc_key(number, 1) + struct.pack("<q" if ftype == "sfixed64" else "<Q", int(value))
        return _enc_key(number, 5) + struct.pack("<i" if ftype == "sfixed32" else "<I", int(value))
    except (TypeError, ValueError, struct.error) as exc:
        raise ProtobufDecodeError(f"{where}: cannot encode {value!r} as {ftype}: {exc}") from None


def _encode_field_value(fld: _Field, ftype: str, number: int, value: Any, depth: int, where: str) -> bytes:
    if ftype in _SCALARS:
        return _encode_scalar(ftype, number, value, where)
    return _enc_bytes(number, _encode_message(ftype, value, depth + 1, where))


def _encode_message(type_name: str, obj: Any, depth: int = 0, where: str = "") -> bytes:
    if depth > _MAX_DEPTH:
        raise ProtobufDecodeError(f"object nested deeper than {_MAX_DEPTH} levels")
    where = where or type_name
    special = _encode_special(type_name, obj, where)
    if special is not None:
        return special
    msg = _get_registry().messages.get(type_name)
    if msg is None:
        raise ProtobufDecodeError(f"no vendored protobuf message {type_name}")
    if msg.is_list_wrapper:
        obj = {"items": obj}
    if obj is None:
        return b""
    if not isinstance(obj, dict):
        raise ProtobufDecodeError(f"{where}: expected an object for {type_name}, got {type(obj).__name__}")
    out = bytearray()
    for number in sorted(msg.fields):
        fld = msg.fields[number]
        path = f"{where}.{fld.json_name}"
        if fld.inline:
            inner = _get_registry().messages[fld.type]
            inner_names = {f.json_name for f in inner.fields.values()}
            inner_obj = {k: v for k, v in obj.items() if k in inner_names}
            out += _enc_bytes(number, _encode_message(fld.type, inner_obj, depth + 1, path))
            continue
        if fld.json_name not in obj:
            continue
        if obj[fld.json_name] is None:
            if fld.type not in _SCALARS and not fld.repeated and fld.map_key is None:
                out += _enc_bytes(number, b"")  # a zero Time and friends: Go writes an empty message
            continue
        value = obj[fld.json_name]
        if fld.map_key is not None:
            if not isinstance(value, dict):
                raise ProtobufDecodeError(f"{path}: expected an object (map), got {type(value).__name__}")
            for key, item in value.items():
                entry = _encode_scalar(fld.map_key, 1, key, path)
                if item is not None:
                    entry += _encode_field_value(fld, fld.type, 2, item, depth, f"{path}[{key}]")
                out += _enc_bytes(number, entry)
        elif fld.repeated:
            if not isinstance(value, list):
                raise ProtobufDecodeError(f"{path}: expected a list, got {type(value).__name__}")
            for index, item in enumerate(value):
                out += _encode_field_value(fld, fld.type, number, item, depth, f"{path}[{index}]")
        else:
            out += _encode_field_value(fld, fld.type, number, value, depth, path)
    return bytes(out)


def encode_body(obj: dict[str, Any]) -> bytes:
    """Encode a JSON-shaped object (with ``apiVersion`` and ``kind``) as a ``k8s\\x00`` protobuf body.

    The inverse of :func:`decode_body` up to zero values: fields absent from ``obj`` are not written
    (Go writes its non-pointer zero values; both decode to the same object). Keys the vendored protos do
    not know are ignored. Raises :class:`ProtobufDecodeError` for values of the wrong shape.
    """
    if not isinstance(obj, dict):
        raise ProtobufDecodeError(f"object to encode must be a dict, not {type(obj).__name__}")
    api_version = str(obj.get("apiVersion") or "")
    kind = str(obj.get("kind") or "")
    type_name = message_for_kind(api_version, kind)
    raw = _encode_message(type_name, obj)
    type_meta = _enc_bytes(1, api_version.encode()) + _enc_bytes(2, kind.encode())
    unknown = _enc_bytes(1, type_meta) + _enc_bytes(2, raw) + _enc_bytes(3, b"") + _enc_bytes(4, b"")
    return MAGIC + unknown
