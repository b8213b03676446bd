"""One exception hierarchy for the whole plugin.

Why: the outcome of an attempt (skipped, error, failed) is decided by *which* of these was raised,
so every failure must be one of them and the tree must be explicit. Must not: carry behaviour beyond
a message and the fields that explain it.

    SimianError
    ├── PackError                 a pack, option or subject spec is wrong (usage error, before anything runs)
    ├── NotValidOnCluster         the scenario cannot be represented on this cluster (skipped, not attempted)
    ├── InjectError               a fault did not land: executor rejection, failed apply, settle probe
    │   │                         failing or timing out (skipped, NOT SCORED)
    │   └── ExecutorError         executor[<stage>:<reason>]: refused or failed on its way (executor/policy.py)
    ├── HarnessError              the rig itself failed (error; unscored)
    │   └── ClearError            clearing a fault or verifying the clear failed (teardown error)
    └── SubjectError              the subject crashed, timed out or printed nothing parseable
                                  (failed; scored as a run with no structured report)

Raised inside one module and turned into one of the above where it is caught (never seen by pytest):

    KubeError                     cluster/kube.py: an API call failed → ExecutorError, HarnessError, ClearError
    SimError                      cluster/sim.py: the embedded cluster did not start or stopped answering
                                  → HarnessError (eval.harness_error)
    CurrentClusterError           cluster/current.py: the named context is missing → HarnessError
    ArenaError                    arena.py: a hold could not be taken in time → HarnessError
    SettleFailure                 probes.py: a Settle probe did not pass by the deadline → ExecutorError
    JSONPathError                 jsonpath.py: a template kubectl would not parse → PackError, ExecutorError
    StreamError                   subjects/lookout.py: lookout's finding stream is malformed → SubjectError
    RunDocumentError              record/run_document.py: run.json unusable → ArtifactError
    ArtifactError                 record/artifacts.py: a run directory cannot be read → a usage error
                                  (`--simian-offline`, `--simian-compare`) or report-error.txt

Inside the embedded cluster's own process (sim/), answered as Kubernetes Status errors over HTTP:

    ApiError                      sim/errors.py: a Status with its code and reason
    PatchError, ApplyError        sim/patch.py, sim/fieldmanager.py: a patch or apply that does not fit → 4xx
    ApplyConflict                 sim/fieldmanager.py: server-side apply conflict → 409
    SelectorError                 sim/selectors.py: a label or field selector that does not parse → 400
    ProtobufDecodeError           sim/protobuf.py: a protobuf body that does not decode → 400
    ShellSyntaxError              sim/busybox.py: a container command the shell model cannot parse → the
                                  container's own exit status and stderr, as busybox sh would give
"""

from __future__ import annotations


class SimianError(Exception):
    """Base of every error the plugin raises on purpose."""


class PackError(SimianError):
    """A pack, an option or a subject spec is invalid. Reported before anything runs."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.file = file
        self.line = line
        self.field = field
        self.detail = message
        where = ""
        if file:
            where = file + (f":{line}" if line else "")
        if field:
            where = f"{where} {field}".strip()
        super().__init__(f"{where}: {message}" if where else message)


class NotValidOnCluster(SimianError):
    """The scenario cannot be represented faithfully on this cluster."""

    def __init__(self, cluster: str, why: str) -> None:
        self.cluster = cluster
        self.why = why
        super().__init__(f"NOT VALID ON {cluster} — {why}")


class InjectError(SimianError):
    """A fault did not land. Never an agent miss."""

    def __init__(self, why: str, *, stage: str = "inject", reason: str = "") -> None:
        self.why = why
        self.stage = stage
        self.reason = reason
        super().__init__(why)


class HarnessError(SimianError):
    """The harness failed; the attempt is unscored."""

    def __init__(self, why: str, *, stage: str = "harness") -> None:
        self.why = why
        self.stage = stage
        super().__init__(why)


class ClearError(HarnessError):
    """A fault could not be cleared, or its clear could not be verified."""

    def __init__(self, why: str) -> None:
        super().__init__(why, stage="clear")


class SubjectError(SimianError):
    """The subject crashed, timed out or printed nothing parseable: a hard zero, never a skip."""

    def __init__(self, why: str, *, exit_code: int | None = None) -> None:
        self.why = why
        self.exit_code = exit_code
        super().__init__(why)
