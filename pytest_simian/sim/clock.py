"""The embedded cluster's virtual clock: the one place in ``sim/`` that reads the host clock.

Why: a crash loop must be observable in seconds, not minutes, without timestamps or messages lying. Cluster
time is virtual: frozen and moved by :meth:`VirtualClock.advance` while a fault settles, following the host
clock while a subject investigates. Objects store virtual timestamps; everything the API renders is shifted
(:meth:`VirtualClock.render`) so that "now" reads as the host's now and every interval is the nominal one.
A pod that crash-looped for five virtual minutes shows a creationTimestamp five minutes before the host's now.
Controllers and the kubelet wait with :meth:`VirtualClock.sleep`, which wakes on virtual time.
Must not: be reachable over HTTP by a subject (the harness drives it through the child process's stdin pipe,
see ``process.py``); sleep on the host clock on behalf of callers.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any

_TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")

_CLIENT_DATA = frozenset({"annotations", "labels", "data", "stringData", "binaryData"})
"""Keys whose values clients write and read back verbatim: a timestamp there is the client's, not the cluster's,
and must round-trip unchanged (the harness writes lease expiries into annotations)."""

_SYSTEM_LEASE_NAMESPACES = frozenset({"kube-node-lease", "kube-system"})


def _client_written_lease(obj: dict[str, Any]) -> bool:
    """A Lease written by a client (not a node heartbeat or a control-plane election): its spec times are the
    client's own and round-trip unchanged."""
    spec = obj.get("spec")
    meta = obj.get("metadata")
    if not isinstance(spec, dict) or not isinstance(meta, dict) or "holderIdentity" not in spec:
        return False
    return obj.get("kind", "Lease") == "Lease" and meta.get("namespace") not in _SYSTEM_LEASE_NAMESPACES


def format_time(dt: datetime) -> str:
    """RFC 3339 at seconds precision, as metav1.Time marshals."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_micro_time(dt: datetime) -> str:
    """metav1.MicroTime (events.k8s.io eventTime, lease renewTime)."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(s: str) -> datetime:
    if "." in s:
        head, frac = s[:-1].split(".", 1)  # Go writes up to nine fractional digits; datetime keeps six
        return datetime.strptime(f"{head}.{frac[:6]}Z", "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


class VirtualClock:
    """Virtual time, realtime or frozen.

    ``virtual_now = base_virtual + (host_now - base_host if realtime else 0)``. It starts realtime and equal
    to the host clock, so with no harness interaction the cluster behaves like a real one.
    """

    def __init__(self, *, realtime: bool = True, host: Any = time.time) -> None:
        self._host = host
        now = host()
        self._base_virtual = now
        self._base_host = now
        self._realtime = realtime
        self._changed: asyncio.Event | None = None
        self._deadlines: list[float] = []  # virtual times sleepers wait for (see next_deadline)

    # -- reading ---------------------------------------------------------------------------------------------
    def timestamp(self) -> float:
        """Virtual now as POSIX seconds."""
        if self._realtime:
            return self._base_virtual + (self._host() - self._base_host)
        return self._base_virtual

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.timestamp(), UTC)

    def now_str(self) -> str:
        return format_time(self.now())

    def now_micro(self) -> str:
        return format_micro_time(self.now())

    @property
    def realtime(self) -> bool:
        return self._realtime

    def shift(self) -> float:
        """Whole seconds to add to a virtual timestamp to render it (host now minus virtual now, floored, so a
        rendered instant is never later than its nominal place and clients never see a negative age)."""
        if self._realtime:  # exact: no float noise when the clock never left the host's
            return float(math.floor(self._base_host - self._base_virtual))
        return float(math.floor(self._host() - self._base_virtual))

    # -- driving (harness only) ------------------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self._rebase()
        self._base_virtual += seconds
        self._notify()

    def set_realtime(self, realtime: bool) -> None:
        self._rebase()
        self._realtime = realtime
        self._notify()

    def _rebase(self) -> None:
        self._base_virtual = self.timestamp()
        self._base_host = self._host()

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    # -- waiting ---------------------------------------------------------------------------------------------
    async def sleep(self, seconds: float) -> None:
        """Wait until virtual time has moved `seconds` forward."""
        deadline = self.timestamp() + max(0.0, seconds)
        self._deadlines.append(deadline)
        try:
            await self._sleep_until(deadline)
        finally:
            self._deadlines.remove(deadline)

    def next_deadline(self) -> float | None:
        """The earliest virtual time a sleeper waits for, or None (lets the harness step time event by event)."""
        return min(self._deadlines) if self._deadlines else None

    async def _sleep_until(self, deadline: float) -> None:
        while True:
            remaining = deadline - self.timestamp()
            if remaining <= 0:
                return
            if self._changed is None:
                self._changed = asyncio.Event()
            changed = self._changed
            try:
                if self._realtime:
                    await asyncio.wait_for(changed.wait(), remaining)
                else:
                    await changed.wait()
            except TimeoutError:
                pass

    # -- rendering -------------------------------------------------------------------------------------------
    def render_time(self, s: str, shift: float | None = None) -> str:
        sh = self.shift() if shift is None else shift
        if sh == 0:
            return s
        if "." not in s:
            return format_time(parse_time(s) + timedelta(seconds=sh))
        head, frac = s.split(".", 1)  # the shift is whole seconds: keep the fraction verbatim, any precision
        return format_time(parse_time(head + "Z") + timedelta(seconds=sh))[:-1] + "." + frac

    def render(self, obj: Any) -> Any:
        """Return `obj` with every RFC 3339 timestamp string shifted to host time. Identity when the clock has
        not drifted from the host (the common case), so rendering costs nothing then."""
        sh = self.shift()
        if sh == 0:
            return obj
        return self._render(obj, sh)

    def _render(self, obj: Any, sh: float) -> Any:
        if isinstance(obj, dict):
            if _client_written_lease(obj):
                return {k: (v if k == "spec" else self._render(v, sh)) for k, v in obj.items()}
            return {k: (v if k in _CLIENT_DATA else self._render(v, sh)) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._render(v, sh) for v in obj]
        if isinstance(obj, str) and len(obj) >= 20 and obj[4] == "-" and _TS.match(obj):
            return self.render_time(obj, sh)
        return obj
