"""Start and stop one embedded API server in the running event loop.

Why: the child process (``process.py``), the by-hand entry point (``__main__.py``), the tests and the
benchmark all need the same assembly: a store with the bootstrap objects, fresh TLS material, the harness
token, the request log and an HTTPS listener on loopback.
Must not: listen on anything but loopback; block the event loop.
"""

from __future__ import annotations

import asyncio
import secrets
import ssl
import typing
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from . import tls
from .app import API_KEY, make_app
from .auth import HARNESS, Authenticator, Identity
from .bootstrap import seed
from .clock import VirtualClock
from .requestlog import RequestLog
from .store import Store


@dataclass
class SimServer:
    state_dir: Path
    request_log: Path | None = None
    host: str = "127.0.0.1"
    port: int = 0
    nodes: int = 1
    bookmark_interval: float = 60.0
    tls_enabled: bool = True
    controllers: bool = True
    """Install issue 4's controllers and kubelets (``pytest_simian.sim.controllers.install``) when present."""
    clock: VirtualClock = field(default_factory=VirtualClock)
    store: Store = field(init=False)
    auth: Authenticator = field(init=False, default_factory=Authenticator)
    harness_token: str = field(init=False, default="")
    ca_pem: bytes = field(init=False, default=b"")
    _runner: web.AppRunner | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.store = Store(self.clock)
        self.harness_token = secrets.token_urlsafe(32)
        self.auth.add(self.harness_token, HARNESS)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls_enabled else 'http'}://{self.host}:{self.port}"

    @property
    def ca_file(self) -> Path:
        return self.state_dir / "pki" / "ca.crt"

    async def start(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        ssl_ctx: ssl.SSLContext | None = None
        if self.tls_enabled:
            certs = tls.generate((self.host, "localhost"))
            self.ca_pem = certs.ca_pem
            ssl_ctx = certs.server_context(self.state_dir / "pki")
        self.store.ca_pem = self.ca_pem.decode()
        self.installed: dict[str, typing.Any] = {}  # controllers and kubelets by name (``controllers.install``)
        seed(self.store, nodes=self.nodes)
        if self.controllers:
            try:
                from . import controllers
            except ImportError:  # part 2 not installed: a bare API server
                controllers = None  # type: ignore[assignment]
            if controllers is not None and hasattr(controllers, "install"):
                self.installed = controllers.install(self.store)
        app = make_app(self.store, self.auth, request_log=RequestLog(self.request_log),
                       server_address=f"{self.host}:{self.port}", bookmark_interval=self.bookmark_interval)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=ssl_ctx, reuse_address=True)
        await site.start()
        if self.port == 0:
            server = site._server
            assert server is not None
            self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        app[API_KEY].server_address = f"{self.host}:{self.port}"

    async def settle(self, *, quiet_rounds: int = 3, limit: float = 10.0) -> None:
        """Yield to the controllers until a few rounds pass with no write (or `limit` host seconds)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + limit
        quiet, last = 0, self.store.resource_version
        while quiet < quiet_rounds and loop.time() < end:
            await asyncio.sleep(0.002)
            if self.store.resource_version == last:
                quiet += 1
            else:
                quiet, last = 0, self.store.resource_version

    async def advance(self, seconds: float, *, max_steps: int = 100_000, wall_limit: float = 120.0) -> None:
        """Move virtual time forward `seconds`, stopping at every sleeper's deadline on the way and letting the
        controllers react before moving on, so a five-minute jump plays out like five minutes (a crash loop's
        back-off restarts each happen at their own time) and returns only once the cluster is quiet."""
        clock = self.clock
        target = clock.timestamp() + seconds
        loop = asyncio.get_running_loop()
        wall_end = loop.time() + wall_limit
        for _ in range(max_steps):
            await self.settle()
            if loop.time() > wall_end:
                clock.advance(max(target - clock.timestamp(), 0.0))
                raise RuntimeError(f"the cluster did not settle while advancing {seconds}s "
                                   f"(it kept writing for {wall_limit:.0f}s of host time)")
            now = clock.timestamp()
            if now >= target:
                return
            nxt = clock.next_deadline()
            step_to = target if nxt is None or nxt <= now or nxt > target else nxt
            clock.advance(max(step_to - now, 0.0))
        raise RuntimeError(f"the clock could not reach +{seconds}s in {max_steps} steps")

    def mint(self, label: str, user: str = "subject", *, admin: bool = False) -> str:
        """A new token. ``label`` goes into the request log; ``user`` is what the client is told it is."""
        return self.auth.mint(Identity(user, ("system:authenticated",), admin=admin, label=label))

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
