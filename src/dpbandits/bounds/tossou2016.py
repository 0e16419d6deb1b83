"""Bounds of Tossou & Dimitrakakis, "Algorithms for differentially private multi-armed bandits"
(AAAI 2016; HAL hal-01234427): eq. (2.2) and the theorems of Sec. 3 with their proofs (App. A, B).

Regret (all anytime, in the current round ``t``; natural logarithms except where noted):

- Theorem 3.2 (DP-UCB-BOUND) in four forms (Thm 3.2): ``stated`` (eq. 3.1 verbatim), the
  ``proof-consistent`` form (docs/errata.md#td-thm32-delta: the proof's B_a carries 1/Delta_a, the statement's B does
  not), the ``lambert`` form (the proof's Barry et al. approximation replaced by the exact root
  -B_a W_{-1}(-1/(e B_a))), and the ``corrected`` forms with 2 B_a (docs/errata.md#td-thm32-factor2: the proof drops a
  factor 2), closed and Lambert. The free lambda_0 is fixed at 0.5 (our choice; the paper
  gives none) in ``settings`` and may be overridden. The paper's analysis is of the printed noise
  scales (variant ``paper``); the ``corrected`` variant (Chan's eps/2 + eps/2 split, nu_a at
  eps/2) is exactly the paper variant run at eps/2, so its bound is the corrected Theorem 3.2 at
  eps/2 (:func:`thm3_2_chan`).
- Theorem 3.3 (DP-UCB), as stated; vacuous at the experiments' scale (Thm 3.3).
- Theorem 3.5 (DP-UCB-INT), as stated: its proof is flawed (docs/errata.md#td-thm35), so status ``flawed``; so is
  the abstract's O(1/eps + log T) claim that rests on it.

Privacy (kind ``privacy``): Theorem 3.4 printed and corrected (docs/errata.md#td-thm34-typos), the exact per-arm
accountant C, D over the release set f, 2f, ... (proof B.2, :func:`thm3_4_exact`; for the
Lemma B.1 series :func:`per_arm_accountant`, which composes the reference module's release
points), Corollary 3.1's two branches, Corollary 3.2's choice of the input epsilon.
Error (kind ``error``): the hybrid mechanism's bound (2.2) / Lemma B.2 under the paper's split
and under Chan's split, and Chan et al.'s bound as the paper quotes it (order only).

The partial sums sum_{n<=t} of Theorem 3.4 are SymPy functions (:class:`PowerSum`,
:class:`ExpSum`, :class:`ExpPowerSum`) that print and ``doit()`` as ``Sum`` and evaluate
numerically by direct summation, so every bound here evaluates through :meth:`Bound.evaluate`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from ..errors import DPBanditsError
from ..reference.bandit.dp_ucb_int import PrivacyBound, composition, release_points
from .core import Bound, Delta, epsilon, n, positive, t

__all__ = ["lambda_0", "v", "delta_prime", "epsilon_prime", "gamma", "f_0", "PowerSum", "ExpSum",
           "ExpPowerSum", "thm3_2_stated", "thm3_2_proof", "thm3_2_lambert", "thm3_2_corrected",
           "thm3_2_corrected_lambert", "thm3_2_chan", "thm3_3", "thm3_5", "abstract_claim",
           "thm3_4_printed", "thm3_4", "thm3_4_exact", "per_arm_accountant", "cor3_1_basic",
           "cor3_1_advanced", "cor3_2_input_epsilon", "hybrid_error", "hybrid_error_chan",
           "chan_hybrid_error", "bounds"]

lambda_0 = positive("lambda_0")
"""Theorem 3.2's free split lambda_0 in (0, 1)."""
v = positive("v")
"""DP-UCB-INT's noise exponent, v in (1, 1.5]."""
delta_prime = positive("delta_prime")
"""The slack delta' of the (eps', delta') claim."""
epsilon_prime = positive("epsilon_prime")
"""The target eps' of Corollary 3.2."""
gamma = positive("gamma")
"""Failure probability of the hybrid mechanism's error bound."""
f_0 = positive("f_0")
"""First length of the Lemma B.1 interval series (ceil(1/eps) for Algorithm 3 as written)."""

