"""Human-readable durations, byte-for-byte as Kubernetes prints them.

Why this exists: every AGE, LAST SEEN, DURATION and "RESTARTS (2m ago)" cell the
simulated API server sends has to read exactly like a real API server's, or a
subject can tell the cluster is fake. Upstream computes them with
``k8s.io/apimachinery/pkg/util/duration`` (``HumanDuration`` and
``ShortHumanDuration``); this module is a transliteration of that file,
including Go's integer truncation and its tolerance for small negative skews.

What it must not do: read the clock, or do any I/O. Callers pass a ``timedelta``
(usually ``now - timestamp`` with ``now`` taken from the simulated clock).
"""

from __future__ import annotations

from datetime import timedelta

__all__ = ["human_duration", "short_human_duration"]

_NS_PER_US = 1_000
_NS_PER_S = 1_000_000_000
_NS_PER_MIN = 60 * _NS_PER_S
_NS_PER_H = 60 * _NS_PER_MIN


def _nanoseconds(d: timedelta | float | int) -> int:
    """A Go ``time.Duration`` (int64 nanoseconds) for ``d``.

    ``timedelta`` is exact to the microsecond; plain numbers are seconds.
    """
    if isinstance(d, timedelta):
        return (d // timedelta(microseconds=1)) * _NS_PER_US
    return int(d * _NS_PER_S)


def _trunc_div(a: int, b: int) -> int:
    """Go integer division: truncates toward zero (Python's ``//`` floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def short_human_duration(d: timedelta | float | int) -> str:
    """``duration.ShortHumanDuration``: one unit, e.g. ``5s``, ``3m``, ``2h``, ``4d``, ``1y``."""
    ns = _nanoseconds(d)
    seconds = _trunc_div(ns, _NS_PER_S)  # int(d.Seconds())
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60:
        return f"{seconds}s"
    minutes = _trunc_div(ns, _NS_PER_MIN)  # int(d.Minutes())
    if minutes < 60:
        return f"{minutes}m"
    hours = _trunc_div(ns, _NS_PER_H)  # int(d.Hours())
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    # int(d.Hours()/24/365): float division, then truncation.
    return f"{int(ns / _NS_PER_H / 24 / 365)}y"


def human_duration(d: timedelta | float | int) -> str:
    """``duration.HumanDuration``: ~2-3 significant figures, e.g. ``2m40s``, ``3h15m``, ``2d5h``."""
    ns = _nanoseconds(d)
    seconds = _trunc_div(ns, _NS_PER_S)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = ns // _NS_PER_MIN  # non-negative from here on
    if minutes < 10:
        s = (ns // _NS_PER_S) % 60
        if s == 0:
            return f"{minutes}m"
        return f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = ns // _NS_PER_H
    if hours < 8:
        m = (ns // _NS_PER_MIN) % 60
        if m == 0:
            return f"{hours}h"
        return f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        if h == 0:
            return f"{hours // 24}d"
        return f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        if dy == 0:
            return f"{hours // 24 // 365}y"
        return f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"
