"""pytest-simian's hook wiring.

Why: the plugin is inert unless a `--simian-*` option asks for work; when it does, this module turns
packs into items, runs each item's lifecycle through the `simian_attempt` fixture, and prints the
scorecard read back from the run's artifacts. `--simian-offline` is handled before collection.
Must not: hold logic of its own beyond wiring (see session.py, lifecycle.py, collect.py, scoring/).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_simian import hookspecs
from pytest_simian.collect import PackCollector, ScenarioItem
from pytest_simian.errors import HarnessError, PackError, SimianError
from pytest_simian.lifecycle import Attempt, clear, new_attempt_id, run_until_verdict
from pytest_simian.options import addoptions, parse_options
from pytest_simian.pack.loader import load_packs
from pytest_simian.pack.models import BUILTIN_ENGINE
from pytest_simian.record.artifacts import new_run_dir
from pytest_simian.record.rescore import COMPARE_FILE, REPORT_ERROR_FILE, finalize_run, rescore_offline
from pytest_simian.scoring.outcomes import ERROR, FAILED, SKIPPED
from pytest_simian.session import (
    ClusterManager,
    RunState,
    now_iso,
    open_audit,
    select_scenarios,
    worker_id,
)
from pytest_simian.subjects.base import Subject, default_name, parse_subject_option

STATE = pytest.StashKey[RunState]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    addoptions(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    run_dir = config.getoption("simian_offline", None)
    if not run_dir:
        return None
    if config.getoption("simian_pack"):
        sys.stderr.write("ERROR: --simian-offline rescoring takes no --simian-pack: it uses the "
                         "expectations stored in the run\n")
        return pytest.ExitCode.USAGE_ERROR
    compare = config.getoption("simian_compare")
    if compare:
        from pytest_simian.report.compare import check_compare_dir

        why = check_compare_dir(Path(compare))
        if why:
            sys.stderr.write(f"ERROR: {why}\n")
            return pytest.ExitCode.USAGE_ERROR
    return rescore_offline(Path(run_dir), out_root=Path(config.getoption("simian_out")), write=sys.stdout.write,
                           compare_to=Path(compare) if compare else None)


# --------------------------------------------------------------------------- built-in subjects


class BuiltinSubjects:
    """Provides the `noop:`, `exec:`, `lookout:`, `sre-agent:` and `replay:` schemes through the public hook."""

    @pytest.hookimpl(trylast=True)
    def pytest_simian_make_subject(self, name: str, scheme: str, rest: str, spec: str,
                                   config: pytest.Config) -> Subject | None:
        from pytest_simian.subjects.builtin import ExecSubject, NoopSubject

        if scheme == "noop":
            if rest.strip():
                raise PackError(f"--simian-subject {spec!r}: noop takes no arguments")
            return NoopSubject(name, spec)
        if scheme == "exec":
            return ExecSubject(name, spec, rest)
        if scheme == "lookout":
            from pytest_simian.subjects.lookout import LookoutSubject

            return LookoutSubject(name, spec, rest)
        if scheme == "sre-agent":
            from pytest_simian.subjects.sre_agent import SreAgentSubject

            return SreAgentSubject(name, spec, rest)
        if scheme == "replay":
            from pytest_simian.subjects.replay import ReplaySubject

            return ReplaySubject(name, spec, rest)
        return None


def _build_subjects(config: pytest.Config, specs: list[str]) -> list[Subject]:
    if not specs:
        specs = ["noop:"]
    subjects: list[Subject] = []
    for text in specs:
        opt = parse_subject_option(text)
        name = opt.name or default_name(opt.scheme, opt.rest)
        if any(s.name == name for s in subjects):
            raise PackError(f"two subjects are named {name!r}; name them with NAME=SPEC")
        subject = config.hook.pytest_simian_make_subject(name=name, scheme=opt.scheme, rest=opt.rest,
                                                          spec=opt.spec, config=config)
        if subject is None:
            raise PackError(f"--simian-subject {text!r}: no plugin provides the scheme {opt.scheme!r}")
        subjects.append(subject)
    return subjects


# --------------------------------------------------------------------------- configure


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(BuiltinSubjects(), "simian-builtin-subjects")
    from pytest_simian.engines.kube_state import KubeStateEngine

    config.pluginmanager.register(KubeStateEngine(), "simian-kube-state")
    config.addinivalue_line("markers", "simian: a pytest-simian scenario attempt")
    config.addinivalue_line("markers", "control: a scenario that expects nothing (healthy control)")
    config.addinivalue_line("markers", "fault: a scenario that injects a fault and expects findings")
    if config.getoption("simian_offline", None):
        return
    try:
        _configure(config)
    except SimianError as exc:
        raise pytest.UsageError(str(exc)) from None


def _configure(config: pytest.Config) -> None:
    opts = parse_options(config)
    if not opts.active:
        return
    if opts.cluster == "kind":
        raise PackError("--simian-cluster=kind is not available in this version (no Docker engine runs kind "
                        "here); use sim, or current with --simian-context")
    if opts.cluster == "current" and not opts.context:
        raise PackError("--simian-cluster=current needs --simian-context NAME (safe by default: name the "
                        "cluster you mean to break)")
    engines = {BUILTIN_ENGINE}
    for names in config.hook.pytest_simian_engines(config=config):
        engines.update(names or [])
    packs = load_packs(opts.packs, engines=engines)
    selected = select_scenarios(packs, opts.only)
    drivers = {}
    for sel in selected:
        for i, fault in enumerate(sel.scenario.faults):
            if fault.engine not in drivers:
                driver = config.hook.pytest_simian_fault_driver(engine=fault.engine, config=config)
                if driver is None:
                    raise PackError(f"no driver is installed for engine {fault.engine!r} (scenario "
                                    f"{sel.scenario.id!r}); this version does not apply {fault.engine} faults yet",
                                    file=sel.pack.where(sel.scenario.id), field=f"faults[{i}].engine")
                drivers[fault.engine] = driver
            try:
                drivers[fault.engine].check(fault, sel.scenario)
            except PackError as exc:
                raise PackError(exc.detail, file=sel.pack.where(sel.scenario.id),
                                field=f"faults[{i}]" + (f".{exc.field}" if exc.field else "")) from None
            budget = sel.scenario.settle_seconds + opts.subject_timeout
            if fault.duration_seconds < budget and not opts.allow_short_faults:
                raise PackError(f"fault lease {fault.duration} is shorter than the settle deadline plus the "
                                f"subject timeout ({budget:g}s): the reaper would clear it mid-investigation "
                                "and that would read as a remediation. Use --simian-allow-short-faults to "
                                "accept the measurement out loud", file=sel.pack.where(sel.scenario.id),
                                field=f"faults[{i}].duration")
    subjects = _build_subjects(config, opts.subjects)
    if opts.floor and opts.floor not in [s.name for s in subjects]:
        raise PackError(f"--simian-floor {opts.floor!r} names no subject (subjects: "
                        + ", ".join(s.name for s in subjects) + ")")
    for sel in selected:
        for tag in sel.scenario.tags:
            config.addinivalue_line("markers", f"{tag}: scenario tag")
    worker = worker_id(config)
    is_controller = worker == "main"
    wi = getattr(config, "workerinput", None)
    if wi is not None:
        run_dir = Path(wi["simian_run_dir"])
    else:
        run_dir = new_run_dir(opts.out, _now()).resolve()
    audit = open_audit(run_dir, worker)
    state = RunState(options=opts, packs=packs, selected=selected, subjects=subjects, drivers=drivers,
                     run_dir=run_dir, worker=worker, audit=audit,
                     cluster=ClusterManager(opts, run_dir, audit), is_controller=is_controller,
                     started_at=now_iso())
    state.run_doc = state.run_document()
    if is_controller:
        state.write_run_json(state.run_doc)
    config.stash[STATE] = state
    if config.pluginmanager.hasplugin("xdist") and is_controller:
        config.pluginmanager.register(_XdistController(run_dir), "simian-xdist")
    # With --simian-pack and no paths on the command line, collect only the scenarios.
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args[:] = []
    _install_sigterm()


def _now():  # type: ignore[no-untyped-def]
    from pytest_simian import clock

    return clock.wall_now()


def _install_sigterm() -> None:
    """SIGTERM becomes KeyboardInterrupt, so teardown clears the faults as it does on Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, handler)