_MAX_TERMS = 10 ** 9
"""Largest upper limit a partial sum is evaluated at (direct summation, O(limit) time)."""
_CHUNK = 1 << 20


class _Series(sp.Function):
    """sum_{j=1}^{floor(m)} term((c j)^(-s)) for the arguments (s, c, m); 0 when m < 1.

    Subclasses name the term. Symbolically the function prints and ``doit()``s as the SymPy
    ``Sum``; numerically (``lambdify``, hence :meth:`Bound.evaluate`) it is summed term by term in
    float64, in chunks (relative error of order 1e-12 up to m = 1e9, the largest limit accepted).
    """

    nargs = 3
    is_real = True
    is_nonnegative = True

    @staticmethod
    def _term(x: Any) -> Any:
        raise NotImplementedError

    def _sum(self, s: sp.Expr, c: sp.Expr, m: sp.Expr) -> sp.Sum:
        j = sp.Symbol("j", integer=True, positive=True)
        return sp.Sum(self._term((c * j) ** (-s)), (j, 1, m))

    def doit(self, **hints: Any) -> sp.Expr:
        args = [a.doit(**hints) if hints.get("deep", True) else a for a in self.args]
        return self._sum(*args).doit(**hints)

    def _eval_rewrite_as_Sum(self, s: sp.Expr, c: sp.Expr, m: sp.Expr, **kwargs: Any) -> sp.Sum:
        return self._sum(s, c, m)

    def _latex(self, printer: Any) -> str:
        return printer._print(self._sum(*self.args))

    @classmethod
    def _imp_(cls, s: Any, c: Any, m: Any) -> np.ndarray:
        s, c, m = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (s, c, m)))
        out = np.full(s.shape, np.nan)
        ok = np.isfinite(s) & np.isfinite(c) & np.isfinite(m)
        ends = np.where(ok, np.floor(np.where(ok, m, 0.0)), 0.0).astype(np.int64)
        if np.any(ends > _MAX_TERMS):
            raise DPBanditsError(f"{cls.__name__}: upper limit {int(ends.max())} exceeds "
                                 f"{_MAX_TERMS} terms")
        out[ok & (ends < 1)] = 0.0
        wanted = ok & (ends >= 1)
        for s_value, c_value in {(a, b) for a, b in zip(s[wanted], c[wanted])}:
            where = np.flatnonzero(wanted & (s == s_value) & (c == c_value))
            out.flat[where] = cls._partial_sums(s_value, c_value, ends.flat[where])
        return out if out.ndim else float(out)

    @classmethod
    def _partial_sums(cls, s: float, c: float, ends: np.ndarray) -> np.ndarray:
        order = np.argsort(ends)
        sorted_ends = ends[order]
        values = np.empty(ends.size)
        total = 0.0
        for start in range(1, int(sorted_ends[-1]) + 1, _CHUNK):
            stop = min(start + _CHUNK - 1, int(sorted_ends[-1]))
            j = np.arange(start, stop + 1, dtype=float)
            partial = total + np.cumsum(cls._term((c * j) ** (-s)))
            lo = np.searchsorted(sorted_ends, start, side="left")
            hi = np.searchsorted(sorted_ends, stop, side="right")
            values[order[lo:hi]] = partial[sorted_ends[lo:hi] - start]
            total = float(partial[-1])
        return values


class PowerSum(_Series):
    """PowerSum(s, c, m) = sum_{j=1}^{m} (c j)^(-s)."""

    @staticmethod
    def _term(x: Any) -> Any:
        return x


class ExpSum(_Series):
    """ExpSum(s, c, m) = sum_{j=1}^{m} (e^((c j)^(-s)) - 1)."""

    @staticmethod
    def _term(x: Any) -> Any:
        return np.expm1(x) if isinstance(x, np.ndarray) else sp.exp(x) - 1


