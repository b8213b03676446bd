"""Cluster backends: how the harness reaches a Kubernetes API.

Knows nothing about scenarios. A backend starts (or finds) a cluster and hands back a
:class:`~pytest_simian.cluster.base.ClusterHandle`; everything above it talks to the handle.
"""
