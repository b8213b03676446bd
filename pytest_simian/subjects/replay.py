"""The `replay:` subject: saved reports, returned by scenario id, for regrading and for tests.

Why: a report is evidence that exists once; replaying it through today's scoring (a new pack
version, a fixed expectation) must not need the agent, its tokens or its cluster again. Sources:
a directory of `<scenario-id>.json` files, one JSON file mapping scenario id → report, or a previous
run directory (its `reports/` joined through its audit log; `--subject NAME` picks the column when
the run had several). An attempt the previous run recorded as a subject error replays as that
subject error; one it never scored replays as a harness error (there is no answer to grade).
Must not: run anything, touch the cluster, or pass the scenario id to a process (the id often names
the fault; it reaches this adapter only through the SubjectContext).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_simian.errors import HarnessError, PackError, SubjectError
from pytest_simian.record.artifacts import ArtifactError, read_run
from pytest_simian.record.join import join
from pytest_simian.subjects.base import Subject, SubjectContext, SubjectResult, split_command


@dataclass(frozen=True)
class Saved:
    """One saved answer: a report, or the subject error the original attempt ended in."""

    report: Any = None
    subject_error: str | None = None
    unscored: str | None = None
    origin: str = ""


def _unwrap(doc: Any) -> Any:
    """Our own report file (`reports/<attempt>.json`) holds the report under `report`."""
    if isinstance(doc, dict) and "report" in doc and "attempt_id" in doc:
        return doc["report"]
    return doc


def load_directory(path: Path) -> dict[str, list[Saved]]:
    out: dict[str, list[Saved]] = {}
    for f in sorted(path.glob("*.json")):
        try:
            doc = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise PackError(f"replay: {f}: not JSON: {exc}") from None
        out[f.stem] = [Saved(report=_unwrap(doc), origin=str(f))]
    if not out:
        raise PackError(f"replay: {path} holds no <scenario-id>.json files")
    return out


def load_mapping(path: Path) -> dict[str, list[Saved]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PackError(f"replay: {path}: not JSON: {exc}") from None
    if not isinstance(doc, dict) or not doc:
        raise PackError(f"replay: {path}: expected a JSON object mapping scenario id to report")
    out: dict[str, list[Saved]] = {}
    for sid, value in doc.items():
        reports = value if isinstance(value, list) else [value]
        out[str(sid)] = [Saved(report=_unwrap(r), origin=f"{path}#{sid}") for r in reports]
    return out


def load_run(path: Path, subject: str | None) -> tuple[dict[str, list[Saved]], dict[str, str]]:
    """A previous run's answers per scenario, in attempt order; and its scenario prompts (id → prompt)."""
    try:
        arts = read_run(path)
    except ArtifactError as exc:
        raise PackError(f"replay: {exc}") from None
    records = join(arts.events, arts.reports, arts.report_problems)
    subjects = sorted({r.subject for r in records.values() if r.subject})
    if subject is None:
        if len(subjects) > 1:
            raise PackError(f"replay: {path} has reports from several subjects ({', '.join(subjects)}); "
                            "choose one with --subject NAME")
        subject = subjects[0] if subjects else ""
    elif subject not in subjects:
        raise PackError(f"replay: {path} has no subject {subject!r} (it has {', '.join(subjects) or 'none'})")
    out: dict[str, list[Saved]] = {}
    for rec in sorted(records.values(), key=lambda r: (r.started_at, r.attempt_id)):
        if rec.subject != subject or not rec.scenario_id:
            continue
        origin = f"{path.name}/{rec.attempt_id}"
        if rec.subject_error is not None:
            saved = Saved(subject_error=rec.subject_error, origin=origin)
        elif rec.report_file and rec.report_problem is None and rec.report_received_at:
            saved = Saved(report=rec.report, origin=origin)
        else:
            why = rec.report_problem or rec.harness_error or rec.inject_error or rec.not_valid or "no report"
            saved = Saved(unscored=why, origin=origin)
        out.setdefault(rec.scenario_id, []).append(saved)
    prompts = {sid: str(e.get("prompt", "")) for sid, e in (arts.run.get("scenarios") or {}).items()
               if isinstance(e, Mapping)}
    return out, prompts


class ReplaySubject(Subject):
    """`replay:<dir or file> [--subject NAME]`."""

    scheme = "replay"

    def __init__(self, name: str, spec: str, rest: str) -> None:
        super().__init__(name, spec)
        words = split_command(spec, rest)
        subject: str | None = None
        if len(words) == 3 and words[1] == "--subject":
            subject = words[2]
        elif len(words) == 2 and words[1].startswith("--subject="):
            subject = words[1].split("=", 1)[1]
        elif len(words) != 1:
            raise PackError(f"--simian-subject {spec!r}: expected replay:<dir or file> [--subject NAME]")
        path = Path(words[0]).expanduser()
        self.prompts: dict[str, str] = {}
        if (path / "run.json").is_file():
            self.saved, self.prompts = load_run(path, subject)
        elif subject is not None:
            raise PackError(f"--simian-subject {spec!r}: --subject only applies to a run directory")
        elif path.is_dir():
            self.saved = load_directory(path)
        elif path.is_file():
            self.saved = load_mapping(path)
        else:
            raise PackError(f"--simian-subject {spec!r}: {path} does not exist")
        self._served: dict[str, int] = {}

    def scenario_id(self, ctx: SubjectContext) -> str:
        sid = str(getattr(ctx, "scenario_id", "") or "")
        if sid:
            return sid
        # Older harness without SubjectContext.scenario_id: a run directory knows its prompts.
        matches = [s for s, p in self.prompts.items() if p and p == ctx.prompt]
        if len(matches) == 1:
            return matches[0]
        raise HarnessError("replay: the harness did not pass the scenario id (SubjectContext.scenario_id)",
                           stage="subject")

    def investigate(self, ctx: SubjectContext) -> SubjectResult:
        sid = self.scenario_id(ctx)
        answers = self.saved.get(sid)
        if not answers:
            raise SubjectError(f"replay: no saved report for scenario {sid!r}")
        n = self._served.get(sid, 0)
        self._served[sid] = n + 1
        saved = answers[n % len(answers)]
        if saved.subject_error is not None:
            raise SubjectError(f"replayed subject error ({saved.origin}): {saved.subject_error}")
        if saved.unscored is not None:
            raise HarnessError(f"replay: the saved attempt {saved.origin} has no report to grade: {saved.unscored}",
                               stage="subject")
        return SubjectResult(report=saved.report, exit_code=0, extra={"replayed_from": saved.origin})
