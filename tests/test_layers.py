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

ABOVE_SHARED = {"reference", "compiled", "accountant", "audit", "bounds", "candidates", "validate",
                "reproduce", "report", "testing", "cli"}
"""Every package above the small shared helpers."""

FORBIDDEN = {
    "reference": {"compiled", "accountant", "audit", "bounds", "candidates", "validate",
                  "reproduce", "report", "testing", "cli"},
    "accountant": {"audit", "bounds", "candidates", "validate", "reproduce", "report", "testing",
                   "cli"},
    "compiled": {"audit", "bounds", "candidates", "validate", "reproduce", "report", "testing",
                 "cli"},
    "audit": {"bounds", "candidates", "validate", "reproduce", "report", "testing", "cli"},
    "bounds": {"audit", "candidates", "validate", "reproduce", "report", "testing", "cli"},
    "candidates": {"validate", "reproduce", "report", "testing", "cli"},
    "validate": {"reproduce", "report", "testing", "cli"},
    "reproduce": {"validate", "report", "testing", "cli"},
    "report": {"testing", "cli"},
    "testing": {"cli"},
    "cli": set(),
    **{helper: ABOVE_SHARED for helper in SHARED - {"__init__"}},
    "lazy": ABOVE_SHARED,
}
"""Package -> the packages it must not import; every package and top-level module of
``dpbandits`` has a row (``cli`` may import everything)."""

TOOLS = Path(__file__).resolve().parents[1] / "tools"
"""The repository's tools (the docs' hooks, the argument walk): above the package, like ``cli``."""


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
def test_every_package_has_a_layer():
    """A new package or top-level module must be placed in the layer table."""
    found = {path.name.removesuffix(".py") for path in SRC.iterdir()
             if (path.is_dir() and (path / "__init__.py").exists()) or path.suffix == ".py"}
    unplaced = sorted(found - set(FORBIDDEN) - {"__init__"})
    assert not unplaced, f"packages with no layer in tests/test_layers.py FORBIDDEN: {unplaced}"


@pytest.mark.exact
def test_the_tools_import_the_package_only_through_its_public_packages():
    """The tools sit above the package: they import its packages, never a private module."""
    bad = []
    for path in sorted(TOOLS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpbandits"):
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("dpbandits")]
            else:
                continue
            bad += [f"{path.name} imports {n}" for n in names if "._" in n]
    assert not bad, "\n".join(bad)


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


# --- algorithm names only in the algorithm's own place -------------------------------------------

def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (of a module, class or function, or
    an attribute's docstring after its assignment): prose, where an example may name anything."""
    found = set()
    for node in ast.walk(tree):
        for statement in getattr(node, "body", []) if isinstance(getattr(node, "body", None), list) else []:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) \
                    and isinstance(statement.value.value, str):
                found.add(id(statement.value))
    return found


def names_in_code(text: str, names: set[str]) -> set[str]:
    """The registered names that the code ``text`` holds as a string (``"NAME"``, ``"NAME[..."``,
    ``"NAME:..."``), docstrings aside."""
    tree = ast.parse(text)
    prose = _docstrings(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            found |= {n for n in names if node.value == n or node.value.startswith((n + "[", n + ":"))}
    return found


def _own_place(path: Path) -> set[str] | None:
    """The names module ``path`` may hold: an algorithm's module (under reference/bandit,
    fullinfo or matroid) its own, a compiled kernel the algorithms that declare it, a paper's
    bounds or experiments any (they stay with their paper), the registry its table; None: no
    name (shared code)."""
    from dpbandits.reference import registry

    relative = path.relative_to(SRC).as_posix() if SRC in path.parents else None
    if relative is None:
        return None
    if relative == "reference/registry.py":
        return set(registry.ALGORITHMS) | set(registry.ALIASES)
    if relative.split("/")[0] == "reference" and relative.split("/")[1] in ("bandit", "fullinfo",
                                                                          "matroid"):
        module = relative.removeprefix("reference/").removesuffix(".py").replace("/", ".")
        return {n for n, target in registry.ALGORITHMS.items() if target.split(":")[0] == module}
    if relative.startswith("compiled/"):
        kernel = relative.removeprefix("compiled/").removesuffix(".py")
        return {n for n in registry.ALGORITHMS if registry.declaration(n, "kernel") == kernel}
    if (relative.startswith("bounds/") and relative not in ("bounds/__init__.py", "bounds/core.py",
                                                            "bounds/check.py", "bounds/simulated.py")) \
            or relative.startswith("reproduce/experiments/"):
        return set(registry.ALGORITHMS)
    return None


EXAMPLES = {"argument_walk.py": "it measures one example command, `validate --against "
                                "anytime-lazy-ucb` (docs/architecture.md states the counts)"}
"""Tools that name an algorithm as the example they run, and why."""


@pytest.mark.exact
def test_shared_code_names_no_algorithm():
    """Outside an algorithm's own places (its module, its kernel, its paper's bounds and
    experiments, the registry's line), no module of the package and no tool holds an
    algorithm's name in its code: the machinery reads the registry."""
    from dpbandits.reference import registry

    names = set(registry.ALGORITHMS) | set(registry.ALIASES)
    problems = []
    for path in sorted([*SRC.rglob("*.py"), *TOOLS.glob("*.py")]):
        if path.parent == TOOLS and path.name in EXAMPLES:
            continue
        allowed = _own_place(path) or set()
        named = names_in_code(path.read_text(), names) - allowed
        if named:
            problems.append(f"{path.relative_to(SRC.parents[1])} names {sorted(named)}: read "
                            f"the registry (or the algorithm's declarations) instead")
    assert not problems, "\n".join(problems)


@pytest.mark.exact
def test_the_name_check_sees_a_planted_name_and_skips_prose():
    text = 'def f():\n    """Example: make("dp-se", ...)."""\n    return get("dp-se")\n'
    assert names_in_code(text, {"dp-se", "ucb1"}) == {"dp-se"}
    assert names_in_code('"""Only "dp-se" in prose."""\nX = 1\n', {"dp-se"}) == set()
    assert names_in_code('X = ("ucb1[paper]", "ucb1:T=5")\n', {"ucb1"}) == {"ucb1"}
