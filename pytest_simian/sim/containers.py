"""The container lifecycle state machine of one pod, as kubelet 1.36 with containerd runs it on a kind node.

Why it exists: the simulated kubelet must produce, from a pod spec and the passing of virtual time, the
same ``status`` (phase, conditions, container states, restartCount, lastState), the same events and the
same logs a real kubelet would: image pulls with the ErrImagePull/ImagePullBackOff alternation on the
image backoff, CreateContainerConfigError and FailedMount for missing ConfigMaps/Secrets, restarts with
the crash-loop backoff (10s doubling to 5m, reset after 10 minutes), OOMKilled when a command's memory
passes the limit, probes with Unhealthy events and liveness restarts, init containers, and the current
and previous container's logs.

What it must not do: read a clock (every method takes ``now``, virtual Unix seconds), talk to the store
or to the network (cluster lookups go through the :class:`Environment` passed in), or run a container
command on the host (commands are interpreted by :mod:`pytest_simian.sim.busybox`). Reasons and messages
come from :mod:`pytest_simian.sim.messages`.

Driving it: ``rt = PodRuntime(pod, env=..., now=t)``; then repeatedly ``events = rt.step(now)`` (processes
everything due up to ``now`` in time order) and ``rt.next_wakeup()`` (when something is next due);
``rt.status(now)`` renders ``pod.status``; ``rt.logs(name, previous=...)`` the log lines;
``rt.terminate(now, grace)`` starts a graceful deletion (``rt.finished`` when every container stopped).

Timing model (documented choices, all in virtual seconds): sandbox ready 0.3s after the volumes mount;
a pod sync follows a container state change after 1s (PLEG relist); volume mount retries back off from
0.5s doubling to 2m2s; image pulls take ``images.pull_seconds(size)``. After every sync the pod worker
requeues the pod, replacing any earlier requeue (pkg/kubelet/pod_workers.go ``completeWork``, 1.34+): at
the earliest crash-loop back-off expiry of that sync, capped at the 1m resync interval, when a container
was in back-off; after 10s on any other error; after the 1m resync otherwise. Each of those is stretched
by the mean of ``wait.Jitter``'s factor (x1.25) rather than a random one, so runs are reproducible.

Status follows the kubelet's order of work (pkg/kubelet/kubelet.go ``SyncPod``): a sync writes the
status first and acts on containers afterwards, and a failed start (CrashLoopBackOff, ErrImagePull,
ImagePullBackOff, CreateContainerConfigError, ...) is only recorded in the reason cache
(pkg/kubelet/reason_cache.go). So a reason shows in ``state.waiting`` from the *next* sync on, and an
exited container shows ``terminated`` (kubectl: ``Error``) until then. With back-off requeues at expiry,
``waiting.reason=CrashLoopBackOff`` stays visible only once a back-off outlasts the 1m cap (the 1m20s
step, ~175s after the first start), as upstream measured on kind 1.36.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from pytest_simian.sim import busybox, images
from pytest_simian.sim import messages as M

__all__ = [
    "Backoff", "Environment", "KubeletEvent", "LogLine", "NullEnvironment", "PodRuntime", "go_duration",
    "parse_quantity", "render_logs", "format_pod",
]

SANDBOX_DELAY = 0.3
PLEG_DELAY = 1.0
SYNC_ERROR_REQUEUE = 10.0  # pod worker backOffPeriod
RESYNC_INTERVAL = 60.0  # --sync-frequency; also the cap on a back-off requeue
REQUEUE_JITTER = 1.25  # mean of wait.Jitter(d, 0.5), which draws uniformly from [d, 1.5d]
CRASH_BACKOFF_RESET = 600.0  # a container that ran longer than this restarts its back-off from 10s
CONTAINER_BACKOFF_INITIAL = 10.0
CONTAINER_BACKOFF_MAX = 300.0
IMAGE_BACKOFF_INITIAL = 10.0
IMAGE_BACKOFF_MAX = 300.0
MOUNT_RETRY_INITIAL = 0.5
MOUNT_RETRY_MAX = 122.0
BASE_MEMORY = 1 << 20  # resident memory of a shell before it allocates anything
WGET_DEFAULT_TIMEOUT = 900.0  # busybox wget's default network timeout


# ------------------------------------------------------------------------------------------ helpers
def go_duration(seconds: float) -> str:
    """Go's time.Duration.String(): 10s, 1m20s, 5m0s, 1.234s, 250ms."""
    if seconds == 0:
        return "0s"
    neg = seconds < 0
    seconds = abs(seconds)
    if seconds < 1:
        ms = round(seconds * 1000, 6)
        if ms >= 1:
            out = f"{ms:.6f}".rstrip("0").rstrip(".") + "ms"
        else:
            out = f"{seconds * 1e6:.3f}".rstrip("0").rstrip(".") + "µs"
        return ("-" if neg else "") + out
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    s_txt = f"{s:.9f}".rstrip("0").rstrip(".")
    out = ""
    if h:
        out = f"{int(h)}h{int(m)}m{s_txt}s"
    elif m:
        out = f"{int(m)}m{s_txt}s"
    else:
        out = f"{s_txt}s"
    return ("-" if neg else "") + out


