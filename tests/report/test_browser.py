"""report.html in a real browser: headless Chromium, no network.

The page has no script and its Content-Security-Policy (`default-src 'none'`) forbids one, so what
Chromium renders here is what a reader with JavaScript disabled sees. (Chromium's own
`--blink-settings=scriptEnabled=false` cannot be used: `--dump-dom` then prints nothing.)

Why: golden HTML proves the bytes; only a browser proves the page renders as a table with its
NOT SCORED cells and working drill-downs. Skipped, with the reason, only where no Chromium binary
exists (Debian's `chromium` package; .ci/run installs it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_simian.report import write_outputs

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium binary on PATH (apt-get install -y chromium)")


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def test_rendered_dom_has_the_table_a_not_scored_cell_and_drill_downs(run_dir: Path, tmp_path: Path) -> None:
    write_outputs(run_dir)
    page = (run_dir / "report.html").as_uri()
    proc = _chromium(tmp_path, "--dump-dom", page)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert '<table class="scorecard" id="scorecard-table">' in dom
    assert re.search(r'<tr id="row-quiet">.*?class="notscored[^"]*".*?NOT SCORED — settle probe', dom, re.S)
    drill = re.findall(r'<details class="attempt" id="attempt-(\w+)">', dom)
    assert len(drill) == 6
    assert "<summary>" in dom and "Efficacy evidence" in dom


def test_screenshot_renders(run_dir: Path, tmp_path: Path) -> None:
    write_outputs(run_dir)
    shot = tmp_path / "shot.png"
    proc = _chromium(tmp_path, "--window-size=1400,1000", f"--screenshot={shot}", (run_dir / "report.html").as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000  # a rendered page, not a blank one