class ExpPowerSum(_Series):
    """ExpPowerSum(s, c, m) = sum_{j=1}^{m} (c j)^(-s) (e^((c j)^(-s)) - 1)."""

    @staticmethod
    def _term(x: Any) -> Any:
        return x * (np.expm1(x) if isinstance(x, np.ndarray) else sp.exp(x) - 1)


_PAPER = "Tossou & Dimitrakakis, AAAI 2016 (hal-01234427)"
_TAGS = ("dp-ucb-bound:paper",)
_LAMBDA = {"lambda_0": 0.5}
_VALID = sp.And(sp.Ge(t, 2), sp.Lt(lambda_0, 1))
_TAIL = Delta + 2 * sp.pi ** 2 * Delta / 3
_V_RANGE = sp.And(sp.Gt(v, 1), sp.Le(v, sp.Rational(3, 2)))
_PRIVACY_DOMAIN = sp.And(_V_RANGE, sp.Le(delta_prime, 1))


def _B() -> sp.Expr:
    return sp.sqrt(8) / (epsilon * (1 - lambda_0)) * sp.log(4 * t ** 4)


def _ucb(delta_: sp.Expr = Delta) -> sp.Expr:
    return 8 * sp.log(t) / (lambda_0 ** 2 * delta_)


def _thm(key: str, title: str, term: sp.Expr, constants: str = "paper", status: str = "stated",
         printed: str | None = None, note: str = "", algorithms: tuple[str, ...] = _TAGS) -> Bound:
    return Bound(key, title, f"{_PAPER}, Thm 3.2, App. A.1", "upper",
                 "expected pseudo-regret after t plays", constants, per_arm=term, condition=_VALID,
                 algorithms=algorithms, status=status, printed=printed, settings=_LAMBDA,
                 order=sp.log(t) / Delta + sp.log(t) * sp.log(sp.log(t)) / epsilon, note=note)


def thm3_2_stated() -> Bound:
    """Theorem 3.2, eq. (3.1) verbatim: sum_a max(B (ln B + 7), 8 ln t / (lambda_0^2 Delta_a))
    + Delta_a + 2 pi^2 Delta_a / 3, with B = sqrt(8) ln(4 t^4) / (eps (1 - lambda_0)).

    Constants: sqrt(8), 4, 7, 8 and 2 pi^2 / 3 are the paper's; lambda_0 in (0, 1) is the
    paper's free split, fixed at 0.5 in ``settings`` (our choice). Condition t >= 2.
    """
    B = _B()
    return _thm("tossou2016.thm3.2.stated", "Theorem 3.2 as printed (eq. 3.1)",
                sp.Max(B * (sp.log(B) + 7), _ucb()) + _TAIL,
                note="the statement's B lacks the proof's 1/Delta_a (docs/errata.md#td-thm32-delta)")


def thm3_2_proof() -> Bound:
    """Theorem 3.2 in the form its proof supports (docs/errata.md#td-thm32-delta): sum_a Delta_a [1 + max(B_a (ln B_a + 7),
    8 ln t / (lambda_0^2 Delta_a^2)) + 2 pi^2 / 3], B_a = B / Delta_a."""
    Ba = _B() / Delta
    term = Delta * (1 + sp.Max(Ba * (sp.log(Ba) + 7), _ucb(Delta ** 2)) + 2 * sp.pi ** 2 / 3)
    return _thm("tossou2016.thm3.2.proof", "Theorem 3.2, proof-consistent form", term,
                note="Barry et al.'s approximation of the Lambert root is not a proven inequality")


def thm3_2_lambert() -> Bound:
    """Theorem 3.2 with the exact Lambert root -B_a W_{-1}(-1/(e B_a)) (real for B_a > 1)."""
    Ba = _B() / Delta
    root = -Ba * sp.LambertW(-1 / (sp.E * Ba), -1)
    term = Delta * (1 + sp.Max(root, _ucb(Delta ** 2)) + 2 * sp.pi ** 2 / 3)
    return _thm("tossou2016.thm3.2.lambert", "Theorem 3.2, exact Lambert W form", term)


