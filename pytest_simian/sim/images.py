"""The catalog of container images the embedded cluster's registry "has", and what each one does by default.

Why it exists: the simulated kubelet must decide, for an image reference in a pod spec, what a kind node
with containerd would do: pull it (how big, how long), fail to pull it (with containerd's error text as
kubelet 1.36 reports it: ErrImagePull then ImagePullBackOff), or reject the reference (InvalidImageName).
It also holds each image's ENTRYPOINT/CMD and which programs exist inside, so a container without a
``command`` behaves like the real image: busybox/alpine run ``sh`` with no stdin and exit 0 at once, pause
sleeps forever, nginx logs its start lines and serves port 80.

What it must not do: contact a registry, read a clock, or run anything. Digests and sizes are fixed,
plausible values (a digest is derived from the reference so it is stable run to run); they are not the
real registry digests. Programs an image has but the busybox model cannot interpret (python, nginx run
from a shell) are listed as ``foreign`` so the interpreter reports them as Unmodelled instead of guessing.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Generator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal
from urllib.parse import quote

from pytest_simian.sim import busybox
from pytest_simian.sim import messages as M

__all__ = [
    "ImageInfo", "ImageRef", "PullOutcome", "CATALOG", "parse_reference", "lookup", "pull",
    "resolve_argv", "program_for", "http_answer", "PRELOADED", "image_id", "node_image_list", "SERVE_CODE",
]

_BUSYBOX_PROGRAMS = busybox.MODELLED_APPLETS | busybox.BUSYBOX_APPLETS


@dataclass(frozen=True)
class ImageInfo:
    repository: str  # fully qualified, e.g. docker.io/library/busybox
    tags: tuple[str, ...]
    size: int  # bytes, as the CRI reports it in the Pulled event
    entrypoint: tuple[str, ...] = ()
    cmd: tuple[str, ...] = ()
    programs: frozenset[str] = frozenset()  # programs the busybox model interprets in this image
    foreign: frozenset[str] = frozenset()  # programs present but not interpretable
    default: Literal["argv", "pause", "nginx", "server"] = "argv"
    listen: tuple[int, ...] = ()  # for default == "server"
    env: tuple[tuple[str, str], ...] = (("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),)


@dataclass(frozen=True)
class ImageRef:
    raw: str
    domain: str
    path: str  # e.g. library/busybox
    tag: str | None
    digest: str | None

    @property
    def repository(self) -> str:
        return f"{self.domain}/{self.path}"

    @property
    def normalized(self) -> str:
        """containerd's fully qualified form: docker.io/library/busybox:1.36."""
        if self.digest:
            return f"{self.repository}@{self.digest}"
        return f"{self.repository}:{self.tag or 'latest'}"


@dataclass(frozen=True)
class PullOutcome:
    ok: bool
    reason: str = ""  # ErrImagePull / InvalidImageName when not ok
    message: str = ""  # the waiting.message / the error in the Failed event
    size: int = 0
    seconds: float = 0.0
    image: str = ""  # status.containerStatuses[].image
    image_id: str = ""  # status.containerStatuses[].imageID
    info: ImageInfo | None = None


_SHELLISH = frozenset({"sh", "ash"})
_ALPINE_EXTRA = frozenset({"apk"})

_BB = ImageInfo("docker.io/library/busybox",
                ("1.36", "1.36.1", "1.36.0", "1.37", "1.37.0", "1.35", "1.35.0", "latest", "stable", "musl",
                 "glibc", "uclibc", "1.36-musl", "1.36.1-musl", "1.36-glibc", "1.36.1-glibc"),
                2_155_582, cmd=("sh",), programs=_BUSYBOX_PROGRAMS)
_ALPINE = ImageInfo("docker.io/library/alpine",
                    ("3.18", "3.19", "3.20", "3.21", "3.22", "3.22.1", "3.21.3", "3.20.6", "latest", "edge"),
                    3_802_452, cmd=("/bin/sh",), programs=_BUSYBOX_PROGRAMS, foreign=_ALPINE_EXTRA)
_NGINX = ImageInfo("docker.io/library/nginx",
                   ("1.25", "1.26", "1.27", "1.28", "1.29", "1.27.5", "1.28.0", "1.29.1", "stable", "mainline",
                    "latest", "alpine", "stable-alpine", "1.27-alpine", "1.28-alpine", "1.29-alpine"),
                   72_224_153, entrypoint=("/docker-entrypoint.sh",), cmd=("nginx", "-g", "daemon off;"),
                   programs=frozenset({"sh", "echo", "sleep", "cat", "printf", "true", "false", "test", "[",
                                       "date", "hostname", "env", "head", "tail", "wc", "id", "whoami",
                                       "uname", "touch", "rm", "mkdir", "seq", "grep", "yes", "dd"}),
                   foreign=frozenset({"nginx", "/docker-entrypoint.sh", "bash", "perl", "curl"}),
                   default="nginx")
