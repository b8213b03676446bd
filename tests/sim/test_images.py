"""The image catalog answers pulls as containerd on a kind node would, and images behave by default as the real ones."""

from __future__ import annotations

import math

import pytest

from pytest_simian.sim import busybox, images


@pytest.mark.parametrize("ref,normalized", [
    ("busybox", "docker.io/library/busybox:latest"),
    ("busybox:1.36", "docker.io/library/busybox:1.36"),
    ("library/nginx:1.27", "docker.io/library/nginx:1.27"),
    ("registry.k8s.io/pause:3.10.1", "registry.k8s.io/pause:3.10.1"),
    ("ghcr.io/go-steer/no-such-image:v0.0.0-does-not-exist", "ghcr.io/go-steer/no-such-image:v0.0.0-does-not-exist"),
    ("localhost:5000/app:v1", "localhost:5000/app:v1"),
])
def test_reference_normalisation(ref: str, normalized: str) -> None:
    parsed = images.parse_reference(ref)
    assert parsed is not None and parsed.normalized == normalized


@pytest.mark.parametrize("ref", ["Busybox:1.36", "busybox:", "busy box", ":tag", "busybox@sha256:xyz", ""])
def test_invalid_references(ref: str) -> None:
    assert images.parse_reference(ref) is None
    out = images.pull(ref)
    assert not out.ok and out.reason == "InvalidImageName"


def test_known_images_pull() -> None:
    for ref in ("busybox:1.36", "alpine:3.20", "nginx", "python:3.12-alpine", "registry.k8s.io/pause:3.10.1"):
        out = images.pull(ref)
        assert out.ok, ref
        assert out.size > 0 and out.seconds > 0
        assert out.image_id.startswith(out.image.rsplit(":", 1)[0] + "@sha256:")


def test_unknown_tag_is_not_found() -> None:
    out = images.pull("busybox:9.99")
    assert (out.ok, out.reason) == (False, "ErrImagePull")
    assert out.message == ('rpc error: code = NotFound desc = failed to pull and unpack image '
                           '"docker.io/library/busybox:9.99": failed to resolve reference '
                           '"docker.io/library/busybox:9.99": docker.io/library/busybox:9.99: not found')


def test_unknown_docker_hub_repository_is_access_denied() -> None:
    out = images.pull("acme/does-not-exist:1")
    assert "pull access denied, repository does not exist or may require authorization" in out.message


def test_unknown_ghcr_repository_is_a_forbidden_token() -> None:
    out = images.pull("ghcr.io/go-steer/no-such-image:v0.0.0-does-not-exist")
    assert out.message.endswith(
        "unexpected status from GET request to https://ghcr.io/token?scope=repository%3Ago-steer%2Fno-such-image"
        "%3Apull&service=ghcr.io: 403 Forbidden")
    assert out.message.startswith("rpc error: code = Unknown desc = failed to pull and unpack image ")


def test_default_pull_policy() -> None:
    assert images.default_pull_policy("busybox") == "Always"
    assert images.default_pull_policy("busybox:latest") == "Always"
    assert images.default_pull_policy("busybox:1.36") == "IfNotPresent"


def test_command_and_args_override_entrypoint_and_cmd() -> None:
    nginx = images.CATALOG["docker.io/library/nginx"]
    assert images.resolve_argv(nginx, None, None) == ["/docker-entrypoint.sh", "nginx", "-g", "daemon off;"]
    assert images.resolve_argv(nginx, ["sh"], None) == ["sh"]
    assert images.resolve_argv(nginx, None, ["nginx", "-T"]) == ["/docker-entrypoint.sh", "nginx", "-T"]


def drive(prog: busybox.Program, n: int = 50) -> list[busybox.Action]:
    out: list[busybox.Action] = []
    send: object = None
    for _ in range(n):
        try:
            a = prog.send(send)
        except StopIteration:
            break
        out.append(a)
        send = 0.0 if isinstance(a, busybox.Now) else None
        if isinstance(a, busybox.Exit | busybox.Busy | busybox.Unmodelled) or (
                isinstance(a, busybox.Sleep) and math.isinf(a.seconds)):
            break
    return out


def test_default_behaviours() -> None:
    bb = images.CATALOG["docker.io/library/busybox"]
    prog = images.program_for(bb, images.resolve_argv(bb, None, None), env={}, hostname="p")
    assert prog is not None and drive(prog) == [busybox.Exit(0)]  # sh with no stdin exits at once
    pause = images.CATALOG["registry.k8s.io/pause"]
    prog = images.program_for(pause, images.resolve_argv(pause, None, None), env={}, hostname="p")
    assert prog is not None and drive(prog) == [busybox.Sleep(math.inf)]
    nginx = images.CATALOG["docker.io/library/nginx"]
    prog = images.program_for(nginx, images.resolve_argv(nginx, None, None), env={}, hostname="p", cpus=2)
    acts = drive(prog)  # type: ignore[arg-type]
    assert busybox.Listen(80, "http") in acts
    text = "".join(a.text for a in acts if isinstance(a, busybox.Output))
    assert "Configuration complete; ready for start up" in text and "start worker process 30" in text
    python = images.CATALOG["docker.io/library/python"]
    prog = images.program_for(python, ["python", "-c", "import time; time.sleep(10**9)"], env={}, hostname="p")
    assert prog is not None and isinstance(drive(prog)[-1], busybox.Unmodelled)


def test_missing_program_in_image() -> None:
    bb = images.CATALOG["docker.io/library/busybox"]
    assert images.program_for(bb, ["python3", "x.py"], env={}, hostname="p") is None


def test_http_answers() -> None:
    assert images.http_answer("docker.io/library/nginx", "http", "/").status == 200
    assert images.http_answer("docker.io/library/nginx", "http", "/healthz").status == 404
    assert not images.http_answer("docker.io/library/busybox", "tcp", "/").answered
