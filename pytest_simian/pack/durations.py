"""Go-style durations (`30s`, `5m`, `1h30m`, `2m0s`) as packs write them.

Why: the Go Simian's FaultManifest writes durations this way and pack authors copy from it.
Must not: accept a bare number (ambiguous unit) or a negative value.
"""

from __future__ import annotations

import re

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds in a Go-style duration string; ValueError with the offending text otherwise."""
    s = str(text).strip()
    if not s:
        raise ValueError("empty duration")
    pos = 0
    total = 0.0
    for m in _PART.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT[m.group(2)]
        pos = m.end()
    if pos != len(s):
        raise ValueError(f"{text!r} is not a duration like 30s, 5m or 1h30m")
    return total


def format_duration(seconds: float) -> str:
    """Shortest Go-style spelling of a whole number of seconds (`90` → `1m30s`)."""
    whole = int(round(seconds))
    h, rem = divmod(whole, 3600)
    m, s = divmod(rem, 60)
    out = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{s}s" if s or not (h or m) else "")
    return out
