"""pytest-simian's hook wiring.

Why: the plugin is inert unless a `--simian-*` option asks for work; when it does, this module turns
packs into items, runs each item's lifecycle through the `simian_attempt` fixture, and prints the
scorecard read back from the run's artifacts. `--simian-offline` is handled before collection.
Must not: hold logic of its own beyond wiring (see runstate.py, lifecycle.py, collect.py, finalize.py,
executor/, scoring/).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_simian import builtins, hookspecs
from pytest_simian.cluster.base import BackendSettings, ClusterBackend
from pytest_simian.cluster.manager import ClusterManager
from pytest_simian.collect import PackCollector, ScenarioItem
from pytest_simian.engines.base import Engine
from pytest_simian.errors import HarnessError, PackError, SimianError
from pytest_simian.executor import Executor, check_scenario, engine_catalog
from pytest_simian.finalize import COMPARE_FILE, REPORT_ERROR_FILE, finalize_run, rescore_offline
from pytest_simian.lifecycle import Attempt, clear, new_attempt_id, run_until_verdict
from pytest_simian.options import addoptions, parse_options
from pytest_simian.pack.loader import load_packs
from pytest_simian.record.artifacts import new_run_dir
from pytest_simian.runstate import RunState, now_iso, open_audit, select_scenarios, worker_id
from pytest_simian.scoring.outcomes import ERROR, FAILED, SKIPPED
from pytest_simian.subjects.base import Subject, default_name, parse_subject_option

STATE = pytest.StashKey[RunState]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)
    builtins.register(pluginmanager)


def registered_backends(pluginmanager: pytest.PytestPluginManager) -> dict[str, type[ClusterBackend]]:
    """Backend name → class, from every plugin registered so far; two with one name are refused."""
    found: dict[str, type[ClusterBackend]] = {}
    for group in pluginmanager.hook.pytest_simian_cluster_backends():
        for cls in group or []:
            if cls.name in found and found[cls.name] is not cls:
                raise PackError(f"two plugins provide the cluster backend {cls.name!r}")
            found[cls.name] = cls
    return found


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    backends = registered_backends(pluginmanager)
    addoptions(parser, [(name, cls.summary) for name, cls in backends.items()])


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


# --------------------------------------------------------------------------- subjects, engines, backends


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


def _engines(config: pytest.Config) -> dict[str, Engine]:
    engines: dict[str, Engine] = {}
    for group in config.hook.pytest_simian_engines(config=config):
        for engine in group or []:
            if not isinstance(engine, Engine) or not engine.name:
                raise PackError(f"a plugin returned {engine!r} from pytest_simian_engines: not a named Engine")
            if engine.name in engines:
                raise PackError(f"two plugins provide the engine {engine.name!r}")
            engines[engine.name] = engine
    return engines


def _backend(config: pytest.Config, name: str, settings: BackendSettings) -> type[ClusterBackend]:
    backends = registered_backends(config.pluginmanager)
    cls = backends.get(name)
    if cls is None:
        raise PackError(f"--simian-cluster={name}: no installed plugin provides that cluster backend "
                        f"(registered: {', '.join(sorted(backends)) or 'none'})")
    cls.check_settings(settings)
    return cls


def pytest_configure(config: pytest.Config) -> None:
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
    worker = worker_id(config)
    settings = BackendSettings(context=opts.context, keep=opts.keep, worker=worker)
    backend_cls = _backend(config, opts.cluster, settings)
    engines = _engines(config)
    packs = load_packs(opts.packs, catalog=engine_catalog(engines))
    selected = select_scenarios(packs, opts.only)
    catalog = engine_catalog(engines)
    for sel in selected:
        try:
            check_scenario(sel.scenario, engines, opts.executor, catalog)
        except PackError as exc:
            raise PackError(exc.detail, file=sel.pack.where(sel.scenario.id), field=exc.field) from None
        for i, fault in enumerate(sel.scenario.faults):
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
    is_controller = worker == "main"
    wi = getattr(config, "workerinput", None)
    if wi is not None:
        run_dir = Path(wi["simian_run_dir"])
    else:
        run_dir = new_run_dir(opts.out, _now()).resolve()
    audit = open_audit(run_dir, worker)
    cluster = ClusterManager(backend_cls.from_settings(settings), run_dir, audit)
    state = RunState(options=opts, packs=packs, selected=selected, subjects=subjects,
                     executor=Executor(engines, cluster, audit, opts.executor), run_dir=run_dir, worker=worker,
                     audit=audit, cluster=cluster, is_controller=is_controller, started_at=now_iso())
    state.run_doc = state.run_document().to_json()
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
    where = type(state.cluster.backend).target(BackendSettings(context=o.context, keep=o.keep, worker=state.worker))
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
        try:
            state.executor.close()  # faults interrupted attempts could not clear, holds, the reaper
        finally:
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
