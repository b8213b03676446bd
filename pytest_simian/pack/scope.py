"""Which namespaces a scenario is about: its faults' and the ones its prompt names.

Why: the arena holds exactly these, the executor refuses objects anywhere else, and findings outside
them are out of scope for scoring. One definition for all three.
Must not: do I/O.
"""

from __future__ import annotations

import re

from pytest_simian.pack.models import Scenario

_QUOTED_NAME = re.compile(r'"([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)"')


def prompt_namespaces(prompt: str) -> list[str]:
    """Namespaces a prompt names: quoted DNS labels (`Assess the health of the "x" namespace`)."""
    return sorted(set(_QUOTED_NAME.findall(prompt)))


def named_namespaces(scenario: Scenario) -> list[str]:
    """The namespaces a scenario names: its faults' and its prompt's. Findings elsewhere are out of
    scope, whatever the arena held."""
    return sorted({f.namespace for f in scenario.faults} | set(prompt_namespaces(scenario.prompt)))