class _XdistController:
    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["simian_run_dir"] = str(self.run_dir)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    state = config.stash.get(STATE, None)
    if state is None:
        return None
    o = state.options
    where = {"sim": "the embedded cluster (started when the first scenario needs it)",
             "current": f"REAL CLUSTER: kubeconfig context {o.context!r}",
             "kind": "a throwaway kind cluster"}[o.cluster]
    n = len(state.selected)
    return [f"simian: {n} scenario{'s' if n != 1 else ''} × {len(state.subjects)} subject(s) on {where}",
            f"simian: run directory {state.run_dir}"]


# --------------------------------------------------------------------------- collection


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    rep = yield
    if isinstance(collector, pytest.Session):
        state = collector.config.stash.get(STATE, None)
        if state is not None and rep.outcome == "passed":
            for lp in state.packs:
                scenarios = [s.scenario for s in state.selected if s.pack is lp]
                if scenarios:
                    rep.result.append(PackCollector.from_parent(collector, name=f"simian:{lp.pack.name}",
                                                                nodeid=f"simian:{lp.pack.name}",
                                                                loaded=lp, scenarios=scenarios,
                                                                subjects=state.subjects))
    return rep


# --------------------------------------------------------------------------- running


class AttemptHandle:
    """What the scenario item's body sees: the verdict to apply."""

    def __init__(self, attempt: Attempt) -> None:
        self.attempt = attempt

    def conclude(self) -> None:
        v = self.attempt.verdict
        assert v is not None
        if v.outcome == FAILED:
            pytest.fail(v.message, pytrace=False)


