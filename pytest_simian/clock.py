"""The one module that reads the host clock.

Why: scoring must be pure and tests must never race the wall, so every other module receives times
from here (or from a fake in tests). Must not: be imported by `scoring/` or `pack/`.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime


def wall_now() -> datetime:
    """The host's current time, UTC."""
    return datetime.now(UTC)


def monotonic() -> float:
    """Seconds on a monotonic clock, for deadlines."""
    return time.monotonic()


def iso(dt: datetime) -> str:
    """RFC 3339 with microseconds and a Z, the form every artifact uses."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_iso(text: str) -> datetime:
    """Inverse of :func:`iso` (also accepts offsets)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