_QTY = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?\d+)?(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$")


def parse_quantity(q: object) -> float:
    """A resource.Quantity as a float (bytes or cores)."""
    if isinstance(q, int | float):
        return float(q)
    return _parse_quantity_text(str(q))


@functools.lru_cache(maxsize=4096)
def _parse_quantity_text(text: str) -> float:
    """Quantities repeat (every node's allocatable, every replica's requests): parse each text once."""
    s = text.strip()
    m = _QTY.match(s)
    if not m:
        raise ValueError(f"quantities must match the regular expression: {s!r}")
    num = float(m.group(1) + (m.group(2) or ""))
    suf = m.group(3) or ""
    mult = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18, "Ki": 1024,
            "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4, "Pi": 1024**5, "Ei": 1024**6}[suf]
    return num * mult


def format_pod(name: str, namespace: str, uid: str) -> str:
    return M.MSG_POD_FORMAT.format(name=name, namespace=namespace, uid=uid)


def rfc3339(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def rfc3339nano(t: float) -> str:
    dt = datetime.fromtimestamp(t, UTC)
    nanos = int(round((t - math.floor(t)) * 1e6)) * 1000  # float seconds carry microseconds honestly
    if nanos >= 1_000_000_000:
        nanos = 999_999_000
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"


class Backoff:
    """k8s.io/client-go/util/flowcontrol.Backoff (per-key exponential backoff). An entry expires when the
    event comes more than ``expiry`` (default 2*max; the kubelet's crash-loop back-off uses 600s) after the
    entry's last update, which ``next`` sets to ``now`` (``Clock.Now()`` upstream)."""

    def __init__(self, initial: float, maximum: float, expiry: float | None = None) -> None:
        self.initial = initial
        self.max = maximum
        self.expiry = maximum * 2 if expiry is None else expiry
        self.entries: dict[str, tuple[float, float]] = {}  # key -> (backoff, lastUpdate)

    def _expired(self, event_time: float, last_update: float) -> bool:
        return event_time - last_update > self.expiry

    def next(self, key: str, event_time: float, now: float | None = None) -> None:
        e = self.entries.get(key)
        update = event_time if now is None else now
        if e is None or self._expired(event_time, e[1]):
            self.entries[key] = (self.initial, update)
        else:
            self.entries[key] = (min(e[0] * 2, self.max), update)

    def get(self, key: str) -> float:
        e = self.entries.get(key)
        return e[0] if e else 0.0

    def in_backoff_since(self, key: str, event_time: float, now: float) -> bool:
        e = self.entries.get(key)
        if e is None or self._expired(event_time, e[1]):
            return False
        return now - event_time < e[0]

    def in_backoff_since_update(self, key: str, now: float) -> bool:
        e = self.entries.get(key)
        if e is None or self._expired(now, e[1]):
            return False
        return now - e[1] < e[0]


# ---------------------------------------------------------------------------------- environment
class Environment(Protocol):
    """What the pod needs from the rest of the cluster (the kubelet wiring implements it on the store)."""

    def configmap(self, namespace: str, name: str) -> dict[str, str] | None: ...

    def secret(self, namespace: str, name: str) -> dict[str, str] | None: ...

    def service_env(self, namespace: str) -> dict[str, str]: ...

    def connect(self, namespace: str, action: busybox.Connect) -> busybox.ConnectResult: ...


class NullEnvironment:
    """No ConfigMaps, no Secrets, no Services, no DNS: every name is a bad address."""

    def configmap(self, namespace: str, name: str) -> dict[str, str] | None:
        return None

    def secret(self, namespace: str, name: str) -> dict[str, str] | None:
        return None

    def service_env(self, namespace: str) -> dict[str, str]:
        return {}

    def connect(self, namespace: str, action: busybox.Connect) -> busybox.ConnectResult:
        return busybox.ConnectResult("bad_address")


@dataclass(frozen=True)
class KubeletEvent:
    time: float
    type: str  # Normal | Warning
    reason: str
    message: str
    field_path: str = ""  # "spec.containers{app}"; "" for the pod itself


@dataclass(frozen=True)
class LogLine:
    time: float
    stream: str
    text: str  # one line with its newline (the last line of an instance may lack it)


def render_logs(lines: list[LogLine], *, timestamps: bool = False, since: float | None = None,
                tail: int | None = None) -> str:
    """What ``kubectl logs`` prints (``since`` is an absolute time; ``tail`` a line count, -1 = all)."""
    sel = [ln for ln in lines if since is None or ln.time >= since]
    if tail is not None and tail >= 0:
        sel = sel[len(sel) - tail :] if tail else []
    if timestamps:
        return "".join(f"{rfc3339nano(ln.time)} {ln.text}" for ln in sel)
    return "".join(ln.text for ln in sel)


@dataclass
class _Probe:
    kind: str  # Liveness | Readiness | Startup
    spec: dict[str, Any]
    next_at: float
    successes: int = 0
    failures: int = 0

    @property
    def period(self) -> float:
        return float(self.spec.get("periodSeconds", 10))

    @property
    def timeout(self) -> float:
        return float(self.spec.get("timeoutSeconds", 1))

    @property
    def failure_threshold(self) -> int:
        return int(self.spec.get("failureThreshold", 3))

    @property
    def success_threshold(self) -> int:
        return int(self.spec.get("successThreshold", 1))


@dataclass
class _Container:
    spec: dict[str, Any]
    init: bool
    index: int
    state: str = "waiting"  # waiting | running | terminated
    waiting_reason: str = ""
    waiting_message: str = ""
    terminated: dict[str, Any] | None = None
    last_terminated: dict[str, Any] | None = None
    restart_count: int = 0
    started_at: float | None = None
    container_id: str = ""
    image_name: str = ""
    image_id: str = ""
    program: busybox.Program | None = None
    wake_at: float | None = None
    send: object = None
    memory: int = 0
    listeners: dict[int, str] = field(default_factory=dict)
    logs: list[LogLine] = field(default_factory=list)
    previous_logs: list[LogLine] = field(default_factory=list)
    partial: dict[str, str] = field(default_factory=dict)
    unmodelled: str = ""
    busy: bool = False
    ready: bool = False
    started: bool = False
    probes: list[_Probe] = field(default_factory=list)
    kill_at: float | None = None
    kill_reason: str = ""
    fs: dict[str, str] = field(default_factory=dict)
    ever_ran: bool = False
    info: images.ImageInfo | None = None
    instance: int = 0

    @property
    def name(self) -> str:
        return str(self.spec["name"])

    @property
    def field_path(self) -> str:
        return f"spec.{'initContainers' if self.init else 'containers'}{{{self.name}}}"


class _SyncError(Exception):
    pass


SyncTask = Generator[float, None, None]


# --------------------------------------------------------------------------------------- the pod
class PodRuntime:
    def __init__(self, pod: dict[str, Any], *, env: Environment | None = None, now: float,
                 node_name: str = "kind-control-plane", host_ip: str = "172.18.0.2", pod_ip: str = "10.244.0.5",
                 node_images: images.NodeImages | None = None, image_backoff: Backoff | None = None,
                 cpus: int = 8, fmt_time: Callable[[float], str] = rfc3339) -> None:
        self.pod = pod
        meta = pod.get("metadata", {})
        self.name = str(meta.get("name", ""))
        self.namespace = str(meta.get("namespace", "default"))
        self.uid = str(meta.get("uid", ""))
        self.spec = pod.get("spec", {})
        self.env = env or NullEnvironment()
        self.node_name = node_name
        self.host_ip = host_ip
        self.pod_ip = pod_ip
        self.node_images = node_images or images.NodeImages()
        self.image_backoff = image_backoff or Backoff(IMAGE_BACKOFF_INITIAL, IMAGE_BACKOFF_MAX)
        self.crash_backoff = Backoff(CONTAINER_BACKOFF_INITIAL, CONTAINER_BACKOFF_MAX, CRASH_BACKOFF_RESET)
        self.reason_cache: dict[str, tuple[str, str]] = {}  # container -> why its last start failed
        self.shown_reasons: dict[str, tuple[str, str]] = {}  # the reason cache as the last sync rendered it
        self.prev_pull_error: dict[str, str] = {}
        self.cpus = cpus
        self.fmt = fmt_time
        self.start_time = now
        self.now = now
        self.restart_policy = self.spec.get("restartPolicy", "Always")
        self.grace = float(self.spec.get("terminationGracePeriodSeconds", 30))
        self.init_containers = [_Container(c, True, i) for i, c in enumerate(self.spec.get("initContainers") or [])]
        self.containers = [_Container(c, False, i) for i, c in enumerate(self.spec.get("containers") or [])]
        for c in self.all():
            c.waiting_reason = M.REASON_POD_INITIALIZING if (self.init_containers and not c.init) else (
                M.REASON_CONTAINER_CREATING if not c.init else M.REASON_POD_INITIALIZING)
            c.image_name = str(c.spec.get("image", ""))
        self.sandbox_ready_at: float | None = None
        self.sandbox_ready = False
        self.mounted = False
        self.mount_retry: dict[str, float] = {}  # volume -> current retry delay
        self.sync_at: float | None = now  # a sync asked for by a state change (PLEG) or a retry
        self.requeue_at: float | None = None  # the pod worker's requeue after the last sync
        self.sync_failed = False  # the running sync hit an error (a failed start)
        self.backoff_expiries: list[float] = []  # crash-loop back-offs the running sync found, when they end
        self.sync_task: SyncTask | None = None
        self.sync_wake: float | None = None
        self.events: list[KubeletEvent] = []
        self.deleting = False
        self.finished = False
        self.conditions: dict[str, dict[str, Any]] = {}
        self.unmodelled: list[str] = []

    # ------------------------------------------------------------------ queries
    def all(self) -> list[_Container]:
        return self.init_containers + self.containers

    def container(self, name: str) -> _Container:
        for c in self.all():
            if c.name == name:
                return c
        raise KeyError(name)

    def logs(self, name: str, previous: bool = False) -> list[LogLine]:
        c = self.container(name)
        lines = c.previous_logs if previous else c.logs
        extra = [] if previous or not c.partial else [
            LogLine(self.now, s, t) for s, t in c.partial.items() if t
        ]
        return list(lines) + extra

    def listening(self, port: int) -> str | None:
        for c in self.containers + self.init_containers:
            if c.state == "running" and port in c.listeners:
                return c.listeners[port]
        return None

    def next_wakeup(self) -> float | None:
        times: list[float] = []
        nxt = self.sync_wake if self.sync_wake is not None else self._next_sync()
        if nxt is not None:
            times.append(nxt)
        for c in self.all():
            if c.state == "running":
                if c.wake_at is not None:
                    times.append(c.wake_at)
                if c.kill_at is not None:
                    times.append(c.kill_at)
                for p in c.probes:
                    if p.next_at != math.inf:
                        times.append(p.next_at)
        return min(times) if times else None

    # ------------------------------------------------------------------ driving
    def step(self, now: float) -> list[KubeletEvent]:
        """Process everything due up to ``now``; returns the events emitted."""
        start = len(self.events)
        guard = 0
        while True:
            t = self.next_wakeup()
            if t is None or t > now:
                break
            guard += 1
            if guard > 100000:
                raise RuntimeError(f"pod {self.namespace}/{self.name}: no progress at t={t}")
            t = max(t, self.now)
            self.now = t
            self._process(t)
        self.now = max(self.now, now)
        return self.events[start:]

    def _process(self, t: float) -> None:
        # program wake-ups and kills first (they are what a sync observes)
        for c in self.all():
            if c.state == "running" and c.kill_at is not None and c.kill_at <= t:
                self._exit(c, t, 137 if c.kill_reason != "graceful" else 0, M.REASON_TERMINATED_ERROR
                           if c.kill_reason != "graceful" else M.REASON_TERMINATED_COMPLETED)
            if c.state == "running" and c.wake_at is not None and c.wake_at <= t:
                c.wake_at = None
                self._resume(c, t)
        for c in self.all():
            if c.state == "running":
                for p in list(c.probes):
                    if p.next_at <= t and c.state == "running":
                        self._run_probe(c, p, t)
        if self.sync_wake is not None and self.sync_wake <= t:
            self._continue_sync(t)
        elif self.sync_task is None and (nxt := self._next_sync()) is not None and nxt <= t:
            self.sync_at = self.requeue_at = None
            self.sync_failed = False
            self.backoff_expiries = []
            # the status a sync writes is rendered before it acts (kubelet.go SyncPod): reasons recorded by the
            # previous sync become visible now
            self.shown_reasons = dict(self.reason_cache)
            self.sync_task = self._sync(t)
            self._continue_sync(t)

    def _next_sync(self) -> float | None:
        """When the next sync starts: a PLEG/retry request or the pod worker's requeue, whichever is first."""
        due = [x for x in (self.sync_at, self.requeue_at) if x is not None]
        return min(due) if due else None

    def _continue_sync(self, t: float) -> None:
        assert self.sync_task is not None
        self.sync_wake = None
        try:
            delay = next(self.sync_task)
        except StopIteration:
            self.sync_task = None
            self._requeue(t)
            return
        self.sync_wake = t + delay

    def _requeue(self, t: float) -> None:
        """pod_workers.go completeWork: the next sync replaces any pending requeue."""
        if self.deleting or self._terminal():
            self.requeue_at = None
            return
        if self.backoff_expiries:
            delay = min(max(min(self.backoff_expiries) - t, 0.0), RESYNC_INTERVAL)
        elif self.sync_failed:
            delay = SYNC_ERROR_REQUEUE
        else:
            delay = RESYNC_INTERVAL
        self.requeue_at = t + delay * REQUEUE_JITTER

    def _request_sync(self, t: float) -> None:
        if self.deleting:
            return
        self.sync_at = t if self.sync_at is None else min(self.sync_at, t)

    def _emit(self, t: float, type_: str, reason: str, message: str, c: _Container | None = None) -> None:
        self.events.append(KubeletEvent(t, type_, reason, message, c.field_path if c else ""))

    # ------------------------------------------------------------------ sync (computePodActions)
    def _sync(self, t0: float) -> SyncTask:
        now = t0
        if self.deleting or self._terminal():
            return
        if not self.mounted:
            ok = self._mount_volumes(now)
            if not ok:
                return
            self.mounted = True
        if not self.sandbox_ready:
            yield SANDBOX_DELAY
            now += SANDBOX_DELAY
            self.sandbox_ready = True
            self.sandbox_ready_at = now
            self._request_sync(now + PLEG_DELAY)  # the PLEG relist sees the new sandbox
        error = False
        # init containers, one at a time
        for c in self.init_containers:
            if c.state == "terminated" and c.terminated and c.terminated["exitCode"] == 0:
                continue
            if c.state == "running":
                return
            if c.state == "terminated" and self.restart_policy == "Never":
                return
            now_box = [now]
            ok = yield from self._start_with_backoff(c, now_box)
            now = now_box[0]
            if not ok:
                error = True
            break
        else:
            for c in self.containers:
                if c.state == "running":
                    continue
                if c.state == "terminated":
                    code = c.terminated["exitCode"] if c.terminated else 1
                    if self.restart_policy == "Never" or (self.restart_policy == "OnFailure" and code == 0):
                        continue
                now_box = [now]
                ok = yield from self._start_with_backoff(c, now_box)
                now = now_box[0]
                if not ok:
                    error = True
        if error:
            self.sync_failed = True

    def _start_with_backoff(self, c: _Container, now_box: list[float]) -> Generator[float, None, bool]:
        now = now_box[0]
        last_exit = c.terminated if c.state == "terminated" else (c.last_terminated if c.ever_ran else None)
        if last_exit is not None:
            key = self._backoff_key(c)
            finished = last_exit["_finished"]
            if self.crash_backoff.in_backoff_since(key, finished, now):
                backoff = self.crash_backoff.get(key)
                pod = format_pod(self.name, self.namespace, self.uid)
                self._emit(now, "Warning", M.REASON_BACKOFF,
                           M.MSG_BACKOFF_RESTARTING_EVENT.format(name=c.name, pod=pod), c)
                self._to_waiting(c, M.REASON_CRASH_LOOP,
                                 M.MSG_CRASHLOOP_STATUS.format(delay=go_duration(backoff), name=c.name, pod=pod))
                self.backoff_expiries.append(finished + backoff)
                return False
            self.crash_backoff.next(key, finished, now)
        ok = yield from self._start(c, now_box)
        return ok

    def _backoff_key(self, c: _Container) -> str:
        return f"{self.name}_{self.namespace}_{self.uid}_{c.name}"

    def _to_waiting(self, c: _Container, reason: str, message: str) -> None:
        """A start that failed: the reason cache records why (reason_cache.go Update); the status shows it
        as ``state.waiting`` from the next sync on (see ``_container_status``)."""
        self.reason_cache[c.name] = (reason, message)
        c.ready = False
        c.started = False

    def _start(self, c: _Container, now_box: list[float]) -> Generator[float, None, bool]:
        now = now_box[0]
        image = str(c.spec.get("image", ""))
        policy = c.spec.get("imagePullPolicy") or images.default_pull_policy(image)
        ref = images.parse_reference(image)
        if ref is None:
            out = images.pull(image)
            self._emit(now, "Warning", M.REASON_INSPECT_FAILED, out.message, c)
            self._emit(now, "Warning", M.REASON_FAILED, M.MSG_ERROR_PREFIX.format(error=out.reason), c)
            self._to_waiting(c, out.reason, out.message)
            return False
        present = self.node_images.has(image)
        if policy == "Never" or (policy == "IfNotPresent" and present):
            if not present:
                msg = M.MSG_IMAGE_NEVER_PULL.format(image=image)
                self._emit(now, "Warning", M.REASON_ERR_IMAGE_NEVER_PULL, msg, c)
                self._emit(now, "Warning", M.REASON_FAILED, M.MSG_ERROR_PREFIX.format(error="ErrImageNeverPull"), c)
                self._to_waiting(c, "ErrImageNeverPull", msg)
                return False
            self._emit(now, "Normal", M.REASON_PULLED, M.MSG_IMAGE_PRESENT.format(image=image), c)
            outcome = images.pull(image)
        else:
            key = f"{self.uid}_{image}"
            if self.image_backoff.in_backoff_since_update(key, now):
                prev = self.prev_pull_error.get(key, "")
                msg = M.MSG_BACKOFF_PULLING.format(image=image)
                status_msg = f"{msg}: {prev}" if prev else msg
                self._emit(now, "Normal", M.REASON_BACKOFF, msg, c)
                self._emit(now, "Warning", M.REASON_FAILED,
                           M.MSG_ERROR_PREFIX.format(error=M.REASON_IMAGE_PULL_BACKOFF), c)
                self._to_waiting(c, M.REASON_IMAGE_PULL_BACKOFF, status_msg)
                return False
            self._emit(now, "Normal", M.REASON_PULLING, M.MSG_PULLING_IMAGE.format(image=image), c)
            if c.state == "terminated" or c.waiting_reason not in (M.REASON_CONTAINER_CREATING,
                                                                   M.REASON_POD_INITIALIZING):
                pass
            outcome = images.pull(image)
            yield outcome.seconds
            now += outcome.seconds
            now_box[0] = now
            if not outcome.ok:
                self._emit(now, "Warning", M.REASON_FAILED,
                           M.MSG_FAILED_TO_PULL.format(image=image, error=outcome.message), c)
                self._emit(now, "Warning", M.REASON_FAILED, M.MSG_ERROR_PREFIX.format(error=outcome.reason), c)
                self.image_backoff.next(key, now)
                self.prev_pull_error[key] = f"{outcome.reason}: {outcome.message}"
                self._to_waiting(c, outcome.reason, outcome.message)
                return False
            self.node_images.add(outcome.image)
            d = go_duration(round(outcome.seconds, 3))
            self._emit(now, "Normal", M.REASON_PULLED,
                       M.MSG_PULLED_IMAGE.format(image=image, duration=d, total=d, size=outcome.size), c)
        info = outcome.info
        assert info is not None
        # container config: environment from ConfigMaps/Secrets
        env_or_err = self._container_env(c)
        if isinstance(env_or_err, str):
            self._emit(now, "Warning", M.REASON_FAILED, M.MSG_ERROR_PREFIX.format(error=env_or_err), c)
            self._to_waiting(c, M.REASON_CREATE_CONFIG_ERROR, env_or_err)
            return False
        env = env_or_err
        command = [busybox.kube_expand(x, env) for x in (c.spec.get("command") or [])]
        args = [busybox.kube_expand(x, env) for x in (c.spec.get("args") or [])]
        argv = images.resolve_argv(info, command or None, args or None)
        # create + start
        if c.state == "terminated" and c.terminated is not None:
            c.last_terminated = c.terminated
            c.terminated = None
        if c.ever_ran:
            c.restart_count += 1
            c.previous_logs = c.logs
            c.logs = []
        # StartContainer succeeded as far as the reason cache goes; 1.36 relists the pod right after a sync
        # that started a container (kubelet.go SyncPod's postSync), so the status shows it at once
        self.reason_cache.pop(c.name, None)
        self.shown_reasons.pop(c.name, None)
        c.instance += 1
        c.info = info
        c.container_id = "containerd://" + hashlib.sha256(
            f"{self.uid}/{c.name}/{c.instance}".encode()).hexdigest()
        c.image_name = outcome.image
        c.image_id = outcome.image_id
        self._emit(now, "Normal", M.REASON_CREATED, M.MSG_CREATED_CONTAINER.format(name=c.name), c)
        c.fs = {}
        program = images.program_for(info, argv, env=env, hostname=self._hostname(), cpus=self.cpus, fs=c.fs)
        c.ever_ran = True
        c.partial = {}
        c.memory = BASE_MEMORY
        c.listeners = {}
        c.unmodelled = ""
        c.busy = False
        c.kill_at = None
        c.kill_reason = ""
        c.send = None
        if program is None:
            msg = M.MSG_EXEC_NOT_FOUND.format(name=argv[0] if argv else "")
            self._emit(now, "Warning", M.REASON_FAILED, M.MSG_ERROR_PREFIX.format(error=msg), c)
            c.state = "terminated"
            c.terminated = self._terminated_dict(c, 128, M.REASON_START_ERROR, now, now, message=msg)
            self.reason_cache[c.name] = (M.REASON_RUN_CONTAINER_ERROR, msg)
            c.ready = c.started = False
            self._request_sync(now + PLEG_DELAY)
            return True
        self._emit(now, "Normal", M.REASON_STARTED, M.MSG_STARTED_CONTAINER.format(name=c.name), c)
        c.state = "running"
        c.waiting_reason = c.waiting_message = ""
        c.started_at = now
        c.program = program
        c.probes = []
        for kind, key in (("Startup", "startupProbe"), ("Liveness", "livenessProbe"), ("Readiness", "readinessProbe")):
            spec = c.spec.get(key)
            if spec and not c.init:
                c.probes.append(_Probe(kind, spec, now + float(spec.get("initialDelaySeconds", 0))))
        has_startup = any(p.kind == "Startup" for p in c.probes)
        c.started = not has_startup
        c.ready = (not c.init) and c.started and not any(p.kind == "Readiness" for p in c.probes)
        self._resume(c, now)
        return True

    def _hostname(self) -> str:
        return str(self.spec.get("hostname") or self.name)

    def _container_env(self, c: _Container) -> dict[str, str] | str:
        ns = self.namespace
        env: dict[str, str] = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                               "HOSTNAME": self._hostname()}
        if self.spec.get("enableServiceLinks", True):
            env.update(self.env.service_env(ns))
        else:
            env.update({k: v for k, v in self.env.service_env(ns).items() if k.startswith("KUBERNETES_")})
        for src in c.spec.get("envFrom") or []:
            prefix = src.get("prefix", "")
            if "configMapRef" in src:
                ref = src["configMapRef"]
                data = self.env.configmap(ns, ref.get("name", ""))
                if data is None:
                    if ref.get("optional"):
                        continue
                    return M.MSG_CONFIGMAP_NOT_FOUND.format(name=ref.get("name", ""))
            elif "secretRef" in src:
                ref = src["secretRef"]
                data = self.env.secret(ns, ref.get("name", ""))
                if data is None:
                    if ref.get("optional"):
                        continue
                    return M.MSG_SECRET_NOT_FOUND.format(name=ref.get("name", ""))
            else:
                continue
            for k, v in data.items():
                env[prefix + k] = v
        for e in c.spec.get("env") or []:
            name = e.get("name", "")
            if "valueFrom" not in e:
                env[name] = busybox.kube_expand(str(e.get("value", "")), env)
                continue
            vf = e["valueFrom"]
            if "configMapKeyRef" in vf:
                r = vf["configMapKeyRef"]
                data = self.env.configmap(ns, r.get("name", ""))
                if data is None:
                    if r.get("optional"):
                        continue
                    return M.MSG_CONFIGMAP_NOT_FOUND.format(name=r.get("name", ""))
                if r.get("key") not in data:
                    if r.get("optional"):
                        continue
                    return M.MSG_CONFIGMAP_KEY_MISSING.format(key=r.get("key"), namespace=ns, name=r.get("name"))
                env[name] = data[r["key"]]
            elif "secretKeyRef" in vf:
                r = vf["secretKeyRef"]
                data = self.env.secret(ns, r.get("name", ""))
                if data is None:
                    if r.get("optional"):
                        continue
                    return M.MSG_SECRET_NOT_FOUND.format(name=r.get("name", ""))
                if r.get("key") not in data:
                    if r.get("optional"):
                        continue
                    return M.MSG_SECRET_KEY_MISSING.format(key=r.get("key"), namespace=ns, name=r.get("name"))
                env[name] = data[r["key"]]
            elif "fieldRef" in vf:
                env[name] = self._field_ref(vf["fieldRef"].get("fieldPath", ""))
            elif "resourceFieldRef" in vf:
                env[name] = self._resource_ref(c, vf["resourceFieldRef"])
        return env

    def _field_ref(self, path: str) -> str:
        meta = self.pod.get("metadata", {})
        simple = {"metadata.name": self.name, "metadata.namespace": self.namespace, "metadata.uid": self.uid,
                  "spec.nodeName": self.node_name, "spec.serviceAccountName":
                  str(self.spec.get("serviceAccountName", "default")), "status.hostIP": self.host_ip,
                  "status.podIP": self.pod_ip, "status.hostIPs": self.host_ip, "status.podIPs": self.pod_ip}
        if path in simple:
            return simple[path]
        m = re.fullmatch(r"metadata\.(labels|annotations)\['([^']*)'\]", path)
        if m:
            return str((meta.get(m.group(1)) or {}).get(m.group(2), ""))
        return ""

    def _resource_ref(self, c: _Container, ref: dict[str, Any]) -> str:
        res = ref.get("resource", "")
        target = self.container(ref["containerName"]) if ref.get("containerName") else c
        kind, _, what = res.partition(".")
        q = (target.spec.get("resources", {}).get(kind) or {}).get(what)
        divisor = parse_quantity(ref.get("divisor", "1"))
        if q is None:
            q = self.cpus if what == "cpu" else 16 * 1024**3
        val = parse_quantity(q) / divisor
        return str(int(math.ceil(val)))

    def memory_limit(self, c: _Container) -> float | None:
        lim = (c.spec.get("resources") or {}).get("limits") or {}
        return parse_quantity(lim["memory"]) if "memory" in lim else None

    # ------------------------------------------------------------------ volumes
    def _mount_volumes(self, now: float) -> bool:
        ok = True
        for v in self.spec.get("volumes") or []:
            err = None
            if "configMap" in v:
                src = v["configMap"]
                if self.env.configmap(self.namespace, src.get("name", "")) is None and not src.get("optional"):
                    err = M.MSG_CONFIGMAP_NOT_FOUND.format(name=src.get("name", ""))
            elif "secret" in v:
                src = v["secret"]
                if self.env.secret(self.namespace, src.get("secretName", "")) is None and not src.get("optional"):
                    err = M.MSG_SECRET_NOT_FOUND.format(name=src.get("secretName", ""))
            if err is None:
                continue
            ok = False
            name = v.get("name", "")
            delay = self.mount_retry.get(name, 0.0)
            delay = MOUNT_RETRY_INITIAL if delay == 0 else min(delay * 2, MOUNT_RETRY_MAX)
            self._emit(now, "Warning", M.REASON_FAILED_MOUNT, M.MSG_MOUNT_SETUP_FAILED.format(volume=name, error=err))
            self.mount_retry[name] = delay
            self._request_sync(now + delay)
        return ok

    def _read_file(self, c: _Container, path: str) -> str | None:
        if path in c.fs:
            return c.fs[path]
        for vm in c.spec.get("volumeMounts") or []:
            mp = str(vm.get("mountPath", "")).rstrip("/")
            if not path.startswith(mp + "/"):
                continue
            rel = path[len(mp) + 1 :]
            if vm.get("subPath"):
                continue
            vol = next((v for v in self.spec.get("volumes") or [] if v.get("name") == vm.get("name")), None)
            if vol is None:
                return None
            data: dict[str, str] | None = None
            items = None
            if "configMap" in vol:
                data = self.env.configmap(self.namespace, vol["configMap"].get("name", ""))
                items = vol["configMap"].get("items")
            elif "secret" in vol:
                data = self.env.secret(self.namespace, vol["secret"].get("secretName", ""))
                items = vol["secret"].get("items")
            elif "emptyDir" in vol:
                return None
            if data is None:
                return None
            if items:
                for it in items:
                    if it.get("path") == rel:
                        return data.get(it.get("key", ""))
                return None
            return data.get(rel)
        return _IMAGE_FILES.get(path)

    # ------------------------------------------------------------------ running programs
    def _resume(self, c: _Container, t: float) -> None:
        prog = c.program
        if prog is None:
            return
        for _ in range(100000):
            try:
                act = prog.send(c.send)
            except StopIteration:
                self._exit(c, t, 0, M.REASON_TERMINATED_COMPLETED)
                return
            c.send = None
            if isinstance(act, busybox.Output):
                self._log(c, t, act.stream, act.text)
            elif isinstance(act, busybox.Sleep):
                c.wake_at = None if math.isinf(act.seconds) else t + act.seconds
                return
            elif isinstance(act, busybox.Now):
                c.send = t
            elif isinstance(act, busybox.ReadFile):
                c.send = self._read_file(c, act.path)
            elif isinstance(act, busybox.Connect):
                res = self._connect(act)
                c.send = res
                if res.outcome == "timeout":
                    wait = act.timeout if act.timeout else (WGET_DEFAULT_TIMEOUT if act.kind == "wget" else math.inf)
                    c.wake_at = None if math.isinf(wait) else t + wait
                    return
            elif isinstance(act, busybox.Allocate):
                c.memory += act.nbytes
                limit = self.memory_limit(c)
                if limit is not None and c.memory > limit:
                    self._exit(c, t, 137, M.REASON_OOM_KILLED)
                    return
            elif isinstance(act, busybox.Release):
                c.memory = max(BASE_MEMORY, c.memory - act.nbytes)
            elif isinstance(act, busybox.Listen):
                c.listeners[act.port] = act.protocol
            elif isinstance(act, busybox.Busy):
                c.busy = True
                c.wake_at = None
                return
            elif isinstance(act, busybox.Unmodelled):
                c.unmodelled = act.reason
                if act.reason not in self.unmodelled:
                    self.unmodelled.append(act.reason)
                c.wake_at = None
                return
            elif isinstance(act, busybox.Exit):
                reason = M.REASON_TERMINATED_COMPLETED if act.code == 0 else M.REASON_TERMINATED_ERROR
                self._exit(c, t, act.code, reason)
                return
        raise RuntimeError("program made no progress in virtual time")

    def _connect(self, act: busybox.Connect) -> busybox.ConnectResult:
        local = act.host in ("127.0.0.1", "localhost", "::1", self.pod_ip, self._hostname())
        if not local:
            return self.env.connect(self.namespace, act)
        addr = self.pod_ip if act.host in (self.pod_ip, self._hostname()) else "127.0.0.1"
        proto = self.listening(act.port)
        if proto is None:
            return busybox.ConnectResult("refused", addr)
        if act.kind == "nc":
            return busybox.ConnectResult("ok", addr)
        owner = next(c for c in self.all() if c.state == "running" and act.port in c.listeners)
        ans = images.http_answer(owner.info.repository if owner.info else "", proto, act.path)
        if not ans.answered:
            return busybox.ConnectResult("timeout", addr)
        return busybox.ConnectResult("ok", addr, ans.status, ans.reason, ans.body)

    def _log(self, c: _Container, t: float, stream: str, text: str) -> None:
        buf = c.partial.get(stream, "") + text
        *lines, rest = buf.split("\n")
        for ln in lines:
            c.logs.append(LogLine(t, stream, ln + "\n"))
        c.partial[stream] = rest

    def _flush(self, c: _Container, t: float) -> None:
        for stream, rest in c.partial.items():
            if rest:
                c.logs.append(LogLine(t, stream, rest))
        c.partial = {}

    def _terminated_dict(self, c: _Container, code: int, reason: str, started: float, finished: float,
                         message: str = "", **_: Any) -> dict[str, Any]:
        d: dict[str, Any] = {"containerID": c.container_id, "exitCode": code, "finishedAt": self.fmt(finished),
                             "reason": reason, "startedAt": self.fmt(started), "_finished": finished}
        if message:
            d["message"] = message
        if reason == M.REASON_START_ERROR:
            d["startedAt"] = self.fmt(0.0)
        return d

    def _exit(self, c: _Container, t: float, code: int, reason: str) -> None:
        self._flush(c, t)
        if c.program is not None:
            c.program.close()
        c.program = None
        c.wake_at = None
        c.kill_at = None
        c.state = "terminated"
        c.terminated = self._terminated_dict(c, code, reason, c.started_at or t, t)
        c.ready = False
        c.started = False
        c.probes = []
        c.listeners = {}
        c.busy = False
        self._request_sync(t + PLEG_DELAY)
        self._check_finished()

    def _kill(self, c: _Container, t: float, message: str, grace: float) -> None:
        if c.state != "running" or c.kill_at is not None:
            return
        self._emit(t, "Normal", M.REASON_KILLING, message, c)
        graceful = c.info is not None and c.info.default in ("pause", "nginx", "server") and c.program is not None
        c.kill_reason = "graceful" if graceful else "sigkill"
        c.kill_at = t if graceful else t + grace

    # ------------------------------------------------------------------ probes
    def _run_probe(self, c: _Container, p: _Probe, t: float) -> None:
        p.next_at = t + p.period
        if p.kind != "Startup" and not c.started:
            return
        if p.kind == "Startup" and c.started:
            return
        ok, output = self._probe_once(c, p, t)
        if ok:
            p.successes += 1
            p.failures = 0
            if p.successes >= p.success_threshold and p.kind != "Startup" and self._always_answers(c, p):
                p.next_at = math.inf  # a server image's listener answers the same forever: nothing to observe
            if p.successes >= p.success_threshold:
                if p.kind == "Readiness":
                    c.ready = True
                elif p.kind == "Startup":
                    c.started = True
                    c.ready = not any(q.kind == "Readiness" for q in c.probes)
            return
        p.failures += 1
        p.successes = 0
        self._emit(t, "Warning", M.REASON_UNHEALTHY, M.MSG_PROBE_FAILED.format(probe=p.kind, output=output), c)
        if p.failures < p.failure_threshold:
            return
        if p.kind == "Readiness":
            c.ready = False
            return
        p.failures = 0
        msg = (M.MSG_KILLING_LIVENESS if p.kind == "Liveness" else M.MSG_KILLING_STARTUP).format(name=c.name)
        grace = float(p.spec.get("terminationGracePeriodSeconds", self.grace))
        self._kill(c, t, msg, grace)

    @staticmethod
    def _always_answers(c: _Container, p: _Probe) -> bool:
        """True when the probed container runs an image's built-in server (``images._serve``: it listens on
        fixed ports and never exits or changes its answers), so a passing httpGet/tcpSocket probe passes on
        every later period too. Skipping those periods changes nothing a client can see (a passing probe
        emits nothing) and keeps the system pods' 1-second probes from waking the clock every second."""
        code = getattr(c.program, "gi_code", None)
        return code is images.SERVE_CODE and ("httpGet" in p.spec or "tcpSocket" in p.spec)

    def _probe_once(self, c: _Container, p: _Probe, t: float) -> tuple[bool, str]:
        spec = p.spec
        if "exec" in spec:
            cmd = list(spec["exec"].get("command") or [])
            info = c.info or images.CATALOG["docker.io/library/busybox"]
            env = self._container_env(c)
            prog = images.program_for(info, cmd, env=env if isinstance(env, dict) else {},
                                      hostname=self._hostname(), fs=c.fs)
            if prog is None:
                return False, M.MSG_EXEC_NOT_FOUND.format(name=cmd[0] if cmd else "")
            out: list[str] = []
            elapsed = 0.0
            send: object = None
            code = 0
            for _ in range(100000):
                try:
                    act = prog.send(send)
                except StopIteration:
                    break
                send = None
                if isinstance(act, busybox.Output):
                    out.append(act.text)
                elif isinstance(act, busybox.Sleep):
                    elapsed += act.seconds
                elif isinstance(act, busybox.Now):
                    send = t + elapsed
                elif isinstance(act, busybox.ReadFile):
                    send = self._read_file(c, act.path)
                elif isinstance(act, busybox.Connect):
                    send = self._connect(act)
                    if send.outcome == "timeout":  # type: ignore[union-attr]
                        elapsed += act.timeout or p.timeout + 1
                elif isinstance(act, busybox.Exit):
                    code = act.code
                    break
                elif isinstance(act, busybox.Busy | busybox.Unmodelled):
                    if isinstance(act, busybox.Unmodelled) and act.reason not in self.unmodelled:
                        self.unmodelled.append(act.reason)
                    elapsed = math.inf
                if elapsed > p.timeout:
                    prog.close()
                    return False, M.MSG_EXEC_PROBE_TIMEOUT.format(command=" ".join(cmd))
            return code == 0, "".join(out)
        port_spec = (spec.get("httpGet") or spec.get("tcpSocket") or spec.get("grpc") or {}).get("port")
        port = self._resolve_port(c, port_spec)
        if "httpGet" in spec:
            hg = spec["httpGet"]
            path = hg.get("path", "/")
            scheme = str(hg.get("scheme", "HTTP")).lower()
            host = hg.get("host") or self.pod_ip
            url = f"{scheme}://{host}:{port}{path}"
            proto = self.listening(port) if port else None
            if proto is None:
                return False, M.MSG_HTTP_PROBE_REFUSED.format(url=url, ip=host, port=port)
            owner = next(x for x in self.all() if x.state == "running" and port in x.listeners)
            ans = images.http_answer(owner.info.repository if owner.info else "", proto, path)
            if not ans.answered:
                return False, M.MSG_HTTP_PROBE_TIMEOUT.format(url=url)
            if 200 <= ans.status < 400:
                return True, ""
            return False, M.MSG_HTTP_PROBE_STATUS.format(code=ans.status)
        if "tcpSocket" in spec:
            host = spec["tcpSocket"].get("host") or self.pod_ip
            if port and self.listening(port) is not None:
                return True, ""
            return False, M.MSG_TCP_PROBE_REFUSED.format(ip=host, port=port)
        if "unmodelled: grpc probe" not in self.unmodelled:
            self.unmodelled.append("unmodelled: grpc probe")
        return False, ""

    def _resolve_port(self, c: _Container, port: object) -> int:
        if isinstance(port, int):
            return port
        if isinstance(port, str) and port.isdigit():
            return int(port)
        for cp in c.spec.get("ports") or []:
            if cp.get("name") == port:
                return int(cp.get("containerPort", 0))
        return 0

    # ------------------------------------------------------------------ deletion
    def terminate(self, now: float, grace: float | None = None) -> list[KubeletEvent]:
        """Graceful deletion: stop every container (Killing events); ``finished`` once all stopped."""
        self.step(now)
        start = len(self.events)
        self.deleting = True
        self.sync_task = None
        self.sync_wake = None
        self.sync_at = self.requeue_at = None
        g = self.grace if grace is None else grace
        for c in self.all():
            if c.state == "running":
                self._kill(c, now, M.MSG_KILLING_STOPPING.format(name=c.name), g)
        self._check_finished()
        return self.events[start:]

    def _check_finished(self) -> None:
        if self.deleting and all(c.state != "running" for c in self.all()):
            self.finished = True

    # ------------------------------------------------------------------ status
    def _terminal(self) -> bool:
        return self.phase() in ("Succeeded", "Failed")

    def phase(self) -> str:
        if self.init_containers:
            for c in self.init_containers:
                if c.state == "terminated" and c.terminated and c.terminated["exitCode"] == 0:
                    continue
                if c.state == "terminated" and self.restart_policy == "Never":
                    return "Failed"
                return "Pending"
        running = stopped = succeeded = waiting = 0
        for c in self.containers:
            if c.state == "running":
                running += 1
            elif c.state == "terminated":
                stopped += 1
                if c.terminated and c.terminated["exitCode"] == 0:
                    succeeded += 1
            elif c.last_terminated is not None:
                stopped += 1
            else:
                waiting += 1
        if waiting > 0:
            return "Pending"
        if running > 0:
            return "Running"
        if stopped > 0:
            if self.restart_policy == "Always":
                return "Running"
            if stopped == succeeded:
                return "Succeeded"
            if self.restart_policy == "OnFailure":
                return "Running"
            return "Failed"
        return "Pending"

    def _set_condition(self, ctype: str, status: str, now: float, reason: str = "", message: str = "") -> None:
        old = self.conditions.get(ctype)
        ltt = old["_t"] if old and old["status"] == status else now
        d: dict[str, Any] = {"type": ctype, "status": status, "_t": ltt}
        if reason:
            d["reason"] = reason
        if message:
            d["message"] = message
        self.conditions[ctype] = d

    def status(self, now: float | None = None, scheduled: dict[str, Any] | None = None) -> dict[str, Any]:
        """The pod's status as the kubelet writes it (the PodScheduled condition is passed through)."""
        now = self.now if now is None else now
        phase = self.phase()
        terminal = phase in ("Succeeded", "Failed")
        sandbox = self.sandbox_ready and not terminal and not self.finished
        self._set_condition("PodReadyToStartContainers", "True" if sandbox else "False", now)
        # Initialized
        incomplete = [c.name for c in self.init_containers
                      if not (c.state == "terminated" and c.terminated and c.terminated["exitCode"] == 0)]
        any_regular_started = any(c.ever_ran for c in self.containers)
        if terminal and phase == "Succeeded":
            self._set_condition("Initialized", "True", now, M.REASON_POD_COMPLETED)
        elif incomplete and not any_regular_started:
            self._set_condition("Initialized", "False", now, M.REASON_CONTAINERS_NOT_INITIALIZED,
                                M.MSG_INCOMPLETE_CONTAINERS.format(names=" ".join(incomplete)))
        else:
            self._set_condition("Initialized", "True", now)
        # ContainersReady / Ready
        unready = [c.name for c in self.containers if not c.ready]
        if terminal:
            reason = M.REASON_POD_COMPLETED if phase == "Succeeded" else M.REASON_POD_FAILED
            self._set_condition("ContainersReady", "False", now, reason)
            self._set_condition("Ready", "False", now, reason)
        elif unready:
            msg = M.MSG_UNREADY_CONTAINERS.format(names=" ".join(unready))
            self._set_condition("ContainersReady", "False", now, M.REASON_CONTAINERS_NOT_READY, msg)
            self._set_condition("Ready", "False", now, M.REASON_CONTAINERS_NOT_READY, msg)
        else:
            self._set_condition("ContainersReady", "True", now)
            self._set_condition("Ready", "True", now)
        conds: list[dict[str, Any]] = []
        for ctype in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"):
            d = dict(self.conditions[ctype])
            t = d.pop("_t")
            conds.append({"lastProbeTime": None, "lastTransitionTime": self.fmt(t), **{
                k: d[k] for k in ("message", "reason", "status", "type") if k in d}})
        if scheduled is not None:
            conds.append(scheduled)
        else:
            conds.append({"lastProbeTime": None, "lastTransitionTime": self.fmt(self.start_time),
                          "status": "True", "type": "PodScheduled"})
        st: dict[str, Any] = {
            "conditions": conds,
            "containerStatuses": sorted((self._container_status(c) for c in self.containers), key=lambda d: d["name"]),
            "hostIP": self.host_ip,
            "hostIPs": [{"ip": self.host_ip}],
            "phase": phase,
            "qosClass": self.qos_class(),
            "startTime": self.fmt(self.start_time),
        }
        if self.init_containers:
            st["initContainerStatuses"] = [self._container_status(c) for c in self.init_containers]
        if self.sandbox_ready:
            st["podIP"] = self.pod_ip
            st["podIPs"] = [{"ip": self.pod_ip}]
        return st

    def _container_status(self, c: _Container) -> dict[str, Any]:
        d: dict[str, Any] = {"name": c.name}
        if c.container_id:
            d["containerID"] = c.container_id
        d["image"] = c.image_name
        d["imageID"] = c.image_id
        d["lastState"] = {"terminated": _public(c.last_terminated)} if c.last_terminated else {}
        d["ready"] = c.ready
        res = c.spec.get("resources") or {}
        if res.get("requests") or res.get("limits"):
            if res.get("requests"):
                d["allocatedResources"] = dict(res["requests"])
            d["resources"] = {k: dict(v) for k, v in res.items() if k in ("limits", "requests") and v}
        d["restartCount"] = c.restart_count
        d["started"] = c.started
        shown = self.shown_reasons.get(c.name)
        if c.state == "running":
            d["state"] = {"running": {"startedAt": self.fmt(c.started_at or 0.0)}}
        elif c.state == "terminated" and c.terminated is not None:
            if shown is not None and self._will_restart(c):
                # kubelet_pods.go convertToAPIContainerStatuses: a container the next sync restarts, with a
                # cached start failure, is Waiting; its exit moves to lastState
                d["lastState"] = {"terminated": _public(c.terminated)}
                d["state"] = {"waiting": _waiting(*shown)}
            else:
                d["state"] = {"terminated": _public(c.terminated)}
        elif shown is not None:
            d["state"] = {"waiting": _waiting(*shown)}
        else:
            d["state"] = {"waiting": _waiting(c.waiting_reason, c.waiting_message)}
        if c.ever_ran:
            d["user"] = {"linux": {"gid": 0, "supplementalGroups": [0, 10], "uid": 0}}
        mounts = []
        for vm in c.spec.get("volumeMounts") or []:
            m = {"mountPath": vm.get("mountPath"), "name": vm.get("name")}
            if vm.get("readOnly"):
                m["readOnly"] = True
                m["recursiveReadOnly"] = "Disabled"
            mounts.append(m)
        if mounts:
            d["volumeMounts"] = mounts
        return d

    def _will_restart(self, c: _Container) -> bool:
        """kubecontainer.ShouldContainerBeRestarted for an exited container."""
        if self.deleting or self.restart_policy == "Never":
            return False
        if self.restart_policy == "OnFailure":
            return bool(c.terminated and c.terminated.get("exitCode") != 0)
        return True

    def qos_class(self) -> str:
        reqs: list[dict[str, Any]] = []
        lims: list[dict[str, Any]] = []
        for c in self.all():
            r = c.spec.get("resources") or {}
            reqs.append(r.get("requests") or {})
            lims.append(r.get("limits") or {})
        if not any(reqs) and not any(lims):
            return "BestEffort"
        for c, rq, lm in zip(self.all(), reqs, lims, strict=True):
            if c.init:
                continue
            for res in ("cpu", "memory"):
                if res not in lm:
                    return "Burstable"
                if parse_quantity(rq.get(res, lm[res])) != parse_quantity(lm[res]):
                    return "Burstable"
        return "Guaranteed"


def _waiting(reason: str, message: str) -> dict[str, Any]:
    return {"reason": reason, "message": message} if message else {"reason": reason}


def _public(d: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (d or {}).items() if not k.startswith("_")}


# files every busybox-like image has, for cat/test -f
_IMAGE_FILES: dict[str, str] = {
    "/etc/os-release": 'NAME="BusyBox"\n',
    "/etc/passwd": "root:x:0:0:root:/root:/bin/sh\n",
    "/etc/group": "root:x:0:\n",
    "/etc/resolv.conf": "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\n"
                        "options ndots:5\n",
}