def thm3_2_corrected() -> Bound:
    """Theorem 3.2 corrected (docs/errata.md#td-thm32-factor2): the condition (1 - lambda_0) Delta_a > 2 h_n needs
    n > 2 B_a (log n + 1), so B_a becomes 2 B_a in the proof-consistent form."""
    Ba = 2 * _B() / Delta
    term = Delta * (1 + sp.Max(Ba * (sp.log(Ba) + 7), _ucb(Delta ** 2)) + 2 * sp.pi ** 2 / 3)
    return _thm("tossou2016.thm3.2", "Theorem 3.2 corrected (2 B_a, closed form)", term,
                constants="derived", status="corrected", printed="tossou2016.thm3.2.stated")


def thm3_2_corrected_lambert() -> Bound:
    """Theorem 3.2 corrected with the exact root -2 B_a W_{-1}(-1/(2 e B_a))."""
    Ba = 2 * _B() / Delta
    root = -Ba * sp.LambertW(-1 / (sp.E * Ba), -1)
    term = Delta * (1 + sp.Max(root, _ucb(Delta ** 2)) + 2 * sp.pi ** 2 / 3)
    return _thm("tossou2016.thm3.2.lambert-corrected", "Theorem 3.2 corrected (2 B_a, Lambert W)",
                term, constants="derived", status="corrected", printed="tossou2016.thm3.2.stated")


def thm3_2_chan() -> Bound:
    """Theorem 3.2 corrected (2 B_a, closed form) for the ``corrected`` variant of DP-UCB-BOUND.

    That variant splits each hybrid mechanism's budget as Chan et al. do (eps/2 + eps/2) and uses
    nu_a at eps/2 (Sec. 2 (hybrid mechanism), docs/errata.md#td-hybrid-budget), so it *is* the paper variant run at eps/2: its regret
    is bounded by :func:`thm3_2_corrected` with eps replaced by eps/2 (derived; B doubles).
    """
    term = thm3_2_corrected().per_arm.subs(epsilon, epsilon / 2)
    return _thm("tossou2016.thm3.2.chan", "Theorem 3.2 corrected, Chan budget split (eps -> eps/2)",
                term, constants="derived", status="corrected", printed="tossou2016.thm3.2.stated",
                algorithms=("dp-ucb-bound:corrected",),
                note="the corrected variant equals the paper variant at eps/2 (docs/errata.md#td-hybrid-budget)")


def thm3_3() -> Bound:
    """Theorem 3.3 (DP-UCB), as stated (Thm 3.3): sum_a Delta_a max(C^2 (ln C + 7)^2,
    8 ln t / Delta_a^2) + Delta_a + 4 Delta_a zeta(1.5), C = 56 (2 + sqrt 3.5) sqrt(ln t) / eps.

    Constants: C's 56 (2 + sqrt 3.5), the 7, 8 and 4 zeta(1.5) are all printed by the paper; its
    appendix A.2 is garbled; redoing it along Theorem 3.2's proof (docs/algorithms/dp-ucb.md,
    Regret: Theorem 3.3) reproduces 56 (2 + sqrt 3.5) exactly. That derivation drops ln 4 (docs/errata.md#td-thm33-constant) and uses Barry et al.'s approximation, and the
    analysis counts log n noise levels where DP-UCB's mechanisms have about log2 t (docs/errata.md#td-thm33-levels), so
    the bound is evaluated as stated, not as a proven inequality. The analysis is of the printed
    noise scales (variant ``paper``). Vacuous at the experiments' scale (3.0e7 at t = 1e5)."""
    C = 56 * (2 + sp.sqrt(sp.Rational(7, 2))) * sp.sqrt(sp.log(t)) / epsilon
    term = Delta * sp.Max(C ** 2 * (sp.log(C) + 7) ** 2, 8 * sp.log(t) / Delta ** 2) \
        + Delta + 4 * Delta * sp.zeta(sp.Rational(3, 2))
    return Bound("tossou2016.thm3.3", "Theorem 3.3: regret of DP-UCB", f"{_PAPER}, Thm 3.3, App. A.2",
                 "upper", "expected pseudo-regret after t plays", "paper", per_arm=term,
                 condition=sp.Ge(t, 2), algorithms=("dp-ucb:paper",),
                 order=sp.log(t) / Delta + sp.log(t) * sp.log(sp.log(t)) ** 2 / epsilon ** 2,
                 note="as stated (docs/errata.md#td-thm33-levels, docs/errata.md#td-thm33-constant); vacuous at the experiments' scale")


