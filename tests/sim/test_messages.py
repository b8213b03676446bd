"""docs/sim-messages.md and pytest_simian.sim.messages carry the same table, and the code uses the table."""

from __future__ import annotations

import re
import string
from pathlib import Path

from pytest_simian.sim import messages as M

ROOT = Path(__file__).resolve().parents[2]


def test_docs_and_table_agree() -> None:
    doc = (ROOT / "docs" / "sim-messages.md").read_text()
    assert M.render_markdown() in doc, "regenerate the table in docs/sim-messages.md from messages.render_markdown()"
    rows = [ln for ln in doc.splitlines() if ln.startswith("| `")]
    assert len(rows) == len(M.TABLE)


def test_every_constant_is_in_the_table_with_a_source() -> None:
    names = {m.name for m in M.TABLE}
    consts = {k for k, v in vars(M).items() if k.isupper() and isinstance(v, str) and k not in ("K", "BB")
              and not k.startswith("_")}
    assert consts == names
    assert len(names) == len(M.TABLE), "duplicate names"
    for m in M.TABLE:
        assert getattr(M, m.name) == m.text
        assert m.source and m.where
        assert m.kind in ("reason", "event", "status", "program")
        assert re.search(r"(kubernetes|busybox|containerd|runc|cri-client)", m.source)


def test_templates_format() -> None:
    for m in M.TABLE:
        fields = {f for _, f, _, _ in string.Formatter().parse(m.text) if f}
        m.text.format(**{f: "x" for f in fields})


def test_sim_code_uses_the_constants_for_kubelet_reasons() -> None:
    """No kubelet reason string is spelled out in the kubelet-side modules except through messages.py."""
    src = "".join((ROOT / "pytest_simian" / "sim" / f).read_text() for f in ("containers.py", "images.py"))
    for literal in ('"CrashLoopBackOff"', '"ImagePullBackOff"', '"ErrImagePull"', '"OOMKilled"',
                    '"CreateContainerConfigError"', '"FailedMount"', '"Unhealthy"', '"BackOff"'):
        assert literal not in src, literal