_PYTHON_TAGS = tuple(
    t for v in ("3.10", "3.11", "3.12", "3.13", "3.14") for t in (v, f"{v}-alpine", f"{v}-slim")
) + ("latest", "alpine", "slim", "3", "3-alpine")
_PYTHON = ImageInfo("docker.io/library/python", _PYTHON_TAGS, 50_124_718, cmd=("python3",),
                    programs=_BUSYBOX_PROGRAMS,
                    foreign=frozenset({"python", "python3", "pip", "pip3", "python3.12", "python3.11", "bash"}))
_PAUSE = ImageInfo("registry.k8s.io/pause", ("3.9", "3.10", "3.10.1", "latest"), 320_368,
                   entrypoint=("/pause",), default="pause")
_K8S_PAUSE_DH = ImageInfo("docker.io/library/pause", (), 0)  # placeholder: not on Docker Hub

CATALOG: dict[str, ImageInfo] = {
    i.repository: i for i in (_BB, _ALPINE, _NGINX, _PYTHON, _PAUSE)
}
# Mirrors of the same images under other names that resolve to them.
CATALOG["registry.k8s.io/e2e-test-images/busybox"] = ImageInfo(
    "registry.k8s.io/e2e-test-images/busybox", ("1.36.1-1", "1.29-4"), 1_374_910, cmd=("sh",),
    programs=_BUSYBOX_PROGRAMS)
CATALOG["docker.io/kindest/local-path-provisioner"] = ImageInfo(
    "docker.io/kindest/local-path-provisioner", ("v20260521-9fb22683", "v20250214-acbabc1a"), 22_541_737,
    entrypoint=("local-path-provisioner",), default="server")
CATALOG["docker.io/kindest/local-path-helper"] = ImageInfo(
    "docker.io/kindest/local-path-helper", ("v20260521-9fb22683",), 3_093_488, cmd=("sh",),
    programs=_BUSYBOX_PROGRAMS)
for _name, _tags, _size, _ports, _entry in (
    ("registry.k8s.io/coredns/coredns", ("v1.14.2", "v1.12.1", "v1.12.0", "v1.11.3"), 22_384_805,
     (53, 8080, 8181, 9153), ("/coredns",)),
    ("registry.k8s.io/etcd", ("3.6.8-0", "3.6.4-0", "3.5.21-0", "3.5.16-0"), 23_641_797, (2379, 2380, 2381),
     ("/usr/local/bin/etcd",)),
    ("registry.k8s.io/kube-apiserver", ("v1.36.0", "v1.36.1"), 30_000_000, (6443,), ()),
    ("registry.k8s.io/kube-controller-manager", ("v1.36.0", "v1.36.1"), 27_000_000, (10257,), ()),
    ("registry.k8s.io/kube-scheduler", ("v1.36.0", "v1.36.1"), 21_000_000, (10259,), ()),
    ("registry.k8s.io/kube-proxy", ("v1.36.0", "v1.36.1"), 31_000_000, (10249, 10256), ()),
    ("docker.io/kindest/kindnetd", ("v20260528-9350166c", "v20250512-df8de77b"), 44_375_501, (),
     ("/bin/kindnetd",)),
):
    CATALOG[_name] = ImageInfo(_name, _tags, _size, entrypoint=_entry, default="server", listen=_ports)

#: what a fresh kind node already has in its image store: the images baked into kindest/node:v1.36.x (the
#: control-plane images at the emulated version, coredns, etcd, kindnetd, local-path-provisioner and its
#: helper, pause) plus busybox:1.36, which the parity harness loads with `kind load`
PRELOADED = frozenset({
    "docker.io/library/busybox:1.36",
    "registry.k8s.io/pause:3.10.1",
    "registry.k8s.io/coredns/coredns:v1.14.2",
    "registry.k8s.io/etcd:3.6.8-0",
    "registry.k8s.io/kube-apiserver:v1.36.0",
    "registry.k8s.io/kube-controller-manager:v1.36.0",
    "registry.k8s.io/kube-scheduler:v1.36.0",
    "registry.k8s.io/kube-proxy:v1.36.0",
    "docker.io/kindest/kindnetd:v20260528-9350166c",
    "docker.io/kindest/local-path-provisioner:v20260521-9fb22683",
    "docker.io/kindest/local-path-helper:v20260521-9fb22683",
})

# docker/distribution reference grammar (reference/regexp.go)
_COMP = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
_DOMAIN = rf"(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?"
_REF = re.compile(
    rf"^(?:(?P<domain>{_DOMAIN})/)?(?P<path>{_COMP}(?:/{_COMP})*)(?::(?P<tag>[\w][\w.-]{{0,127}}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$"
)