def thm3_5() -> Bound:
    """Theorem 3.5 (DP-UCB-INT), as stated: sum_a Delta_a [f_0 + 8 ln t / Delta_a^2 + 1 + 4 zeta(1.5)].
    Its proof's key step bounds n from above where it needs a lower bound (docs/errata.md#td-thm35): the theorem
    is not established, so it is never held against a simulation.

    Constants: 8 and 4 zeta(1.5) are the paper's; f_0 is a free symbol (the first length of the
    Lemma B.1 series, ceil(1/eps) for Algorithm 3 as written; at eps' = 1 these are 253, 124, 46).
    ``monotone`` is ``("T+",)``: the bound has no epsilon but through f_0."""
    term = Delta * (f_0 + 8 * sp.log(t) / Delta ** 2 + 1 + 4 * sp.zeta(sp.Rational(3, 2)))
    return Bound("tossou2016.thm3.5", "Theorem 3.5: regret of DP-UCB-INT (proof flawed)",
                 f"{_PAPER}, Thm 3.5, App. B.5, docs/errata.md#td-thm35", "upper",
                 "expected pseudo-regret after t plays", "paper", per_arm=term,
                 condition=sp.Ge(t, 2), algorithms=("dp-ucb-int",), status="flawed",
                 order=sp.log(t) / Delta, monotone=("T+",))


def abstract_claim() -> Bound:
    """The abstract's claim for DP-UCB-INT: "optimal regret, O(eps^-1 + log T)" (Abstract).

    Order only (unit constants). It rests on Theorem 3.5, whose proof is flawed (docs/errata.md#td-thm35), so it
    is ``flawed`` too."""
    return Bound("tossou2016.abstract", "Abstract: DP-UCB-INT regret O(1/eps + log T) (rests on Thm 3.5)",
                 f"{_PAPER}, Abstract, docs/errata.md#td-thm35", "upper",
                 "expected pseudo-regret after t plays", "order", rest=1 / epsilon + sp.log(t),
                 condition=sp.Ge(t, 2), algorithms=("dp-ucb-int",), status="flawed",
                 order=1 / epsilon + sp.log(t))




def thm3_4_printed() -> Bound:
    """Theorem 3.4 as printed (docs/errata.md#td-thm34-typos: sqrt(t^v) for sqrt(n^v), the factor n^(-v/2) lost):
    eps' <= min(sum_{n<=t} eps / sqrt(n^v), eps sum_{n<=t} (e^{1/sqrt(n^v)} - 1) / sqrt(t^v)
    + sqrt(eps sum_{n<=t} 2 ln(1/delta') / n^v)).

    All constants are the paper's. Domain as stated: v in (1, 1.5], delta' in (0, 1],
    eps in (0, 1], t >= 1. ``monotone=()``: a privacy level grows with eps and t, the opposite of a
    regret bound's shape (checked in the tests instead).
    """
    first = epsilon * PowerSum(v / 2, 1, t)
    second = (epsilon * ExpSum(v / 2, 1, t) / sp.sqrt(t ** v)
              + sp.sqrt(2 * epsilon * sp.log(1 / delta_prime) * PowerSum(v, 1, t)))
    return Bound("tossou2016.thm3.4.printed", "Theorem 3.4 as printed", f"{_PAPER}, Thm 3.4",
                 "privacy", "epsilon' of DP-UCB-INT after t steps", "paper", rest=sp.Min(first, second),
                 condition=sp.And(_PRIVACY_DOMAIN, sp.Le(epsilon, 1), sp.Ge(t, 1)),
                 algorithms=("dp-ucb-int",), monotone=(), note="typos docs/errata.md#td-thm34-typos")


