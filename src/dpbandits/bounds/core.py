"""The bound object: a named SymPy expression with its source, status, condition and evaluator.

Every theorem, corollary or lemma of the five papers that bounds regret (or composes privacy) is a
:class:`Bound`. A bound is a closed expression in scalar symbols (``T``, ``epsilon``, ``K``, ...)
plus, for instance-dependent bounds, a *per-arm term* in the gap symbol ``Delta`` that is summed
over the suboptimal arms (``Delta_j > 0``). Keeping the sum structured (rather than a SymPy ``Sum``
over an ``IndexedBase``) lets :meth:`Bound.evaluate` take a gap vector directly, vectorised over
arrays of ``T`` and ``epsilon``, while :attr:`Bound.expression` still renders the whole formula.

Status of constants (``Bound.constants``):

``paper``    every constant is printed in the paper;
``derived``  the paper states the result with O(.) only; the constant was worked out by following
             the paper's proof (labelled [DERIVED], with the derivation in the docstring or on the
             algorithm's docs page); a safe upper bound under the proof's
             assumptions, not a claim of the paper;
``free``     the expression contains a symbol standing for a constant the paper never states (e.g.
             ``C_11``); it must be given a value to be evaluated and is not checked against
             simulation;
``order``    an O(.) / Omega(.) statement only, recorded with unit constants, for its rate.

Status of the statement (``Bound.status``): ``stated`` (as printed), ``corrected`` (the printed
form is wrong; this is the fix, ``Bound.printed`` names the printed one), ``flawed`` (as printed,
but the proof does not establish it; simulations must not be asserted against it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import sympy as sp

from ..errors import DPBanditsError

__all__ = ["Bound", "T", "t", "epsilon", "K", "Delta", "Delta_min", "delta", "L", "m", "n",
           "positive", "KINDS", "CONSTANTS", "STATUSES"]

# Symbols shared by every paper's module, declared once with their assumptions.
T = sp.Symbol("T", positive=True)
"""Horizon (number of rounds)."""
t = sp.Symbol("t", positive=True)
"""Current round, for anytime bounds."""
epsilon = sp.Symbol("epsilon", positive=True)
"""Privacy parameter."""
K = sp.Symbol("K", positive=True, integer=True)
"""Number of arms or experts."""
Delta = sp.Symbol("Delta", positive=True)
"""The gap of one suboptimal arm, in per-arm terms."""
Delta_min = sp.Symbol("Delta_min", positive=True)
"""Smallest positive gap."""
delta = sp.Symbol("delta", positive=True)
"""Failure probability / approximate-DP slack."""
L = sp.Symbol("L", positive=True, integer=True)
"""Number of base arms (matroids)."""
m = sp.Symbol("m", positive=True, integer=True)
"""Rank of a matroid."""
n = sp.Symbol("n", positive=True, integer=True)
"""Number of observations of one arm."""


def positive(name: str, **assumptions: Any) -> sp.Symbol:
    """A positive symbol (the papers' quantities are all positive)."""
    return sp.Symbol(name, positive=True, **assumptions)


KINDS = ("upper", "lower", "privacy", "error")
CONSTANTS = ("paper", "derived", "free", "order")
STATUSES = ("stated", "corrected", "flawed")


@dataclass(frozen=True)
class Bound:
    """One result of a paper as a SymPy expression.

    The value of the bound is ``rest + sum over suboptimal arms of per_arm(Delta_j)``; either part
    may be zero. ``condition`` is a SymPy relational (or ``True``) in the same symbols: the domain
    on which the paper asserts the result; :meth:`evaluate` returns NaN where it fails.
    """

    key: str
    """Identifier, ``<paper>.<result>``, e.g. ``hu2021.thm7``."""
    title: str
    """The result as the paper names it, e.g. ``Theorem 7 (problem-dependent regret of FTNL)``."""
    source: str
    """Citation down to the theorem, appendix or equation of the paper."""
    kind: str
    """``upper`` or ``lower`` (regret), ``privacy`` (an epsilon), ``error`` (a mechanism's error)."""
    quantity: str
    """What is bounded, e.g. ``expected pseudo-regret R(T)``."""
    constants: str
    """``paper``, ``derived``, ``free`` or ``order`` (module docstring)."""
    rest: sp.Expr = sp.Integer(0)
    """The part of the bound that is not a sum over arms."""
    per_arm: sp.Expr | None = None
    """Term in ``Delta`` summed over arms with positive gap (``None``: not instance-dependent)."""
    condition: sp.Basic = sp.true
    """Domain of validity as a SymPy boolean over the bound's symbols."""
    algorithms: tuple[str, ...] = ()
    """Registry names of the algorithms (and ``name:variant``) the bound is about."""
    status: str = "stated"
    """``stated``, ``corrected`` or ``flawed``."""
    printed: str | None = None
    """Key of the printed (wrong) form when ``status`` is ``corrected``."""
    order: sp.Expr | None = None
    """The leading order the paper's O(.) / Omega(.) statement claims, for the symbolic checks."""
    note: str = ""
    """Deviations, typos fixed, and where the constant comes from."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Fixed values of free parameters of the bound (e.g. ``lambda_0 = 0.5``), documented."""
    instance: str = ""
    """Where the result applies: ``""`` any instance of its setting; ``"deterministic"`` only the
    deterministic setting (every round's vector equal to the means); otherwise the name of the one
    setting it is about (a minimax lower bound's hard instance)."""
    asymptotic: bool = False
    """True for a statement about the limit T -> infinity only (not a bound at any finite T)."""
    monotone: tuple[str, ...] = ("T+", "epsilon-")
    """Shape the bound must have, checked by the tests on a grid inside its condition: ``T+``
    non-decreasing in T, ``epsilon-`` non-increasing in epsilon (symbols it does not contain are
    skipped); an empty tuple when the result has no such shape (e.g. a privacy composition)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise DPBanditsError(f"bound {self.key}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.constants not in CONSTANTS:
            raise DPBanditsError(f"bound {self.key}: constants must be one of {CONSTANTS}")
        if self.status not in STATUSES:
            raise DPBanditsError(f"bound {self.key}: status must be one of {STATUSES}")
        if self.status == "corrected" and not self.printed:
            raise DPBanditsError(f"bound {self.key}: a corrected bound names its printed form")

    # -- symbolic views -------------------------------------------------------------------------

    @property
    def expression(self) -> sp.Expr:
        """The whole bound, the per-arm part written as a sum over suboptimal arms ``j``."""
        if self.per_arm is None:
            return self.rest
        j = sp.Symbol("j", integer=True, positive=True)
        gap = sp.Indexed(sp.IndexedBase("Delta"), j)
        return self.rest + sp.Sum(self.per_arm.subs(Delta, gap), (j, 2, K))

    @property
    def symbols(self) -> tuple[str, ...]:
        """Names of the free symbols :meth:`evaluate` needs (``gaps`` stands for every Delta_j)."""
        names = {s.name for s in self.rest.free_symbols}
        if self.per_arm is not None:
            names |= {s.name for s in self.per_arm.free_symbols} - {"Delta"}
            names.add("gaps")
        names |= {s.name for s in self.condition.free_symbols} - {"Delta"}
        names -= set(self.settings)
        return tuple(sorted(names))

    def latex(self) -> str:
        """LaTeX of the whole bound (``\\le`` or ``\\ge`` against ``R(T)``)."""
        relation = {"upper": r"\le", "lower": r"\ge"}.get(self.kind, "=")
        left = {"upper": r"\mathcal{R}(T)", "lower": r"\mathcal{R}(T)"}.get(self.kind, "")
        body = sp.latex(self.expression)
        return f"{left} {relation} {body}" if left else body

    def is_explicit(self) -> bool:
        """True when every constant is known (paper's or derived), so the bound can be evaluated."""
        return self.constants in ("paper", "derived")

    def with_settings(self, **values: Any) -> "Bound":
        """The same bound with free parameters fixed (recorded in ``settings``)."""
        merged = dict(self.settings)
        merged.update(values)
        return replace(self, settings=merged)

    # -- numerical evaluation ---------------------------------------------------------------------

    def evaluate(self, *, gaps: Iterable[float] | np.ndarray | None = None,
                 **values: Any) -> np.ndarray | float:
        """Evaluate the bound numerically, broadcasting over array-valued scalars.

        ``gaps`` is the vector of gaps Delta_j = mu* - mu_j of every arm (zeros for optimal arms are
        skipped, as the papers sum over ``j: Delta_j > 0``); the other symbols are passed by name
        (``T=np.array([...]), epsilon=1.0``). Where the condition fails the value is NaN.
        """
        values = {**self.settings, **values}
        missing = [s for s in self.symbols if s != "gaps" and s not in values]
        if missing:
            raise DPBanditsError(f"bound {self.key} needs values for {missing}")
        if self.per_arm is not None and gaps is None:
            raise DPBanditsError(f"bound {self.key} is instance-dependent: pass gaps=")
        arrays = {name: _checked_values(name, value) for name, value in values.items()}
        total = _lambdified(self.rest, tuple(sorted(arrays)))(**arrays) + np.zeros(())
        ok = _lambdified_condition(self.condition, tuple(sorted(arrays)))
        valid = np.ones(np.shape(total), dtype=bool)
        if self.per_arm is not None:
            gap_vector = _checked_gaps(gaps)
            term = _lambdified(self.per_arm, tuple(sorted(arrays)) + ("Delta",))
            for gap in gap_vector[gap_vector > 0]:
                total = total + term(**arrays, Delta=gap)
                valid = valid & np.asarray(ok(**arrays, Delta=gap), dtype=bool)
        else:
            valid = valid & np.asarray(ok(**arrays, Delta=np.nan), dtype=bool)
        total, valid = np.broadcast_arrays(np.asarray(total, dtype=float), valid)
        out = np.where(valid, total, np.nan)
        return float(out) if out.ndim == 0 else out

    def holds_on(self, **values: Any) -> bool:
        """Whether the condition of validity holds at the given point (all gaps for per-arm ones)."""
        gaps = values.pop("gaps", None)
        values = {**self.settings, **values}
        ok = _lambdified_condition(self.condition, tuple(sorted(values)))
        arrays = {k: _checked_values(k, v) for k, v in values.items()}
        if self.per_arm is None or gaps is None:
            return bool(np.all(ok(**arrays, Delta=np.nan)))
        g = _checked_gaps(gaps)
        return all(bool(np.all(ok(**arrays, Delta=x))) for x in g[g > 0])

    def summary(self) -> str:
        """One line: key, kind, constants and status."""
        extra = f", printed form {self.printed}" if self.printed else ""
        return f"{self.key}: {self.title} [{self.kind}; constants {self.constants}; {self.status}{extra}]"


_STRICTLY_POSITIVE = {"T", "t", "epsilon", "K", "L", "m", "n", "delta", "Delta_min"}


def _checked_values(name: str, value: Any) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if np.any(~np.isfinite(array)):
        raise DPBanditsError(f"{name} must be finite, got {value!r}")
    if np.any(array < 0) or (name in _STRICTLY_POSITIVE and np.any(array <= 0)):
        raise DPBanditsError(f"{name} must be positive, got {value!r}")
    return array


def _checked_gaps(gaps: Any) -> np.ndarray:
    g = np.asarray(gaps, dtype=float).ravel()
    if g.size == 0 or np.any(~np.isfinite(g)) or np.any(g < 0) or np.any(g > 1):
        raise DPBanditsError(f"gaps must be finite and in [0, 1], got {gaps!r}")
    if not np.any(g > 0):
        raise DPBanditsError("gaps has no positive entry: every arm is optimal")
    return g


_CACHE: dict[tuple, Callable[..., Any]] = {}


def _real_lambertw(x: Any, k: int = 0) -> np.ndarray:
    """Lambert W on its real branches (NaN where the branch is not real)."""
    from scipy.special import lambertw

    value = lambertw(x, k)
    return np.where(np.abs(np.imag(value)) < 1e-12, np.real(value), np.nan)


_REAL_FUNCTIONS = {"LambertW": _real_lambertw}

def _lambdified(expr: sp.Expr, names: tuple[str, ...]) -> Callable[..., Any]:
    key = (sp.srepr(expr), names)
    if key not in _CACHE:
        symbols = [sp.Symbol(n) for n in names]
        plain = expr.xreplace({s: sp.Symbol(s.name) for s in expr.free_symbols})
        _CACHE[key] = sp.lambdify(symbols, plain, modules=[_REAL_FUNCTIONS, "scipy", "numpy"])
    function = _CACHE[key]
    return lambda **kw: function(*(kw[n] for n in names))


def _lambdified_condition(condition: sp.Basic, names: tuple[str, ...]) -> Callable[..., Any]:
    if condition is sp.true or condition == True:  # noqa: E712  (SymPy's true)
        return lambda **kw: True
    names = names if "Delta" in names else names + ("Delta",)
    if isinstance(condition, sp.And):   # numpy's reduce over conjuncts of mixed shapes fails
        parts = [_lambdified(arg, names) for arg in condition.args]
        return lambda **kw: np.logical_and.reduce(np.broadcast_arrays(*(np.asarray(f(**kw)) for f in parts)))
    return _lambdified(condition, names)
