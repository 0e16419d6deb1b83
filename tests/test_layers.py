"""The packages' import layers (docs/architecture.md): the reference at the bottom, audit and
bounds on it, validate, reproduce and report on those, the command line on top; the compiled
backend beside the reference engine.

Kinds: exact (every import statement of every module, including imports inside functions, is
resolved to a ``dpbandits`` package and checked against the layer table, and to a module: the
modules' import graph has no cycle).

The reference never imports the compiled backend (the engine is handed it from above, by the
package's ``__init__``), and the accountant never imports the audit (the audit's presets are the
algorithms' declarations, below both).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "dpbandits"
SHARED = {"errors", "limits", "files", "distributed", "pools", "multiplicity", "__init__"}    # small helpers, importable anywhere

FORBIDDEN = {
    "reference": {"compiled", "accountant", "audit", "bounds", "validate", "reproduce", "report",
                  "cli"},
    "accountant": {"audit", "bounds", "validate", "reproduce", "report", "cli"},
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


# --- cycles between modules --------------------------------------------------------------------

def _module_name(path: Path) -> str:
    """``reference.engine`` for src/dpbandits/reference/engine.py; a package is its folder's name
    (``reference``), the root package ``dpbandits``."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "dpbandits"


MODULES = {_module_name(path): path for path in SRC.rglob("*.py")}


def _resolve(name: str) -> str | None:
    """The module of ``dpbandits`` that dotted ``name`` (relative to the package) denotes: the
    longest prefix that is a module (``reference.registry.get`` -> ``reference.registry``)."""
    parts = name.split(".") if name else []
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return "dpbandits" if name == "" else None


def _module_imports(path: Path, text: str | None = None) -> set[str]:
    """The ``dpbandits`` modules that module ``path`` imports, at module level or inside a
    function. Importing ``a.b`` runs ``a/__init__.py`` too; that implicit import of a parent
    package is not an edge (every module would otherwise import the root package)."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    package = parts[:-1]              # the package that a relative import starts from
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.Import):
            names = [a.name.removeprefix("dpbandits").lstrip(".") for a in node.names
                     if a.name == "dpbandits" or a.name.startswith("dpbandits.")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            elif node.module == "dpbandits" or (node.module or "").startswith("dpbandits."):
                module = node.module.removeprefix("dpbandits").lstrip(".")
            else:
                continue
            names = [f"{module}.{a.name}".strip(".") for a in node.names]
        else:
            continue
        out |= {m for m in map(_resolve, names) if m is not None}
    out.discard(_module_name(path))
    return out


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


@pytest.mark.exact
def test_no_two_modules_import_each_other_even_through_others():
    edges = {name: _module_imports(path) for name, path in MODULES.items()}
    assert not _cycles(edges), "import cycles: " + "; ".join(" <-> ".join(c) for c in _cycles(edges))


@pytest.mark.exact
def test_the_cycle_check_sees_lazy_imports_and_finds_a_planted_cycle():
    probe = SRC / "reference" / "probe.py"
    text = ("from .registry import get\n"
            "def f():\n    from .. import compiled\n    import dpbandits.audit.pairs\n"
            "    from dpbandits.reference.engine import simulate\n")
    assert _module_imports(probe, text) == {"reference.registry", "compiled", "audit.pairs",
                                            "reference.engine"}
    edges = {name: _module_imports(path) for name, path in MODULES.items()}
    edges["reference.engine"] = edges["reference.engine"] | {"compiled"}   # the old backend switch
    assert any({"reference.engine", "compiled"} <= set(c) for c in _cycles(edges))