def thm3_4() -> Bound:
    """Theorem 3.4 as its proof (B.3) gives (Thm 3.4, docs/errata.md#td-thm34-typos): eps' <= min(eps sum n^{-v/2},
    eps sum n^{-v/2} (e^{n^{-v/2}} - 1) + sqrt(2 eps ln(1/delta') sum n^{-v})), sums over n <= t.

    The first branch is basic composition (delta = 0), the second heterogeneous advanced
    composition (docs/errata.md#td-advanced-composition). All constants are the paper's; the same numbers as
    :func:`dpbandits.reference.bandit.dp_ucb_int.theorem_3_4`. Holds for constant f = ceil(1/eps)
    and the Lemma B.1 x-rule; under the y-rule only the second branch is justified (docs/errata.md#td-y-rule).
    ``monotone=()`` as for :func:`thm3_4_printed`.
    """
    first = epsilon * PowerSum(v / 2, 1, t)
    second = (epsilon * ExpPowerSum(v / 2, 1, t)
              + sp.sqrt(2 * epsilon * sp.log(1 / delta_prime) * PowerSum(v, 1, t)))
    return Bound("tossou2016.thm3.4", "Theorem 3.4 (typos fixed)", f"{_PAPER}, Thm 3.4, (B.3)",
                 "privacy", "epsilon' of DP-UCB-INT after t steps", "paper", rest=sp.Min(first, second),
                 condition=sp.And(_PRIVACY_DOMAIN, sp.Le(epsilon, 1), sp.Ge(t, 1)),
                 algorithms=("dp-ucb-int",), status="corrected", printed="tossou2016.thm3.4.printed",
                 monotone=())


def thm3_4_exact() -> Bound:
    """Theorem 3.4 before its eps-relaxation (proof B.2; Thm 3.4): one arm's releases at
    counts f, 2f, ..., up to its count n, f = ceil(1/eps) (Algorithm 3 as written):
    eps' <= min(C, D), C = sum_{j <= n/f} (j f)^{-v/2},
    D = sum_{j <= n/f} (j f)^{-v/2} (e^{(j f)^{-v/2}} - 1) + sqrt(2 ln(1/delta') sum (j f)^{-v}).

    Exact composition (no relaxation; constants the paper's), valid for any eps > 0; by parallel
    composition the worst arm's value is the algorithm's (``corrected`` variant, one release per
    new multiple of f). For the Lemma B.1 series see :func:`per_arm_accountant`.
    ``monotone=()``: it grows in n and is a step function of eps.
    """
    f = sp.ceiling(1 / epsilon)
    releases = sp.floor(n / f)
    C = PowerSum(v / 2, f, releases)
    D = ExpPowerSum(v / 2, f, releases) + sp.sqrt(2 * sp.log(1 / delta_prime) * PowerSum(v, f, releases))
    return Bound("tossou2016.thm3.4.exact", "Theorem 3.4, exact per-arm accountant (constant interval)",
                 f"{_PAPER}, Thm 3.4, proof (B.2)", "privacy",
                 "epsilon' of one arm's releases up to its count n", "paper", rest=sp.Min(C, D),
                 condition=sp.And(_PRIVACY_DOMAIN, sp.Ge(n, 1)), algorithms=("dp-ucb-int:corrected",),
                 monotone=(), note="exact C and D over the release set (Thm 3.4)")


