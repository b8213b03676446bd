"""`--simian-compare`: per scenario and subject, score deltas, newly missed, newly charged, newly not scored."""

from __future__ import annotations

from pathlib import Path

from pytest_simian.finalize import COMPARE_FILE, rescore_offline
from pytest_simian.report.compare import check_compare_dir, compare_dirs, render_compare_text
from pytest_simian.report.html import render_html
from pytest_simian.report.load import load_run
from tests.foundation.conftest import GOOD_REPORT, Rig, scenario
from tests.report.runs import finding, golden_attempts, write_run


def _new_attempts() -> list[tuple[str, str, str, str, object]]:
    pull = finding("Pod", "checkout-api-7d9f", "shop", "ImagePullBackOff")
    job = finding("Job", "nightly", "batch", "BackoffLimitExceeded", "warning")
    return [
        ("b000000000001", "checkout", "lookout", "report", {"overall_severity": "critical", "summary": "s",
                                                           "findings": []}),
        ("b000000000002", "checkout", "agent", "report", {"overall_severity": "critical", "summary": "s",
                                                         "findings": [pull]}),
        ("b000000000003", "quiet", "lookout", "report", {"overall_severity": "ok", "summary": "all fine"}),
        ("b000000000004", "quiet", "agent", "report", {"overall_severity": "ok", "summary": "fine"}),
        ("b000000000005", "nightly", "lookout", "report",
         {"overall_severity": "warning", "summary": "s",
          "findings": [job, finding("Pod", "nightly-x", "batch", "OOMKilled", "warning")]}),
        ("b000000000006", "nightly", "agent", "inject_error", None),
    ]


def test_compare_text(tmp_path: Path) -> None:
    old = write_run(tmp_path / "old")
    new = write_run(tmp_path / "new", _new_attempts())
    text = render_compare_text(compare_dirs(old, new))
    assert text == (
        "compared with old:\n"
        "  efficacy 0.83 → 0.83 (+0.00)\n"
        "  checkout [lookout]  outcome passed → failed\n"
        "                      fault_recall 1.00 → 0.00 (-1.00)\n"
        "                      root_cause 1.00 → 0.00 (-1.00)\n"
        "                      newly missed Pod/checkout-api\n"
        "  checkout [agent]  outcome failed → passed\n"
        "                    fault_recall 0.00 → 1.00 (+1.00)\n"
        "                    hallucinated_fault 0.00 → 1.00 (+1.00)\n"
        "                    fault_severity 0.67 → 1.00 (+0.33)\n"
        "                    root_cause 0.00 → 1.00 (+1.00)\n"
        "  quiet [agent]  outcome skipped → passed\n"
        "                 newly scored (was not scored)\n"
        "  nightly [lookout]  outcome passed → failed\n"
        "                     hallucinated_fault 1.00 → 0.50 (-0.50)\n"
        "                     newly charged OOMKilled(Pod/nightly-x) (family oom)\n"
        "  nightly [agent]  outcome failed → skipped\n"
        '                   newly NOT SCORED — settle probe "docs quiet" timed out after 60s (last output "")\n'
        "  1 cell unchanged\n"
    )


def test_compare_section_in_the_report(tmp_path: Path) -> None:
    old = write_run(tmp_path / "old")
    new = write_run(tmp_path / "new", _new_attempts())
    html = render_html(load_run(new), compare_dirs(old, new))
    assert '<section id="compare">' in html
    assert "<li>newly charged OOMKilled(Pod/nightly-x) (family oom)</li>" in html
    assert "<li>newly NOT SCORED — settle probe &#34;docs quiet&#34;" in html
    assert '<section id="compare">' not in render_html(load_run(new))


def test_a_run_compared_with_itself_has_no_changes(run_dir: Path) -> None:
    cmp = compare_dirs(run_dir, run_dir)
    assert cmp.changes == [] and cmp.unchanged == len(golden_attempts())


def test_cells_only_in_one_run(tmp_path: Path) -> None:
    old = write_run(tmp_path / "old", golden_attempts()[:2])
    new = write_run(tmp_path / "new", golden_attempts()[1:3])
    text = render_compare_text(compare_dirs(old, new))
    assert "  quiet [lookout]  new in this run (passed)\n" in text
    assert "  checkout [lookout]  not in this run (was passed)\n" in text


def test_an_unreadable_old_run_is_said_not_raised(tmp_path: Path, run_dir: Path) -> None:
    (tmp_path / "junk").mkdir()
    text = render_compare_text(compare_dirs(tmp_path / "junk", run_dir))
    assert text.startswith("compared with junk:\n  cannot compare: ") and "no run.json" in text
    assert check_compare_dir(tmp_path / "junk") is not None
    assert check_compare_dir(run_dir) is None


def test_offline_rescoring_prints_and_writes_the_comparison(tmp_path: Path) -> None:
    old = write_run(tmp_path / "old")
    new = write_run(tmp_path / "new", _new_attempts())
    out: list[str] = []
    rescore_offline(new, out_root=tmp_path / "out", write=out.append, compare_to=old)
    printed = "".join(out)
    assert "compared with old:\n" in printed and "newly charged OOMKilled(Pod/nightly-x)" in printed
    (dest,) = (tmp_path / "out").iterdir()
    assert (dest / COMPARE_FILE).read_text(encoding="utf-8") == render_compare_text(compare_dirs(old, new))
    assert '<section id="compare">' in (dest / "report.html").read_text(encoding="utf-8")


def test_live_run_writes_no_comparison_unless_asked(rig: Rig) -> None:
    good = rig.reporting("good.sh", GOOD_REPORT)
    pack = rig.pack([scenario("checkout", "shop")])
    rig.run(f"--simian-pack={pack}", f"--simian-subject=good=exec:{good}")
    (live,) = rig.runs()
    assert not (live / COMPARE_FILE).exists()
    assert (live / "report.html").is_file() and (live / "simian-junit.xml").is_file()
