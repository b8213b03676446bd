"""``python -m pytest_simian.sim``: start an embedded cluster for a person, print how to reach it.

Why: poking the simulated cluster with kubectl by hand is the fastest way to see what a subject sees.
Must not: write outside the state directory (a temporary one unless ``--state-dir`` is given).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from pytest_simian import kubeconfig

from .server import SimServer


async def _run(args: argparse.Namespace) -> None:
    state = Path(args.state_dir or tempfile.mkdtemp(prefix="simian-sim-"))
    server = SimServer(state_dir=state, request_log=state / "requests.jsonl", port=args.port, nodes=args.nodes,
                       controllers=not args.no_controllers)
    await server.start()
    kc = kubeconfig.write(state / "kubeconfig", server.url, server.harness_token, ca_pem=server.ca_pem,
                          user="admin")
    print(f"embedded cluster (Kubernetes v1.36.0) at {server.url}", file=sys.stderr)
    print(f"request log: {state / 'requests.jsonl'}", file=sys.stderr)
    print(f"export KUBECONFIG={kc}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m pytest_simian.sim")
    p.add_argument("--state-dir", help="where the kubeconfig, certificates and request log go")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--no-controllers", action="store_true", help="serve the API only (no kubelet, no controllers)")
    args = p.parse_args()
    try:
        asyncio.run(_run(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
