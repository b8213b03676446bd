"""The embedded cluster: a Kubernetes API server, controllers and a simulated kubelet, in Python on loopback.

Started as a child process by the `sim` backend (pytest_simian/cluster/sim.py) or by hand with
`python -m pytest_simian.sim`. Must not: import the harness (packs, scoring, records, the executor,
engines, subjects or cluster backends), or execute a manifest's command on the host.
"""