def parse_reference(image: str) -> ImageRef | None:
    """Parse and normalise like ParseNormalizedNamed; None for an invalid reference."""
    m = _REF.match(image)
    if not m or len(image) > 255:
        return None
    domain, path = m.group("domain"), m.group("path")
    if domain is not None and not ("." in domain or ":" in domain or domain == "localhost"):
        # the first component was not a registry host after all
        path = f"{domain}/{path}"
        domain = None
        if not re.fullmatch(rf"{_COMP}(?:/{_COMP})*", path):
            return None
    if domain is None or domain == "index.docker.io":
        domain = "docker.io"
        if "/" not in path:
            path = f"library/{path}"
    if domain != domain.lower() and not domain.startswith("["):
        pass
    return ImageRef(image, domain, path, m.group("tag"), m.group("digest"))


def lookup(ref: ImageRef) -> ImageInfo | None:
    info = CATALOG.get(ref.repository)
    if info is None:
        return None
    if ref.digest:
        return info if ref.digest == digest_of(ref.repository, None, info) or any(
            ref.digest == digest_of(ref.repository, t, info) for t in info.tags) else None
    return info if (ref.tag or "latest") in info.tags else None


def digest_of(repository: str, tag: str | None, info: ImageInfo) -> str:
    return "sha256:" + hashlib.sha256(f"{repository}:{tag}:{info.size}".encode()).hexdigest()


def default_pull_policy(image: str) -> str:
    """The API server's default imagePullPolicy (pkg/apis/core/v1/defaults.go SetDefaults_Container)."""
    ref = parse_reference(image)
    if ref is not None and ref.digest:
        return "IfNotPresent"
    if ref is None or ref.tag in (None, "latest"):
        return "Always"
    return "IfNotPresent"


def pull_seconds(size: int) -> float:
    """A plausible pull time on a kind node: registry round trips plus ~40 MB/s, ms resolution."""
    return round(0.35 + size / 40_000_000, 3)


def pull(image: str) -> PullOutcome:
    """What containerd on a kind node answers to a pull of ``image`` (through kubelet 1.36's wording)."""
    ref = parse_reference(image)
    if ref is None:
        msg = M.MSG_FAILED_APPLY_DEFAULT_TAG.format(
            image=image, error=M.MSG_INVALID_IMAGE_NAME.format(image=image))
        return PullOutcome(False, M.REASON_INVALID_IMAGE_NAME, msg)
    info = lookup(ref)
    if info is not None:
        tag = None if ref.digest else (ref.tag or "latest")
        digest = ref.digest or digest_of(ref.repository, tag, info)
        return PullOutcome(True, size=info.size, seconds=pull_seconds(info.size), image=ref.normalized,
                           image_id=f"{ref.repository}@{digest}", info=info)
    known_repo = ref.repository in CATALOG
    if ref.domain == "docker.io" and not known_repo:
        msg = M.MSG_CRI_PULL_UNAUTHORIZED_DOCKERHUB.format(ref=ref.normalized)
    elif ref.domain == "ghcr.io" and not known_repo:
        msg = M.MSG_CRI_PULL_GHCR_FORBIDDEN.format(ref=ref.normalized, host=ref.domain,
                                                    repo_q=quote(ref.path, safe=""))
    else:
        msg = M.MSG_CRI_PULL_NOT_FOUND.format(ref=ref.normalized)
    return PullOutcome(False, M.REASON_ERR_IMAGE_PULL, msg, seconds=pull_seconds(0), image=ref.normalized)


def image_id(image: str) -> str:
    """containerStatuses[].imageID for a catalogued image (``repo@sha256:...``); "" for an unknown one."""
    ref = parse_reference(image)
    info = lookup(ref) if ref is not None else None
    if ref is None or info is None:
        return ""
    return f"{ref.repository}@{ref.digest or digest_of(ref.repository, ref.tag or 'latest', info)}"


def node_image_list() -> list[dict[str, object]]:
    """node.status.images for a fresh node: the preloaded images, largest first (as the kubelet sorts them)."""
    out: list[dict[str, object]] = []
    for name in sorted(PRELOADED):
        ref = parse_reference(name)
        info = lookup(ref) if ref is not None else None
        if ref is None or info is None:
            continue
        out.append({"names": [image_id(name), name], "sizeBytes": info.size})
    out.sort(key=lambda d: -int(d["sizeBytes"]))  # type: ignore[call-overload]
    return out


def image_present(image: str, node_images: set[str] | frozenset[str]) -> bool:
    ref = parse_reference(image)
    return ref is not None and ref.normalized in node_images


