"""The packages' import layers (docs/architecture.md): the reference at the bottom, audit and
bounds on it, validate, reproduce and report on those, the command line on top; the compiled
backend beside the reference engine.

Kinds: exact (every import statement of every module, including imports inside functions, is
resolved to a ``dpbandits`` package and checked against the layer table).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "dpbandits"
SHARED = {"errors", "limits", "files", "distributed", "__init__"}    # small helpers, importable anywhere

FORBIDDEN = {
    "reference": {"audit", "bounds", "validate", "reproduce", "report", "cli"},
    "compiled": {"audit", "bounds", "validate", "reproduce", "report", "cli"},
    "audit": {"bounds", "validate", "reproduce", "report", "cli"},
    "bounds": {"audit", "validate", "reproduce", "report", "cli"},
    "validate": {"reproduce", "report", "cli"},
    "reproduce": {"validate", "report", "cli"},
    "report": {"cli"},
}
"""Package -> the packages it must not import."""


def _package(path: Path) -> str:
    return path.relative_to(SRC).parts[0].removesuffix(".py")


def _imported(path: Path, text: str | None = None) -> set[str]:
    """The top-level ``dpbandits`` packages that module ``path`` (with source ``text``) imports."""
    parts = path.relative_to(SRC).with_suffix("").parts
    out = set()
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(parts[:len(parts) - node.level])
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] if node.module or base else [a.name for a in node.names]
                if not node.module and not base:
                    names = [a.name for a in node.names]
                elif not node.module:
                    names = [".".join(base + [a.name]) for a in node.names]
            else:
                names = [node.module or ""]
                if names[0] == "dpbandits":
                    names = [f"dpbandits.{a.name}" for a in node.names]
                names = [n.removeprefix("dpbandits.") for n in names if n.startswith("dpbandits")]
        else:
            continue
        out |= {n.removeprefix("dpbandits.").split(".")[0] for n in names if n}
    return out


def _violations() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        package = _package(path)
        bad = _imported(path) & FORBIDDEN.get(package, set())
        found += [f"{path.relative_to(SRC)} imports {b}" for b in sorted(bad)]
    return found


@pytest.mark.exact
def test_each_package_imports_only_from_the_layers_below():
    assert not _violations(), "\n".join(_violations())


@pytest.mark.exact
def test_the_check_sees_relative_and_lazy_imports():
    probe = SRC / "reference" / "bandit" / "probe.py"
    text = ("from ..policy import Policy\n"
            "def f():\n    from ...audit import runner\n    import dpbandits.cli\n"
            "    from dpbandits import bounds\n")
    assert _imported(probe, text) == {"reference", "audit", "cli", "bounds"}