def per_arm_accountant(epsilon: float, v: float, delta_prime: float, n_a: int,
                       interval: str = "constant") -> PrivacyBound:
    """The exact C (``basic``) and D (``advanced``) of one arm after ``n_a`` pulls (Thm 3.4).

    The release set is {f, 2f, ...} (``interval="constant"``) or Lemma B.1's x- or y-series, up to
    ``n_a`` (:func:`dpbandits.reference.bandit.dp_ucb_int.release_points`), composed by
    :func:`dpbandits.reference.bandit.dp_ucb_int.composition` (Lemma 3.1 per release; basic and
    heterogeneous advanced composition). Under the y-rule only ``advanced`` is covered by
    Corollary 3.1's closed form (docs/errata.md#td-y-rule); the exact ``basic`` is still valid composition.
    """
    return composition(release_points(epsilon, v, n_a, interval), v, delta_prime)


def cor3_1_basic() -> Bound:
    """Corollary 3.1, basic branch (integral test): eps (t^{1-v/2} - v/2) / (1 - v/2) (Cor. 3.1).

    Constants the paper's. Valid for the x-rule or a constant interval, not for the y-rule
    (Lemma B.1, docs/errata.md#td-y-rule: exact C = 1.676 > 1.562 there). Domain v in (1, 1.5], eps in (0, 1].
    ``monotone=()``: a privacy level, non-decreasing in eps and t (checked in the tests)."""
    return Bound("tossou2016.cor3.1.basic", "Corollary 3.1, basic-composition branch",
                 f"{_PAPER}, Cor 3.1", "privacy", "epsilon' after t steps", "paper",
                 rest=epsilon * (t ** (1 - v / 2) - v / 2) / (1 - v / 2),
                 condition=sp.And(_V_RANGE, sp.Le(epsilon, 1), sp.Ge(t, 1)), algorithms=("dp-ucb-int",),
                 monotone=())


def cor3_1_advanced() -> Bound:
    """Corollary 3.1, advanced branch: 2 eps zeta(v) + sqrt(2 eps zeta(v) ln(1/delta')), any t.

    Constants the paper's (from x (e^x - 1) <= 2 x^2 on [0, 1] and sum n^{-v} <= zeta(v)).
    Domain v in (1, 1.5], delta' in (0, 1], eps in (0, 1]. ``monotone=()`` as the basic branch."""
    z = sp.zeta(v)
    return Bound("tossou2016.cor3.1.advanced", "Corollary 3.1, advanced-composition branch",
                 f"{_PAPER}, Cor 3.1", "privacy", "epsilon' (with delta')", "paper",
                 rest=2 * epsilon * z + sp.sqrt(2 * epsilon * z * sp.log(1 / delta_prime)),
                 condition=sp.And(_PRIVACY_DOMAIN, sp.Le(epsilon, 1)), algorithms=("dp-ucb-int",),
                 monotone=())


def cor3_2_input_epsilon() -> Bound:
    """Corollary 3.2: the input eps = (sqrt((ln(1/delta') + 4 eps') / (8 zeta(v)))
    - sqrt(ln(1/delta') / (8 zeta(v))))^2 that makes the advanced branch equal eps' (its exact
    positive root in sqrt(eps); Cor. 3.2). Constants the paper's; domain eps', delta' in (0, 1],
    v in (1, 1.5]. ``monotone=()``: a parameter choice, increasing in eps'."""
    z = sp.zeta(v)
    L_ = sp.log(1 / delta_prime)
    rest = (sp.sqrt((L_ + 4 * epsilon_prime) / (8 * z)) - sp.sqrt(L_ / (8 * z))) ** 2
    return Bound("tossou2016.cor3.2", "Corollary 3.2: input epsilon for a target (eps', delta')",
                 f"{_PAPER}, Cor 3.2", "privacy", "input epsilon of Algorithm 3", "paper",
                 rest=rest, condition=sp.And(_PRIVACY_DOMAIN, sp.Le(epsilon_prime, 1)),
                 algorithms=("dp-ucb-int",), monotone=())


