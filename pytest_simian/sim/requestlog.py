"""The API request log: one JSON object per line, one line per request, in a file the harness names.

Why: on the embedded cluster a subject's requests are its trajectory; later scoring reads this file, so the
format is stable and documented in docs/request-log.md (version field ``v``).
Must not: record request or response bodies, or tokens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

FORMAT_VERSION = 1


class RequestLog:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._fh: IO[str] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = path.open("a", encoding="utf-8", buffering=1)

    def write(self, record: dict[str, Any]) -> None:
        if self._fh is None:
            return
        self._fh.write(json.dumps({"v": FORMAT_VERSION, **record}, separators=(",", ":")) + "\n")

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