def resolve_argv(info: ImageInfo, command: list[str] | None, args: list[str] | None) -> list[str]:
    """Docker/Kubernetes rules: ``command`` replaces ENTRYPOINT (and drops CMD); ``args`` replaces CMD."""
    if command:
        return list(command) + list(args or [])
    return list(info.entrypoint) + (list(args) if args else list(info.cmd))


def _base(prog: str) -> str:
    for d in ("/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/", "/usr/local/bin/"):
        if prog.startswith(d):
            return prog[len(d):]
    return prog


def program_exists(info: ImageInfo, prog: str) -> bool:
    b = _base(prog)
    if info.default == "pause":
        return prog in ("/pause", "pause")
    return b in info.programs or b in info.foreign or prog in info.foreign


def program_for(info: ImageInfo, argv: list[str], *, env: dict[str, str], hostname: str, cpus: int = 8,
                fs: dict[str, str] | None = None) -> busybox.Program | None:
    """The program a container runs; None when argv[0] does not exist in the image (StartError)."""
    if not argv:
        return _exit0()
    prog = argv[0]
    if (info.default == "pause" and prog in ("/pause", "pause")) or (
        info.default == "server" and (not prog.startswith("/bin/") or prog in info.entrypoint)
    ):
        return _serve(info.listen)
    if info.default == "nginx" and (prog == "/docker-entrypoint.sh" and argv[1:2] == ["nginx"] or prog == "nginx"
                                    and argv[1:] == ["-g", "daemon off;"]):
        return _nginx(info, cpus, entrypoint=prog == "/docker-entrypoint.sh")
    if not program_exists(info, prog):
        return None
    b = _base(prog)
    if info.repository == "docker.io/library/python" and b in ("python", "python3") and len(argv) == 1:
        return _exit0()  # the REPL reads EOF from the closed stdin and exits
    return busybox.run_argv(argv, env=env, hostname=hostname, programs=info.programs - info.foreign,
                            foreign=info.foreign, fs=fs)


def _exit0() -> busybox.Program:
    yield busybox.Exit(0)


def _serve(ports: tuple[int, ...]) -> busybox.Program:
    for p in ports:
        yield busybox.Listen(p, "http" if p in (2381, 6443, 8080, 8181, 9153, 10249, 10256, 10257, 10259) else "tcp")
    yield busybox.Sleep(math.inf)


#: the code object of a running ``_serve`` program (the kubelet recognises a static server by it)
SERVE_CODE = _serve.__code__

_NGINX_ENTRY_LINES = (
    "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
    "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
    "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
    "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
    "/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
    "/docker-entrypoint.sh: Configuration complete; ready for start up",
)


def _nginx(info: ImageInfo, cpus: int, entrypoint: bool) -> busybox.Program:
    if entrypoint:
        for line in _NGINX_ENTRY_LINES:
            yield busybox.Output("stdout", line + "\n")
    now = yield busybox.Now()
    stamp = datetime.fromtimestamp(float(now or 0.0), UTC).strftime("%Y/%m/%d %H:%M:%S")  # type: ignore[arg-type]
    lines = ['using the "epoll" event method', "nginx/1.29.1", "built by gcc 12.2.0 (Debian 12.2.0-14+deb12u1) ",
             "OS: Linux 6.8.0-1030-azure", "getrlimit(RLIMIT_NOFILE): 1048576:1048576", "start worker processes"]
    lines += [f"start worker process {29 + k}" for k in range(max(1, cpus))]
    for line in lines:
        yield busybox.Output("stderr", f"{stamp} [notice] 1#1: {line}\n")
    yield busybox.Listen(80, "http")
    yield busybox.Sleep(math.inf)


_NGINX_WELCOME = """<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
"""


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    reason: str
    body: str = ""
    answered: bool = True  # False: a raw TCP listener that never answers HTTP (the client times out)


def http_answer(image_repository: str, protocol: str, path: str) -> HttpAnswer:
    """How a listener in a simulated container answers an HTTP GET (wget, httpGet probes)."""
    if protocol != "http":
        return HttpAnswer(0, "", answered=False)
    if image_repository == "docker.io/library/nginx":
        if path in ("/", "/index.html"):
            return HttpAnswer(200, "OK", _NGINX_WELCOME)
        return HttpAnswer(404, "Not Found", "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
                          "<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.29.1</center>\r\n"
                          "</body>\r\n</html>\r\n")
    return HttpAnswer(200, "OK", "ok")


@dataclass
class NodeImages:
    """The node's image store (what ``crictl images`` would list)."""

    present: set[str] = field(default_factory=lambda: set(PRELOADED))

    def has(self, image: str) -> bool:
        return image_present(image, self.present)

    def add(self, normalized: str) -> None:
        self.present.add(normalized)


def _unused() -> Generator[None, None, None]:  # pragma: no cover - keeps typing imports honest
    yield None
