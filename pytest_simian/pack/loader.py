"""Loading packs from a built-in name or a path, with errors that name file, line and field.

Why: a malformed pack must fail before anything runs, and say exactly where. A reference with a path
separator (`./parity`, `packs/x.yaml`) is read from disk; anything else is a built-in name resolved
inside the installed package, so a scored run cannot depend on the working directory.

A pack on disk is either a directory holding `pack.yaml` (name, description, vocabulary) and one
scenario per other `*.yaml` file, or a single YAML file with the Pack fields and a `scenarios` list.
Must not: import pytest or kubernetes; touch anything but the pack files.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from pytest_simian.errors import PackError
from pytest_simian.pack.catalog import Catalog
from pytest_simian.pack.lint import lint_prompt
from pytest_simian.pack.models import Pack, PackHeader, Scenario
from pytest_simian.scoring.vocabulary import get_vocabulary


@dataclass(frozen=True)
class LoadedPack:
    """A validated pack plus where it came from."""

    pack: Pack
    reference: str
    """What the user wrote (`parity`, `./my-pack`)."""
    origin: str
    """`builtin` or the resolved path."""
    digest: str
    """sha256 over the pack's files, recorded in run.json."""
    scenario_files: dict[str, str] = field(default_factory=dict)
    """Scenario id → file it was read from (relative to the pack)."""
    root: str = ""
    """The pack's directory or file on disk."""

    def where(self, scenario_id: str) -> str:
        """The file a scenario came from, for error messages."""
        root = Path(self.root)
        return str(root / self.scenario_files[scenario_id]) if root.is_dir() else str(root)


def builtin_packs_root() -> Path:
    """Where the built-in packs live: inside the installed package, or the source tree's `packs/`."""
    root = resources.files("pytest_simian") / "packs"
    return Path(str(root))


def builtin_pack_names() -> list[str]:
    root = builtin_packs_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "pack.yaml").is_file())


def is_path_reference(ref: str) -> bool:
    return os.sep in ref or "/" in ref or ref.endswith((".yaml", ".yml"))


def load_packs(references: Iterable[str], *, catalog: Catalog | None = None) -> list[LoadedPack]:
    """Load every reference; refuse duplicate scenario ids across packs. With `catalog` (the registered
    engines' kinds: the plugin always passes it) every fault's engine and kind are checked, and the prompt
    lint refuses every kind name that names a failure; without it only the format is checked."""
    loaded: list[LoadedPack] = []
    seen: dict[str, str] = {}
    for ref in references:
        ref = ref.strip()
        if not ref:
            continue
        lp = load_pack(ref, catalog=catalog)
        for sc in lp.pack.scenarios:
            if sc.id in seen:
                raise PackError(f"scenario id {sc.id!r} is in pack {seen[sc.id]!r} and pack "
                                f"{lp.pack.name!r}; ids must be unique across every loaded pack",
                                file=lp.origin)
            seen[sc.id] = lp.pack.name
        loaded.append(lp)
    if not loaded:
        raise PackError("--simian-pack names no pack")
    return loaded


def load_pack(ref: str, *, catalog: Catalog | None = None) -> LoadedPack:
    if is_path_reference(ref):
        path = Path(ref).expanduser()
        if not path.exists():
            raise PackError(f"no pack at {ref!r} (a reference with a path separator is read from disk)")
        origin = str(path.resolve())
    else:
        path = builtin_packs_root() / ref
        if not (path / "pack.yaml").is_file():
            known = ", ".join(builtin_pack_names()) or "none"
            raise PackError(f"no built-in pack named {ref!r} (built-in: {known}; write ./{ref} for a "
                            "directory)")
        origin = "builtin"
    if path.is_dir():
        pack, files, digest = _load_directory(path, catalog)
    else:
        pack, files, digest = _load_file(path, catalog)
    _check_semantics(pack, files, path, catalog.failure_kinds() if catalog is not None else ())
    return LoadedPack(pack=pack, reference=ref, origin=origin, digest=digest, scenario_files=files,
                      root=str(path))


