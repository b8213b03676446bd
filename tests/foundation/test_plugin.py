"""The plugin end to end, through pytester, with the test-only fake engine on its in-memory cluster."""

from __future__ import annotations

import json

import pytest

from .conftest import GOOD_REPORT, Rig, scenario, table

SHORT = "--simian-allow-short-faults"


def test_inert_without_simian_options(rig: Rig) -> None:
    rig.pytester.makepyfile("def test_plain():\n    assert True\n")
    rig.pack([scenario("shop")])
    result = rig.run("-q")
    result.assert_outcomes(passed=1)
    assert not (rig.path / "simian-runs").exists()
    assert "simian scorecard" not in result.stdout.str()


def test_one_item_per_scenario_and_subject_with_stable_node_ids(rig: Rig) -> None:
    pack = rig.pack([scenario("shop"), scenario("docs", expect=[])])
    result = rig.run(f"--simian-pack={pack}", "--simian-subject=noop:", "--simian-subject=b=noop:",
                     "--collect-only", "-q")
    out = result.stdout.str()
    for nodeid in ("simian:demo::shop[noop]", "simian:demo::shop[b]", "simian:demo::docs[noop]",
                   "simian:demo::docs[b]"):
        assert nodeid in out


def test_only_scenarios_are_collected_when_no_paths_are_given(rig: Rig) -> None:
    rig.pytester.makepyfile("def test_plain():\n    assert True\n")
    pack = rig.pack([scenario("docs", expect=[])])
    result = rig.run(f"--simian-pack={pack}", "-q")
    result.assert_outcomes(passed=1)
    assert "test_plain" not in result.stdout.str()


def test_outcome_table(rig: Rig) -> None:
    agent = rig.reporting("agent", GOOD_REPORT)
    pack = rig.pack([
        scenario("shop"),  # scored, gate holds
        scenario("nv", faults=[{"engine": "fake", "kind": "T", "namespace": "nv",
                                "params": {"not_valid_on": "memory"}}]),
        scenario("inj", faults=[{"engine": "fake", "kind": "T", "namespace": "inj", "params": {"raise": "inject"}}],
                 settle_timeout="1s"),
        scenario("before", "down-before", faults=[{"engine": "fake", "kind": "T", "namespace": "down-before"}]),
        scenario("noeff", faults=[{"engine": "fake", "kind": "T", "namespace": "noeff",
                                   "params": {"efficacy": "none"}}]),
        scenario("clr", "stuck-clr", faults=[{"engine": "fake", "kind": "T", "namespace": "stuck-clr"}]),
    ])
    result = rig.run(f"--simian-pack={pack}", f"--simian-subject=agent=exec:{agent}", SHORT, "-rA",
                     "--simian-min-efficacy=0")
    out = result.stdout.str()
    result.assert_outcomes(passed=1, failed=1, skipped=2, errors=3)
    assert "NOT VALID ON memory — the memory cluster serves no Widget in example.com/v1" in out
    assert "NOT SCORED — executor[settle:efficacy-failed]: settle probe" in out
    assert "NOT SCORED — the arena could not be prepared: 0: connection refused: the cluster went away" in out
    assert "NOT SCORED — no passing efficacy record: fault 0 has no efficacy record" in out
    assert "is held by a finalizer that never finishes" in out  # teardown error of `clr`
    run = rig.run_json()
    outcomes = {v["scenario_id"]: v["outcome"] for v in run["attempts"].values()}
    # `clr` is scored (its finding names another namespace, so it fails) and also errors in teardown
    assert outcomes == {"shop": "passed", "nv": "skipped", "inj": "skipped", "before": "error",
                        "noeff": "error", "clr": "failed"}
    # efficacy: 2 manifested of 5 attempted (the not-valid one is outside both)
    assert run["efficacy"] == {"attempts": 6, "not_valid": 1, "manifested": 2, "rate": 0.4, "refused": False}