def _hybrid_error(scale: int) -> sp.Expr:
    return scale * sp.sqrt(8) / epsilon * sp.log(4 / gamma) * (sp.log(n, 2) + 1)


_HYBRID_CONDITION = sp.Ge(sp.log(4 / gamma), sp.floor(sp.log(n, 2)) + 1)


def hybrid_error() -> Bound:
    """Eq. (2.2) / Lemma B.2: with probability >= 1 - gamma the hybrid mechanism's
    count is within (sqrt 8 / eps) ln(4/gamma) (log2 n + 1) of the true sum, under the paper's
    noise convention (Lap(1/eps) and Lap(k/eps)). Constants sqrt 8 and 4 are the paper's; the
    proof is missing from the paper and Chan, Shi & Song's Corollary 2.9 reproduces it.
    The paper's condition gamma <= n^{-b} does not imply the proof's ln(4/gamma) >=
    floor(log2 n) + 1 for every b (docs/errata.md#td-lemma-b2); the condition here is the proof's."""
    return Bound("tossou2016.hybrid-error", "Eq. (2.2): error of the hybrid mechanism",
                 f"{_PAPER}, eq. (2.2), Lemma B.2", "error",
                 "|H(n) - sum_{i<=n} r_i| with probability >= 1 - gamma", "paper", rest=_hybrid_error(1),
                 condition=_HYBRID_CONDITION, algorithms=("dp-ucb-bound:paper", "dp-ucb:paper"),
                 order=sp.log(4 / gamma) * sp.log(n) / epsilon, monotone=("epsilon-",))


def hybrid_error_chan() -> Bound:
    """Eq. (2.2) under Chan et al.'s split eps/2 + eps/2 (the ``corrected`` variants): both noise
    scales double, so the bound is 2 x (2.2) (derived: each sub-mechanism's noise scale doubles). Same condition as (2.2)."""
    return Bound("tossou2016.hybrid-error.chan", "Eq. (2.2) under the Chan budget split (2 x (2.2))",
                 f"{_PAPER}, eq. (2.2), Lemma B.2; docs/errata.md#td-hybrid-budget", "error",
                 "|H(n) - sum_{i<=n} r_i| with probability >= 1 - gamma", "derived", rest=_hybrid_error(2),
                 condition=_HYBRID_CONDITION, algorithms=("dp-ucb-bound:corrected", "dp-ucb:corrected"),
                 order=sp.log(4 / gamma) * sp.log(n) / epsilon, monotone=("epsilon-",))


def chan_hybrid_error() -> Bound:
    """Chan, Shi & Song's hybrid-mechanism error as the paper quotes it (Sec. 2): with
    probability >= 1 - gamma the error is at most (1/eps) log(1/gamma) log^{1.5} n. Chan et al.
    state it with O(.) only, so order only (unit constants; natural logs)."""
    rest = sp.log(1 / gamma) * sp.log(n) ** sp.Rational(3, 2) / epsilon
    return Bound("tossou2016.chan-hybrid-error", "Chan et al.'s hybrid-mechanism error (as quoted)",
                 f"{_PAPER}, Sec. 2 quoting Chan, Shi & Song (ICALP 2010)", "error",
                 "|H(n) - sum_{i<=n} r_i| with probability >= 1 - gamma", "order", rest=rest,
                 condition=sp.Lt(gamma, 1), algorithms=("dp-ucb-bound:corrected", "dp-ucb:corrected"),
                 order=rest, monotone=("epsilon-",))


def bounds() -> list[Bound]:
    """Every bound of the paper, in the order of the paper."""
    return [hybrid_error(), hybrid_error_chan(), chan_hybrid_error(),
            thm3_2_stated(), thm3_2_proof(), thm3_2_lambert(), thm3_2_corrected(),
            thm3_2_corrected_lambert(), thm3_2_chan(), thm3_3(), thm3_4_printed(), thm3_4(),
            thm3_4_exact(), cor3_1_basic(), cor3_1_advanced(), cor3_2_input_epsilon(), thm3_5(),
            abstract_claim()]
