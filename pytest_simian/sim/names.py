"""The embedded cluster's identity as kind would name it: the cluster and its one control-plane node.

Why: the bootstrap objects and the scheduler both name the node; one definition, below both.
Must not: import the rest of the embedded cluster.
"""

from __future__ import annotations

CLUSTER_NAME = "kind"
NODE_NAME = f"{CLUSTER_NAME}-control-plane"