def test_harness_error_after_efficacy_is_an_error_not_a_zero(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    rig.pytester.makeconftest(rig.pytester.path.joinpath("conftest.py").read_text() + '''

class Broken:
    @pytest.hookimpl(tryfirst=True)
    def pytest_simian_make_subject(self, name, scheme, rest, spec, config):
        if scheme != "broken":
            return None
        from pytest_simian.subjects.base import Subject
        from pytest_simian.errors import HarnessError

        class S(Subject):
            def investigate(self, ctx):
                raise HarnessError("lookout exited 2: usage error (our adapter is wrong)")
        return S(name, spec)


def pytest_configure(config):
    config.pluginmanager.register(Broken())
''')
    result = rig.run(f"--simian-pack={pack}", "--simian-subject=broken=broken:x", SHORT)
    result.assert_outcomes(errors=1)
    assert "HARNESS ERROR — lookout exited 2: usage error (our adapter is wrong)" in result.stdout.str()
    run = rig.run_json()
    assert run["efficacy"]["manifested"] == 1
    card = (rig.runs()[-1] / "scorecard.txt").read_text()
    assert "shop [broken]  HARNESS ERROR — lookout exited 2" in card


def test_subject_error_is_a_hard_zero_that_counts(rig: Rig) -> None:
    crash = rig.subject("crash", "echo 'about to fail' >&2\nexit 3\n")
    pack = rig.pack([scenario("shop"), scenario("docs", expect=[])])
    result = rig.run(f"--simian-pack={pack}", f"--simian-subject=exec:{crash}", SHORT, "--simian-gate=none")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "SUBJECT ERROR — exited 3: about to fail" in out
    card = (rig.runs()[-1] / "scorecard.txt").read_text()
    # every measure its skip rule does not skip is 0; recall is skipped on the control
    assert table(card, "fault_recall") == {"docs": ["–"], "shop": ["0.00!"], "mean": ["0.00 (n=1)"]}
    assert table(card, "hallucinated_fault") == {"docs": ["0.00!"], "shop": ["0.00!"], "mean": ["0.00 (n=2)"]}
    assert table(card, "fault_severity")["mean"] == ["0.00 (n=2)"]


@pytest.mark.parametrize(("min_eff", "gate", "expected"), [
    ("0.8", None, 1),      # 1/2 manifested < 0.8: refused even though nothing failed
    ("0.5", None, 0),
    ("0.5", "none", 0),
])
def test_exit_status_raised_when_efficacy_below_minimum(rig: Rig, min_eff: str, gate: str | None,
                                                        expected: int) -> None:
    pack = rig.pack([
        scenario("docs", expect=[]),
        scenario("inj", expect=[], faults=[{"engine": "fake", "kind": "T", "namespace": "inj",
                                            "params": {"raise": "inject"}}], settle_timeout="1s"),
    ])
    args = [f"--simian-pack={pack}", SHORT, f"--simian-min-efficacy={min_eff}"]
    if gate:
        args.append(f"--simian-gate={gate}")
    result = rig.run(*args)
    assert result.ret == expected
    lines = result.stdout.str().splitlines()
    refusal = "REFUSED: efficacy 0.50 < 0.80 — the numbers above are unmeasured, not poor"
    if expected:
        assert refusal in lines
    else:
        assert refusal not in lines


def test_gate_none_measures_only_and_thresholds_gate(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    assert rig.run(f"--simian-pack={pack}", SHORT).ret == 1          # noop misses: gate fails
    assert rig.run(f"--simian-pack={pack}", SHORT, "--simian-gate=none").ret == 0
    assert rig.run(f"--simian-pack={pack}", SHORT, "--simian-gate=hallucinated_fault>=1").ret == 0
    bad = rig.run(f"--simian-pack={pack}", SHORT, "--simian-gate=recall>=1")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "is not MEASURE>=X" in bad.stderr.str()


def test_gate_failure_message_is_diff_like(rig: Rig) -> None:
    wrong = dict(GOOD_REPORT, findings=[dict(GOOD_REPORT["findings"][0], reason="CrashLoopBackOff")])
    agent = rig.reporting("agent", wrong)
    pack = rig.pack([scenario("shop", "shop")])
    result = rig.run(f"--simian-pack={pack}", f"--simian-subject=exec:{agent}", SHORT)
    out = result.stdout.str()
    assert "diagnosis gate failed: fault_recall 0.00 < 1; hallucinated_fault 0.00 < 1" in out
    assert "- missed Pod/checkout-api ImagePullBackOff|ErrImagePull" in out
    assert "+ charged CrashLoopBackOff(Pod/checkout-api-7d9f4b6c8-x2k9): family crash-loop was not injected" in out


@pytest.mark.parametrize(("bad", "message"), [
    ({"severity": "warning"}, "a control (expect: []) must have severity ok"),
    ({"also_true": ["CrashLoopBackOff"]}, "may not carry also_true"),
])
def test_control_rules_are_refused_at_load(rig: Rig, bad: dict[str, str], message: str) -> None:
    sc = scenario("docs", expect=[])
    sc.update(bad)
    pack = rig.pack([sc])
    result = rig.run(f"--simian-pack={pack}", SHORT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert "docs.yaml" in result.stderr.str()


def test_also_true_must_name_a_family(rig: Rig) -> None:
    pack = rig.pack([scenario("shop", also_true=["Pending"])])
    result = rig.run(f"--simian-pack={pack}", SHORT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "also_true entry 'Pending' names no failure family" in result.stderr.str()


def test_malformed_pack_names_file_line_and_field(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    f = rig.path / "demo" / "shop.yaml"
    f.write_text(f.read_text().replace("min_severity: warning", "min_severity: loud"))
    result = rig.run(f"--simian-pack={pack}", SHORT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    line = next(i for i, t in enumerate(f.read_text().splitlines(), 1) if "min_severity" in t)
    assert f"shop.yaml:{line} expect[0].min_severity:" in err


@pytest.mark.parametrize(("fault", "message"), [
    ({"engine": "fake", "kind": "Nope"}, "unknown fake kind 'Nope' (known: Thing, T)"),
    ({"engine": "teapot", "kind": "Overbrewed"}, "unknown engine 'teapot' (installed: fake, kube-state)"),
    ({"engine": "kube-state", "kind": "Manifests"}, "kind Manifests needs a non-empty `manifests` list"),
])
def test_engines_and_kinds_are_checked_against_the_registered_catalogue_at_load(
        rig: Rig, fault: dict[str, str], message: str) -> None:
    pack = rig.pack([scenario("shop", faults=[{**fault, "namespace": "shop"}])])
    result = rig.run(f"--simian-pack={pack}", SHORT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = (rig.path / "demo" / "shop.yaml").read_text().splitlines()
    line = next(i for i, t in enumerate(text, 1) if t.strip().startswith("- kind:") or "engine:" in t)
    err = result.stderr.str()
    assert f"shop.yaml:{line} faults[0]: {message}" in err, err


def test_cmd_probes_and_unknown_modes_are_refused_with_a_reason(rig: Rig) -> None:
    sc = scenario("shop")
    sc["faults"][0]["probes"] = [{"name": "x", "type": "cmd", "command": "tc qdisc"}]
    pack = rig.pack([sc])
    result = rig.run(f"--simian-pack={pack}", SHORT)
    assert "probe type 'cmd' is deliberately not implemented" in result.stderr.str()
    sc["faults"][0]["probes"] = [{"name": "x", "type": "k8s", "resource": "pods", "jsonpath": "{.items}",
                                  "contains": "a", "mode": "Continuous"}]
    pack = rig.pack([sc])
    result = rig.run(f"--simian-pack={pack}", SHORT)
    assert "probe mode 'Continuous' is not implemented" in result.stderr.str()


def test_leaking_prompt_is_refused(rig: Rig) -> None:
    pack = rig.pack([scenario("shop", "fault-imagepull")])
    result = rig.run(f"--simian-pack={pack}", SHORT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "the prompt leaks the diagnosis: it contains failure family 'image-pull'" in result.stderr.str()


def test_unknown_only_id_is_refused_before_anything_runs(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    result = rig.run(f"--simian-pack={pack}", SHORT, "--simian-only=shop,shpo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--simian-only names 'shpo'" in result.stderr.str()
    assert not rig.runs()


def test_duplicate_scenario_ids_across_packs_are_refused(rig: Rig) -> None:
    a = rig.pack([scenario("shop")], name="a")
    b = rig.pack([scenario("shop")], name="b")
    result = rig.run(f"--simian-pack={a},{b}", SHORT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "scenario id 'shop' is in pack 'a' and pack 'b'" in result.stderr.str()


@pytest.mark.parametrize(("spec", "message"), [
    ("exec:./missing-agent", "does not exist"),
    ("exec:no-such-program-anywhere", "is not on PATH"),
    ("mystery:x", "no plugin provides the scheme 'mystery'"),
    ("agent", "expected [NAME=]SCHEME:SPEC"),
])
def test_bad_subject_specs_are_usage_errors(rig: Rig, spec: str, message: str) -> None:
    pack = rig.pack([scenario("shop")])
    result = rig.run(f"--simian-pack={pack}", SHORT, f"--simian-subject={spec}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_subject_names_must_be_unique(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    result = rig.run(f"--simian-pack={pack}", SHORT, "--simian-subject=noop:", "--simian-subject=noop:")
    assert "two subjects are named 'noop'" in result.stderr.str()


def test_non_executable_subject_is_refused(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    (rig.path / "agent").write_text("#!/bin/sh\n")
    result = rig.run(f"--simian-pack={pack}", SHORT, "--simian-subject=exec:./agent")
    assert "is not an executable file" in result.stderr.str()


def test_short_faults_are_refused_unless_allowed(rig: Rig) -> None:
    sc = scenario("shop")
    sc["faults"][0]["duration"] = "1m"
    pack = rig.pack([sc])
    result = rig.run(f"--simian-pack={pack}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "fault lease 1m is shorter than the settle deadline plus the subject timeout" in result.stderr.str()
    assert rig.run(f"--simian-pack={pack}", SHORT, "--simian-gate=none").ret == 0


def test_k_and_m_select_scenarios(rig: Rig) -> None:
    pack = rig.pack([scenario("shop", tags=["slow"]), scenario("docs", expect=[])])
    r = rig.run(f"--simian-pack={pack}", SHORT, "-k", "docs", "--simian-gate=none")
    r.assert_outcomes(passed=1, deselected=1)
    r = rig.run(f"--simian-pack={pack}", SHORT, "-m", "control", "--simian-gate=none")
    r.assert_outcomes(passed=1, deselected=1)
    r = rig.run(f"--simian-pack={pack}", SHORT, "-m", "slow", "--simian-gate=none")
    r.assert_outcomes(passed=1, deselected=1)


def test_last_failed_reruns_only_the_failed_attempt(rig: Rig) -> None:
    pack = rig.pack([scenario("shop"), scenario("docs", expect=[])])
    rig.run(f"--simian-pack={pack}", SHORT).assert_outcomes(passed=1, failed=1)
    rig.run(f"--simian-pack={pack}", SHORT, "--lf").assert_outcomes(failed=1, deselected=1)


def test_exitfirst_stops_after_the_first_failure(rig: Rig) -> None:
    pack = rig.pack([scenario("a1"), scenario("a2")])
    rig.run(f"--simian-pack={pack}", SHORT, "-x").assert_outcomes(failed=1)


def test_exec_subject_gets_the_prompt_three_ways_and_a_reduced_environment(rig: Rig,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cret")
    probe = rig.subject("probe", """\
        stdin=$(cat)
        python3 - "$stdin" "$1" <<'EOF'
        import json, os, sys
        print(json.dumps({"overall_severity": "ok", "summary": "env",
                          "seen": {"stdin": sys.argv[1], "argv": sys.argv[2], "env": dict(os.environ),
                                   "cwd": os.getcwd(), "files": os.listdir(".")}}))
        EOF
        """)
    pack = rig.pack([scenario("docs", expect=[])])
    result = rig.run(f"--simian-pack={pack}", SHORT, f"--simian-subject=exec:{probe} {{prompt}}")
    result.assert_outcomes(passed=1)
    report_file = next((rig.runs()[-1] / "reports").glob("*.json"))
    seen = json.loads(report_file.read_text())["report"]["seen"]
    prompt = 'Assess the health of the "docs" namespace in this Kubernetes cluster and report what you find.'
    assert seen["stdin"] == prompt and seen["argv"] == prompt and seen["env"]["SIMIAN_PROMPT"] == prompt
    assert "SECRET_TOKEN" not in seen["env"]
    assert str(rig.runs()[-1]) not in json.dumps(seen["env"])
    assert sorted(seen["files"]) == [".home", "kubeconfig"]  # its own kubeconfig, nothing of the run
    assert not seen["cwd"].startswith(str(rig.path))


def test_subject_timeout_kills_the_process_group(rig: Rig) -> None:
    slow = rig.subject("slow", "(sleep 30; echo late > grandchild-survived) &\nsleep 30\n")
    pack = rig.pack([scenario("docs", expect=[])])
    result = rig.run(f"--simian-pack={pack}", SHORT, f"--simian-subject=exec:{slow}",
                     "--simian-subject-timeout=0.5")
    result.assert_outcomes(failed=1)
    assert "SUBJECT ERROR — timed out after 0.5s (process group killed)" in result.stdout.str()


def test_garbage_output_is_a_subject_error(rig: Rig) -> None:
    junk = rig.subject("junk", "echo 'I think the pods are fine'\n")
    pack = rig.pack([scenario("docs", expect=[])])
    result = rig.run(f"--simian-pack={pack}", SHORT, f"--simian-subject=exec:{junk}")
    result.assert_outcomes(failed=1)
    assert "SUBJECT ERROR — printed no JSON object on stdout" in result.stdout.str()


def test_no_control_says_hallucination_is_unmeasured(rig: Rig) -> None:
    pack = rig.pack([scenario("shop")])
    result = rig.run(f"--simian-pack={pack}", SHORT)
    assert "no control in these packs, so hallucination is unmeasured" in result.stdout.str()


def test_run_json_records_the_run(rig: Rig) -> None:
    pack = rig.pack([scenario("shop", "shop")])
    rig.run(f"--simian-pack={pack}", SHORT)
    run = rig.run_json()
    assert run["format"] == "pytest-simian/run" and run["version"] == 2
    assert run["executor"] == {"permitted_tiers": ["namespace"], "duration_ceiling": 14400.0,
                               "max_concurrent_faults": 0}
    assert run["vocabularies"]["upstream"]["version"] == "1"
    assert run["packs"][0]["name"] == "demo" and len(run["packs"][0]["digest"]) == 64
    sc = run["scenarios"]["shop"]
    assert sc["namespaces"] == ["shop"] and sc["fault_count"] == 1 and sc["control"] is False
    assert sc["expect"][0]["reasons"] == ["ImagePullBackOff", "ErrImagePull"]
    assert run["subjects"] == [{"name": "noop", "spec": "noop:", "scheme": "noop"}]
    (aid, attempt), = run["attempts"].items()
    assert attempt["scenario_id"] == "shop" and attempt["nodeid"] == "simian:demo::shop[noop]"
    events = [json.loads(line) for line in (rig.runs()[-1] / "audit.jsonl").read_text().splitlines()]
    names = [e["event"] for e in events]
    # every fault event is the executor's: the engine only rendered
    assert names[:9] == ["eval.scenario_started", "cluster.started", "executor.received", "arena.held",
                         "executor.validated", "driver.applied", "lease.registered", "fault.efficacy",
                         "eval.subject_started"]
    assert names[-1] == "eval.scenario_ended"
    assert all(e["attempt_id"] == aid and e["v"] == 1 for e in events)
