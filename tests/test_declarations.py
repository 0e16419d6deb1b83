"""What each registered algorithm declares for the machinery (dpbandits.reference.declarations).

Kinds: exact (the registry is walked; each declaration is checked against the code it names:
the kernel module exists and covers the algorithm, the designs and known pairs build
neighbouring tables at the declared arms, the white-box statistic is an attribute of a built
policy, presets and trace settings are accepted by the algorithm).

A family is the algorithms with one feedback model (bandit, full, semi) that are private, or
that are not. Within a family, a declaration that one member has, every member has or declines
with a reason (:class:`~dpbandits.reference.declarations.Declined`). The audit's designed pairs
and known worst cases count as one declaration ("audit pairs"): each private algorithm audited
beyond the generic candidates has one or the other. Presets, trace settings, release structures
and parameter domains are facts of one algorithm, not of a family, and are only checked for form.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest

from dpbandits.reference import registry
from dpbandits.reference.declarations import (DECLARATIONS, AuditDesign, AuditPreset, Declined,
                                              KnownPairs, TraceSetting)
from dpbandits.reference.domains import RESERVED
from dpbandits.reference.neighbours import ROW

FAMILY_DECLARATIONS = ("kernel", "audit pairs", "white_box_statistic")
"""Declarations that every member of a family has when one member has it."""

COMPILED = Path(__file__).resolve().parents[1] / "src" / "dpbandits" / "compiled"


def family(cls) -> tuple[str, bool]:
    return cls.feedback, cls.private


def has(cls, declaration: str) -> bool:
    """Whether ``cls`` declares ``declaration`` (a value, or a :class:`Declined` with a reason)."""
    if declaration == "audit pairs":
        return any(getattr(cls, a) is not None for a in ("audit_design", "known_pairs"))
    return getattr(cls, declaration) is not None


def missing(classes: dict[str, type]) -> list[str]:
    """'<name> lacks <declaration> (declared by <other> of its family <family>)' for every gap."""
    gaps = []
    for name, cls in classes.items():
        kin = {other: c for other, c in classes.items() if family(c) == family(cls)}
        for declaration in FAMILY_DECLARATIONS:
            holders = [other for other, c in kin.items() if has(c, declaration)]
            if holders and not has(cls, declaration):
                gaps.append(f"{name} lacks {declaration} (declared by {', '.join(holders)} of its "
                            f"family {family(cls)})")
    return gaps


CLASSES = {name: registry.get(name) for name in registry.ALGORITHMS}


@pytest.mark.exact
def test_every_algorithm_declares_what_its_family_declares():
    assert not missing(CLASSES), "\n".join(missing(CLASSES))


@pytest.mark.exact
def test_a_missing_declaration_is_named(monkeypatch):
    planted = type("WithoutKernel", (CLASSES["hedge"],), {"kernel": None})
    assert missing({**CLASSES, "hedge": planted}) == [
        "hedge lacks kernel (declared by ftl of its family ('full', False))"]
    monkeypatch.setattr(CLASSES["dp-se"], "audit_design", None)
    assert "dp-se lacks audit pairs" in "\n".join(missing(CLASSES))
    monkeypatch.setattr(CLASSES["dp-se"], "white_box_statistic", None)
    assert "dp-se lacks white_box_statistic" in "\n".join(missing(CLASSES))


@pytest.mark.exact
@pytest.mark.parametrize("name", list(registry.ALGORITHMS))
def test_declarations_are_well_formed(name):
    cls = CLASSES[name]
    for declaration in DECLARATIONS:
        value = getattr(cls, declaration)
        if isinstance(value, Declined):
            assert value.reason.strip(), f"{name}: {declaration} declined without a reason"
    kernel = registry.declaration(name, "kernel")       # declined declarations read as None
    if kernel is not None:
        assert (COMPILED / f"{kernel}.py").is_file(), f"{name}: no kernel module {kernel}"
        source = (COMPILED / f"{kernel}.py").read_text()
        assert f'"{name}"' in source.split("ALGORITHMS = ", 1)[1].split(")", 1)[0], \
            f"{name}: kernel {kernel} does not list it in its ALGORITHMS"
    design = registry.declaration(name, "audit_design")
    if design is not None:
        assert isinstance(design, AuditDesign) and design.why.strip() and design.arms >= 2
        K = design.arms
        T = design.designed_horizon(K, 1.0, {})
        tables = design.tables(K, 1.0, None, {})
        assert T is not None and tables, f"{name}: the design gives no pair at its horizon"
        assert design.release_horizon(K, 1.0, {}) <= T
        for D0, D1, step, description in tables:
            assert D0.shape == D1.shape == (T, K) and 1 <= step <= T and description
            assert ROW.distance(D0, D1) == 1 and np.all((D0 >= 0) & (D0 <= 1))
    known = registry.declaration(name, "known_pairs")
    if known is not None:
        assert isinstance(known, KnownPairs) and known.arms >= 2
        assert known.source.startswith("docs/errata.md#")
        for D0, D1, step, description in known.build(known.arms, 16):
            assert D0.shape == (16, known.arms) and ROW.distance(D0, D1) <= 1 and description
    statistic = registry.declaration(name, "white_box_statistic")
    if statistic is not None:
        policy = registry.make(name, 2, epsilon=1.0, rng=0, T=16)
        value = policy
        for part in statistic.split("."):
            value = getattr(value, part)
        assert np.asarray(value, dtype=float).size == policy.runs * policy.K
    preset = registry.declaration(name, "audit_preset")
    if preset is not None:
        assert isinstance(preset, AuditPreset) and preset.why.strip() and preset.settings()
        registry.make(name, 2, epsilon=preset.epsilon or 1.0, rng=0, T=preset.T or 16,
                      **(preset.params or {}))
    setting = registry.declaration(name, "trace_setting")
    if setting is not None:
        assert isinstance(setting, TraceSetting) and setting.why.strip()
        registry.make(name, setting.K or 2, epsilon=1.0, rng=0, T=setting.T or 16,
                      **setting.params)
    structure = registry.declaration(name, "release_structure")
    if structure is not None:
        assert structure.startswith("data-independent: ")
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", *RESERVED}
    assert set(cls.parameter_domains) <= accepted, f"{name}: domains of unknown parameters"


def declared_by_classes(classes: dict[str, type], attribute: str) -> dict[str, object]:
    """Name -> the class attribute ``attribute``, where it is set and not declined: what the
    machinery must read through the registry (a :class:`Declined` declaration reads as none)."""
    return {name: getattr(cls, attribute) for name, cls in classes.items()
            if getattr(cls, attribute) is not None
            and not isinstance(getattr(cls, attribute), Declined)}


def machinery_mismatches(classes: dict[str, type]) -> list[str]:
    """What the machinery reads that differs from the classes' declarations, one line each,
    saying what to do."""
    from dpbandits.accountant import STRUCTURE, TRACE_SETTINGS
    from dpbandits.audit.design import DESIGNED_ARMS
    from dpbandits.audit.pairs import DEFAULT_ARMS
    from dpbandits.audit.runner import AUDIT_PRESETS
    from dpbandits.audit.whitebox import WHITE_BOX_STATISTICS
    from dpbandits.compiled import KERNELS, kernel_module

    problems = []
    kernels = declared_by_classes(classes, "kernel")
    if dict(KERNELS) != kernels:
        problems.append(f"the compiled backend reads the kernels {dict(KERNELS)}, the classes "
                        f"declare {kernels}: declare a kernel as the module's name under "
                        f"dpbandits/compiled/ (kernel = \"my_algo\"), or decline it "
                        f"(kernel = Declined(\"why only the reference runs it\"))")
    for name, kernel in kernels.items():
        module = kernel_module(name)
        if module is None or not module.__name__.endswith("." + kernel):
            problems.append(f"{name}: its kernel {kernel!r} is not the module the compiled "
                            f"backend loads ({module}); name the module of dpbandits/compiled/")
    for name in set(classes) - set(kernels):
        if kernel_module(name) is not None:
            problems.append(f"{name} declares no kernel (or declines one) but the compiled "
                            f"backend loads {kernel_module(name).__name__}")
    for what, read, attribute in (
            ("the audit's designed pairs", DESIGNED_ARMS, "audit_design"),
            ("the audit's known pairs", DEFAULT_ARMS, "known_pairs"),
            ("the white-box audit", WHITE_BOX_STATISTICS, "white_box_statistic"),
            ("dpbandits audit --all's presets", AUDIT_PRESETS, "audit_preset"),
            ("the accountant's release structures", STRUCTURE, "release_structure"),
            ("the accountant's trace settings", TRACE_SETTINGS, "trace_setting")):
        expected = set(declared_by_classes(classes, attribute))
        if set(read) != expected:
            problems.append(f"{what} read {sorted(read)}, the classes declare {attribute} for "
                            f"{sorted(expected)}: set {attribute} as a class attribute of the "
                            f"algorithm (dpbandits.reference.declarations), registered in "
                            f"registry.ALGORITHMS")
    return problems


@pytest.mark.exact
def test_the_machinery_reads_the_declarations():
    problems = machinery_mismatches(CLASSES)
    assert not problems, "\n".join(problems)


@pytest.mark.exact
def test_a_declined_kernel_is_read_as_no_kernel(monkeypatch):
    """An algorithm that declines its kernel (as docs/tutorials/new-algorithm.md allows) runs in
    the reference only; the machinery then reads no kernel for it, and the test accepts it."""
    from dpbandits.compiled import KERNELS, kernel_module

    monkeypatch.setattr(CLASSES["hedge"], "kernel", Declined("runs in the reference only"))
    KERNELS._table = None                    # read the declarations again
    try:
        assert "hedge" not in dict(KERNELS) and kernel_module("hedge") is None
        assert machinery_mismatches(CLASSES) == []
    finally:
        monkeypatch.undo()
        KERNELS._table = None


@pytest.mark.exact
def test_a_kernel_the_machinery_does_not_read_is_named_with_what_to_do():
    planted = type("WithKernel", (CLASSES["hedge"],), {"kernel": "no_such_kernel"})
    problems = "\n".join(machinery_mismatches({**CLASSES, "hedge": planted}))
    assert "kernel = Declined(" in problems and "no_such_kernel" in problems


GENERIC = ("audit/design.py", "audit/whitebox.py", "audit/pairs.py", "audit/runner.py",
           "audit/mechanism.py", "accountant/__init__.py", "accountant/lockstep.py",
           "accountant/tracing.py", "accountant/enumeration.py", "accountant/composition.py",
           "accountant/upper.py", "accountant/brackets.py", "compiled/__init__.py",
           "reference/engine.py", "reference/registry.py", "reference/parameters.py",
           "reference/domains.py", "reference/declarations.py", "report/parts.py")
"""The generic machinery: it reads declarations and names no registered algorithm."""


@pytest.mark.exact
@pytest.mark.parametrize("path", GENERIC)
def test_the_generic_machinery_names_no_algorithm(path):
    text = (COMPILED.parent / path).read_text()
    if path == "reference/registry.py":      # its one line per algorithm, and the aliases
        for table in ("ALGORITHMS: dict[str, str] = {", "ALIASES: dict[str, str] = {"):
            head, tail = text.split(table, 1)
            text = head + tail.split("}", 1)[1]
    named = [name for name in registry.ALGORITHMS
             if f'"{name}"' in text or f"'{name}'" in text or f'"{name}[' in text]
    assert not named, f"{path} names {named}"
