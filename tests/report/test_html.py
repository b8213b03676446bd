"""report.html: golden output for a small hand-written run, and the rendering rules it must keep."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from pytest_simian.report import write_outputs
from pytest_simian.report.html import REPORT_FILE, render_html
from pytest_simian.report.load import load_run
from tests.report.conftest import golden
from tests.report.runs import golden_attempts, write_run


def _cells(html: str, scenario: str) -> list[str]:
    """The `<td>` elements (markup included) of one scorecard row."""
    row = re.search(rf'<tr id="row-{scenario}">(.*?)</tr>', html, re.S)
    assert row, f"no row for {scenario}"
    return re.findall(r"<td.*?</td>", row.group(1), re.S)


def test_golden_report(run_dir: Path) -> None:
    golden("report.html", render_html(load_run(run_dir)))


def test_rendering_is_deterministic_and_names_no_path(tmp_path: Path) -> None:
    a = render_html(load_run(write_run(tmp_path / "one")))
    b = render_html(load_run(write_run(tmp_path / "two")))
    assert a == b
    assert str(tmp_path) not in a


def test_write_outputs_writes_the_report_next_to_run_json(run_dir: Path) -> None:
    assert write_outputs(run_dir) == ""
    assert (run_dir / REPORT_FILE).read_text(encoding="utf-8") == render_html(load_run(run_dir))


def test_self_contained_no_network_no_script(run_dir: Path) -> None:
    html = render_html(load_run(run_dir))
    assert "<script" not in html.lower()
    assert "<link" not in html.lower()
    assert not re.search(r"\bsrc=", html)
    assert "http://" not in html and "https://" not in html
    assert "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html


def test_everything_from_the_artifacts_is_escaped(run_dir: Path) -> None:
    html = render_html(load_run(run_dir))
    assert "&amp; report &lt;what&gt; you find." in html
    assert "<what>" not in html
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html and "<b>" not in html
    assert "Waiting: &lt;ImagePullBackOff&gt;" in html


def test_the_page_is_well_formed(run_dir: Path) -> None:
    class Checker(HTMLParser):
        VOID = {"meta", "br", "hr", "img", "input", "link"}

        def __init__(self) -> None:
            super().__init__()
            self.stack: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag not in self.VOID:
                self.stack.append(tag)

        def handle_endtag(self, tag: str) -> None:
            assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
            self.stack.pop()

    c = Checker()
    c.feed(render_html(load_run(run_dir)))
    assert c.stack == []


def test_not_scored_is_not_measured_never_a_zero(run_dir: Path) -> None:
    html = render_html(load_run(run_dir))
    (cell,) = [c for c in _cells(html, "quiet") if "notscored" in c]
    assert 'colspan="4"' in cell
    assert 'NOT SCORED — settle probe &#34;docs quiet&#34; timed out after 60s' in cell
    assert not re.search(r"\d\.\d\d", cell)
    # and it is outside the agent's means: hallucinated_fault over 2 attempts, not 3
    assert "0.00 (n=2)" in html


def test_header_has_cluster_efficacy_and_refusal(tmp_path: Path) -> None:
    html = render_html(load_run(write_run(tmp_path / "ok")))
    assert '<dd id="cluster">embedded (emulated v1.33)</dd>' in html
    assert "5/6 attempts manifested = 0.83 (minimum 0.80)" in html
    assert 'id="refusal"' not in html
    refused = render_html(load_run(write_run(tmp_path / "refused", min_efficacy=0.9)))
    assert ('<p class="refusal" id="refusal">REFUSED: efficacy 0.83 &lt; 0.90 — the numbers above are '
            "unmeasured, not poor</p>") in refused


def test_floor_column_marked_and_cells_below_it_flagged(run_dir: Path) -> None:
    html = render_html(load_run(run_dir))
    assert 'lookout <span class="tag floor">floor</span>' in html
    agent = _cells(html, "checkout")[4:]
    assert len(agent) == 4 and all("below its own tool" in c for c in agent)
    assert not any("below its own tool" in c for c in _cells(html, "checkout")[:4])
    # nightly root_cause is not graded: nothing to be below
    assert "below its own tool" not in _cells(html, "nightly")[7]


def test_without_a_floor_nothing_is_flagged(tmp_path: Path) -> None:
    html = render_html(load_run(write_run(tmp_path / "run", floor=None)))
    assert "below its own tool" not in html
    assert 'class="tag floor"' not in html


def test_drill_down_marks_matched_missed_and_charged(run_dir: Path) -> None:
    html = render_html(load_run(run_dir))
    agent = re.search(r'<details class="attempt" id="attempt-a000000000002">(.*?)</details>\n', html, re.S)
    assert agent
    body = agent.group(1)
    assert '<span class="mark-missed">missed</span>' in body
    assert '<span class="mark-charged">charged</span>: family oom was not injected' in body
    assert '<span class="mark-out-of-scope">out of scope</span>' in body
    assert "<strong>write</strong>" in body and "verb=delete" in body
    assert '<a href="transcripts/a000000000002.jsonl">' in body
    assert "checkout landed" in body and "2.5s" in body
    assert "time to report</dt><dd>7.5s" in body
    lookout = re.search(r'id="attempt-a000000000001">(.*?)</details>\n', html, re.S)
    assert lookout and '<span class="mark-matched">matched</span> Pod/checkout-api' in lookout.group(1)


def test_every_attempt_has_a_drill_down(run_dir: Path) -> None:
    html = render_html(load_run(run_dir))
    for aid, *_ in golden_attempts():
        assert f'<details class="attempt" id="attempt-{aid}">' in html
        assert f'href="#attempt-{aid}"' in html
