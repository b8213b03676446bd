"""The prompt lint: a prompt names the task, never the fault.

Why: a prompt that leaks the diagnosis turns diagnosis back into transcription. Both sides are
normalized (delete `_`, `-`, spaces; lowercase) and a prompt is refused when it contains a fault kind
name that names a failure (any registered engine's, from the catalogue), a failure-family name or
family token, or a non-generic reason token from the scenario's own expectations. Generic tokens
(pending, failed, error, unhealthy, failedscheduling, unschedulable-as-a-reason) never refuse on their own.

Upstream's lint strips the namespace from the prompt before checking; ours does not, on purpose: the
namespace is quoted in the prompt, so a namespace called `fault-oomkill` leaks the diagnosis as
surely as a sentence would. Must not: do I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pytest_simian.scoring.vocabulary import Vocabulary, normalize


@dataclass(frozen=True)
class LintHit:
    """One reason a prompt was refused."""

    token: str
    """The term as written in the vocabulary (`OOMKill`, `crash-loop`, `ImagePullBackOff`)."""
    source: str
    """Which list it came from: `fault kind`, `failure family`, `family token`, `expected reason`."""

    def __str__(self) -> str:
        return f"{self.source} {self.token!r}"


def lint_prompt(prompt: str, *, vocabulary: Vocabulary, reasons: Iterable[str] = (),
                kinds: Iterable[str] = ()) -> list[LintHit]:
    """Every term in `prompt` that would leak a diagnosis; empty when the prompt is clean. `kinds` are the
    fault kind names that name a failure (`Catalog.failure_kinds()`)."""
    text = normalize(prompt)
    candidates: list[tuple[str, str]] = [(k, "fault kind") for k in kinds]
    candidates += [(f, "failure family") for f in vocabulary.families]
    candidates += [(t, "family token") for t in vocabulary.tokens]
    candidates += [(r, "expected reason") for r in reasons if normalize(r) not in vocabulary.generic]
    hits: list[LintHit] = []
    seen: set[str] = set()
    for token, source in candidates:
        key = normalize(token)
        if key and key in text and key not in seen:
            seen.add(key)
            hits.append(LintHit(token, source))
    return hits