def _load_directory(path: Path, catalog: Catalog | None) -> tuple[Pack, dict[str, str], str]:
    header_file = path / "pack.yaml"
    if not header_file.is_file():
        raise PackError("a pack directory needs a pack.yaml (name, description, vocabulary)",
                        file=str(path))
    h = hashlib.sha256()
    header_data, header_node = _read_yaml(header_file)
    h.update(header_file.read_bytes())
    header = _validate(PackHeader, header_data, header_node, header_file, None)
    scenarios: list[Scenario] = []
    files: dict[str, str] = {}
    for f in sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.name != "pack.yaml"):
        data, node = _read_yaml(f)
        h.update(f.name.encode() + b"\0" + f.read_bytes())
        sc = _validate(Scenario, data, node, f, catalog)
        if sc.id in files:
            raise PackError(f"scenario id {sc.id!r} is also defined in {files[sc.id]}", file=str(f))
        files[sc.id] = f.name
        scenarios.append(sc)
    pack = Pack(name=header.name, description=header.description, vocabulary=header.vocabulary,
                scenarios=scenarios)
    return pack, files, h.hexdigest()


def _load_file(path: Path, catalog: Catalog | None) -> tuple[Pack, dict[str, str], str]:
    data, node = _read_yaml(path)
    pack = _validate(Pack, data, node, path, catalog)
    ids = [s.id for s in pack.scenarios]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise PackError(f"scenario id {dupes[0]!r} appears twice", file=str(path))
    return pack, {s.id: path.name for s in pack.scenarios}, hashlib.sha256(path.read_bytes()).hexdigest()


def _check_semantics(pack: Pack, files: dict[str, str], root: Path, kinds: Sequence[str]) -> None:
    """Rules that need the whole pack: also_true families and the prompt lint."""
    vocab = get_vocabulary(pack.vocabulary)
    for sc in pack.scenarios:
        where = str(root / files[sc.id]) if root.is_dir() else str(root)
        try:
            sc.check_also_true(pack.vocabulary)
        except ValueError as exc:
            raise PackError(str(exc), file=where, field="also_true") from None
        hits = lint_prompt(sc.prompt, vocabulary=vocab, reasons=[r for e in sc.expect for r in e.reasons],
                           kinds=kinds)
        if hits:
            raise PackError("the prompt leaks the diagnosis: it contains "
                            + ", ".join(str(h) for h in hits), file=where, field="prompt")


def _read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"cannot read: {exc}", file=str(path)) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise PackError(f"not valid YAML: {problem}", file=str(path), line=line) from None
    if not isinstance(data, dict):
        raise PackError("expected a mapping at the top level", file=str(path), line=1)
    return data, node


def _validate(model: Any, data: Any, node: yaml.Node | None, path: Path, catalog: Catalog | None) -> Any:
    try:
        return model.model_validate(data, context=catalog.context() if catalog is not None else None)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        line = _line_of(node, loc)
        field_path = _dotted(loc)
        msg = err["msg"].removeprefix("Value error, ")
        more = len(exc.errors()) - 1
        if more:
            msg += f" (and {more} more problem{'s' if more > 1 else ''})"
        raise PackError(msg, file=str(path), line=line, field=field_path) from None


def _dotted(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("k8s", "logs", "http", "function-before[_probe_type_first(), tagged-union[K8sProbe,"
                      "LogsProbe,HttpProbe]]"):
            continue
        elif "[" in str(part) and "(" in str(part):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out


def _line_of(node: yaml.Node | None, loc: Sequence[Any]) -> int | None:
    """The 1-based line of the deepest YAML node along `loc` (pydantic's error location)."""
    best = node.start_mark.line + 1 if node is not None else None
    cur = node
    for part in loc:
        if cur is None:
            break
        if isinstance(cur, yaml.MappingNode):
            nxt = None
            for k, v in cur.value:
                if isinstance(k, yaml.ScalarNode) and k.value == str(part):
                    nxt = v
                    best = k.start_mark.line + 1
                    break
            if nxt is None:
                continue  # a tag pydantic adds (union member) rather than a key: skip it
            cur = nxt
        elif isinstance(cur, yaml.SequenceNode) and isinstance(part, int):
            if part < len(cur.value):
                cur = cur.value[part]
                best = cur.start_mark.line + 1
            else:
                break
        else:
            break
    return best