def _live_progress(config: pytest.Config) -> Any:
    """A callback that prints a line to the terminal now, past output capture (shown with -v)."""
    tr = config.pluginmanager.get_plugin("terminalreporter")
    capman = config.pluginmanager.get_plugin("capturemanager")

    def say(line: str) -> None:
        if tr is None:
            return
        if capman is not None:
            with capman.global_and_fixture_disabled():
                tr.write_line(f"    simian: {line}")
        else:
            tr.write_line(f"    simian: {line}")

    return say


@pytest.fixture
def simian_attempt(request: pytest.FixtureRequest) -> AttemptHandle:
    """Runs one attempt's lifecycle up to its verdict; clears its faults at teardown."""
    item = request.node
    if not isinstance(item, ScenarioItem):
        raise pytest.UsageError("simian_attempt is only for pytest-simian scenario items")
    state = request.config.stash[STATE]
    att = Attempt(new_attempt_id(), item.scenario, item.subject, item.nodeid, state)
    item.simian_attempt_id = att.attempt_id  # type: ignore[attr-defined]

    def teardown() -> None:
        with state.audit.attempt(att.attempt_id, att.scenario.id):
            clear(att)

    # On the item, not the fixture: pytest skips a fixture's finalizers when its setup was interrupted
    # (Ctrl-C, SIGTERM), and that is exactly when the faults must still be cleared.
    request.node.addfinalizer(teardown)
    if request.config.get_verbosity() > 0:
        att.on_progress = _live_progress(request.config)
    with state.audit.attempt(att.attempt_id, att.scenario.id):
        verdict = run_until_verdict(att)
    if verdict.outcome == SKIPPED:
        pytest.skip(verdict.message)
    if verdict.outcome == ERROR:
        raise HarnessError(verdict.message)
    return AttemptHandle(att)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    rep = yield
    if isinstance(item, ScenarioItem):
        aid = getattr(item, "simian_attempt_id", None)
        if aid:
            rep.simian_attempt = {"attempt_id": aid, "scenario_id": item.scenario.id,
                                  "subject": item.subject.name, "nodeid": item.nodeid, "when": rep.when,
                                  "outcome": rep.outcome}
        if call.excinfo is not None and isinstance(call.excinfo.value, SimianError) and rep.failed:
            rep.longrepr = str(call.excinfo.value)
    return rep


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    info = getattr(report, "simian_attempt", None)
    if not info:
        return
    config = getattr(report, "config", None)
    state = _controller_state
    if state is None:
        return
    entry = state.attempts.setdefault(info["attempt_id"], {
        "scenario_id": info["scenario_id"], "subject": info["subject"], "nodeid": info["nodeid"]})
    entry[info["when"]] = info["outcome"]
    del config


_controller_state: RunState | None = None


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    global _controller_state
    state = session.config.stash.get(STATE, None)
    _controller_state = state if state is not None and state.is_controller else None


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # trylast: after pytest's runner has run pending teardowns (faults cleared after Ctrl-C or SIGTERM),
    # so the audit log and the cluster are still open while they do.
    global _controller_state
    state = session.config.stash.get(STATE, None)
    if state is None:
        return
    try:
        state.cluster.close()
    finally:
        state.audit.close()
    if not state.is_controller:
        return
    evaluation, text = finalize_run(state.run_dir, state.run_doc, state.attempts, int(exitstatus),
                                    ended_at=now_iso(), compare_to=state.options.compare)
    state.scorecard_text = text
    session.exitstatus = evaluation.exit_status(int(exitstatus))
    _controller_state = None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is None or not state.is_controller or state.scorecard_text is None:
        return
    terminalreporter.section("simian scorecard")
    for line in state.scorecard_text.rstrip("\n").split("\n"):
        terminalreporter.write_line(line)
    compare = state.run_dir / COMPARE_FILE
    if compare.is_file():
        for line in compare.read_text(encoding="utf-8").rstrip("\n").split("\n"):
            terminalreporter.write_line(line)
    if (state.run_dir / REPORT_ERROR_FILE).is_file():
        terminalreporter.write_line(f"report not written: see {state.run_dir / REPORT_ERROR_FILE}")
    terminalreporter.write_line(f"report: {state.run_dir / 'report.html'}")
    terminalreporter.write_line(f"artifacts: {state.run_dir}")
