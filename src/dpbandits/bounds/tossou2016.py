"""Bounds of Tossou & Dimitrakakis, "Algorithms for differentially private multi-armed bandits"
(AAAI 2016; HAL hal-01234427), spec 001 section 4.

Regret (all anytime, in the current round ``t``; natural logarithms except where noted):

- Theorem 3.2 (DP-UCB-BOUND) in four forms (spec 4.4): ``stated`` (eq. 3.1 verbatim), the
  ``proof-consistent`` form (FLAG-18: the proof's B_a carries 1/Delta_a, the statement's B does
  not), the ``lambert`` form (the proof's Barry et al. approximation replaced by the exact root
  -B_a W_{-1}(-1/(e B_a))), and the ``corrected`` forms with 2 B_a (FLAG-28: the proof drops a
  factor 2), closed and Lambert. The free lambda_0 is fixed at 0.5 (the spec's choice; the paper
  gives none) in ``settings`` and may be overridden.
- Theorem 3.3 (DP-UCB), as stated; vacuous at the experiments' scale (spec 4.5).
- Theorem 3.5 (DP-UCB-INT), as stated: its proof is flawed (FLAG-20), so status ``flawed``.

Privacy (kind ``privacy``): Theorem 3.4 printed and corrected (FLAG-21), Corollary 3.1's two
branches, Corollary 3.2's choice of the input epsilon; the exact per-arm accountant over actual
release sets is :func:`dpbandits.reference.bandit.dp_ucb_int.accountant` (not repeated here).
Error: the hybrid mechanism's bound (2.2) / Lemma B.2 (spec 3.4).
"""

from __future__ import annotations

import sympy as sp

from .core import Bound, Delta, epsilon, n, positive, t

__all__ = ["lambda_0", "v", "delta_prime", "gamma", "f_0", "thm3_2_stated", "thm3_2_proof",
           "thm3_2_lambert", "thm3_2_corrected", "thm3_2_corrected_lambert", "thm3_3", "thm3_5",
           "thm3_4_printed", "thm3_4", "cor3_1_basic", "cor3_1_advanced", "cor3_2_input_epsilon",
           "hybrid_error", "bounds"]

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
N = sp.Symbol("N", integer=True, positive=True)

_PAPER = "Tossou & Dimitrakakis, AAAI 2016 (hal-01234427)"
_TAGS = ("dp-ucb-bound",)
_LAMBDA = {"lambda_0": 0.5}
_VALID = sp.And(sp.Ge(t, 2), sp.Lt(lambda_0, 1))
_TAIL = Delta + 2 * sp.pi ** 2 * Delta / 3


def _B() -> sp.Expr:
    return sp.sqrt(8) / (epsilon * (1 - lambda_0)) * sp.log(4 * t ** 4)


def _ucb(delta_: sp.Expr = Delta) -> sp.Expr:
    return 8 * sp.log(t) / (lambda_0 ** 2 * delta_)


def _thm(key: str, title: str, term: sp.Expr, constants: str = "paper", status: str = "stated",
         printed: str | None = None, note: str = "") -> Bound:
    return Bound(key, title, f"{_PAPER}, Thm 3.2, App. A.1; spec 001 s.4.4", "upper",
                 "expected pseudo-regret after t plays", constants, per_arm=term, condition=_VALID,
                 algorithms=_TAGS, status=status, printed=printed, settings=_LAMBDA,
                 order=sp.log(t) / Delta + sp.log(t) * sp.log(sp.log(t)) / epsilon, note=note,
                 monotone=("epsilon-",))


def thm3_2_stated() -> Bound:
    """Theorem 3.2, eq. (3.1) verbatim: sum_a max(B (ln B + 7), 8 ln t / (lambda_0^2 Delta_a))
    + Delta_a + 2 pi^2 Delta_a / 3, with B = sqrt(8) ln(4 t^4) / (eps (1 - lambda_0))."""
    B = _B()
    return _thm("tossou2016.thm3.2.stated", "Theorem 3.2 as printed (eq. 3.1)",
                sp.Max(B * (sp.log(B) + 7), _ucb()) + _TAIL,
                note="the statement's B lacks the proof's 1/Delta_a (FLAG-18)")


def thm3_2_proof() -> Bound:
    """Theorem 3.2 in the form its proof supports (FLAG-18): sum_a Delta_a [1 + max(B_a (ln B_a + 7),
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
    """Theorem 3.2 corrected (FLAG-28): the condition (1 - lambda_0) Delta_a > 2 h_n needs
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


def thm3_3() -> Bound:
    """Theorem 3.3 (DP-UCB), as stated (spec 4.5): sum_a Delta_a max(C^2 (ln C + 7)^2,
    8 ln t / Delta_a^2) + Delta_a + 4 Delta_a zeta(1.5), C = 56 (2 + sqrt 3.5) sqrt(ln t) / eps.
    The constant C is the spec's reconstruction of a garbled appendix (FLAG-27 drops ln 4, so
    the derivation is not an upper bound in the strict sense); FLAG-19: the noise has about
    log2 t levels, not log n."""
    C = 56 * (2 + sp.sqrt(sp.Rational(7, 2))) * sp.sqrt(sp.log(t)) / epsilon
    term = Delta * sp.Max(C ** 2 * (sp.log(C) + 7) ** 2, 8 * sp.log(t) / Delta ** 2) \
        + Delta + 4 * Delta * sp.zeta(sp.Rational(3, 2))
    return Bound("tossou2016.thm3.3", "Theorem 3.3: regret of DP-UCB", f"{_PAPER}, Thm 3.3, App. A.2; spec 001 s.4.5",
                 "upper", "expected pseudo-regret after t plays", "paper", per_arm=term,
                 condition=sp.Ge(t, 2), algorithms=("dp-ucb",),
                 order=sp.log(t) / Delta + sp.log(t) * sp.log(sp.log(t)) ** 2 / epsilon ** 2,
                 note="reconstructed constant (spec RECON); vacuous at the experiments' scale")


def thm3_5() -> Bound:
    """Theorem 3.5 (DP-UCB-INT), as stated: sum_a Delta_a [f_0 + 8 ln t / Delta_a^2 + 1 + 4 zeta(1.5)].
    Its proof's key step bounds n from above where it needs a lower bound (FLAG-20): the theorem
    is not established, so it is never held against a simulation."""
    term = Delta * (f_0 + 8 * sp.log(t) / Delta ** 2 + 1 + 4 * sp.zeta(sp.Rational(3, 2)))
    return Bound("tossou2016.thm3.5", "Theorem 3.5: regret of DP-UCB-INT (proof flawed)",
                 f"{_PAPER}, Thm 3.5, App. B.5; spec 001 s.4.11 FLAG-20", "upper",
                 "expected pseudo-regret after t plays", "paper", per_arm=term,
                 condition=sp.Ge(t, 2), algorithms=("dp-ucb-int",), status="flawed",
                 order=sp.log(t) / Delta, monotone=("T+",))


def _sum(expr: sp.Expr) -> sp.Expr:
    return sp.Sum(expr, (N, 1, t))


def thm3_4_printed() -> Bound:
    """Theorem 3.4 as printed (FLAG-21 typos: sqrt(t^v) for sqrt(n^v), the -1 misplaced):
    eps' <= min(sum eps / sqrt(n^v), eps sum (e^{1/sqrt(n^v)} - 1) / sqrt(t^v)
    + sqrt(eps sum 2 ln(1/delta') / n^v))."""
    first = _sum(epsilon / sp.sqrt(N ** v))
    second = (epsilon * _sum((sp.exp(1 / sp.sqrt(N ** v)) - 1) / sp.sqrt(t ** v))
              + sp.sqrt(epsilon * _sum(2 * sp.log(1 / delta_prime) / N ** v)))
    return Bound("tossou2016.thm3.4.printed", "Theorem 3.4 as printed", f"{_PAPER}, Thm 3.4; spec 001 s.4.7",
                 "privacy", "epsilon' of DP-UCB-INT after t steps", "paper", rest=sp.Min(first, second),
                 algorithms=("dp-ucb-int",), monotone=())


def thm3_4() -> Bound:
    """Theorem 3.4 as its proof (B.3) gives: eps' <= min(eps sum n^{-v/2},
    eps sum n^{-v/2} (e^{n^{-v/2}} - 1) + sqrt(2 eps ln(1/delta') sum n^{-v})); evaluated
    numerically by :func:`dpbandits.reference.bandit.dp_ucb_int.theorem_3_4`."""
    g = N ** (-v / 2)
    first = epsilon * _sum(g)
    second = epsilon * _sum(g * (sp.exp(g) - 1)) + sp.sqrt(2 * epsilon * sp.log(1 / delta_prime) * _sum(N ** (-v)))
    return Bound("tossou2016.thm3.4", "Theorem 3.4 (typos fixed)", f"{_PAPER}, Thm 3.4, (B.3); spec 001 s.4.7",
                 "privacy", "epsilon' of DP-UCB-INT after t steps", "paper", rest=sp.Min(first, second),
                 algorithms=("dp-ucb-int",), status="corrected", printed="tossou2016.thm3.4.printed",
                 monotone=())


def cor3_1_basic() -> Bound:
    """Corollary 3.1, basic branch (integral test): eps (t^{1-v/2} - v/2) / (1 - v/2); valid for
    the x-rule or a constant interval, not for the y-rule (spec 4.10 FLAG-23)."""
    return Bound("tossou2016.cor3.1.basic", "Corollary 3.1, basic-composition branch",
                 f"{_PAPER}, Cor 3.1; spec 001 s.4.8", "privacy", "epsilon' after t steps", "paper",
                 rest=epsilon * (t ** (1 - v / 2) - v / 2) / (1 - v / 2),
                 condition=sp.And(sp.Gt(v, 1), sp.Le(v, sp.Rational(3, 2))), algorithms=("dp-ucb-int",),
                 monotone=())


def cor3_1_advanced() -> Bound:
    """Corollary 3.1, advanced branch: 2 eps zeta(v) + sqrt(2 eps zeta(v) ln(1/delta')), any t."""
    z = sp.zeta(v)
    return Bound("tossou2016.cor3.1.advanced", "Corollary 3.1, advanced-composition branch",
                 f"{_PAPER}, Cor 3.1; spec 001 s.4.8", "privacy", "epsilon' (with delta')", "paper",
                 rest=2 * epsilon * z + sp.sqrt(2 * epsilon * z * sp.log(1 / delta_prime)),
                 condition=sp.And(sp.Gt(v, 1), sp.Le(v, sp.Rational(3, 2))), algorithms=("dp-ucb-int",),
                 monotone=())


def cor3_2_input_epsilon() -> Bound:
    """Corollary 3.2: the input eps = (sqrt((ln(1/delta') + 4 eps') / (8 zeta(v)))
    - sqrt(ln(1/delta') / (8 zeta(v))))^2 that makes the advanced branch equal eps'."""
    z = sp.zeta(v)
    L_ = sp.log(1 / delta_prime)
    rest = (sp.sqrt((L_ + 4 * epsilon_prime) / (8 * z)) - sp.sqrt(L_ / (8 * z))) ** 2
    return Bound("tossou2016.cor3.2", "Corollary 3.2: input epsilon for a target (eps', delta')",
                 f"{_PAPER}, Cor 3.2; spec 001 s.4.9", "privacy", "input epsilon of Algorithm 3", "paper",
                 rest=rest, algorithms=("dp-ucb-int",), monotone=())


def hybrid_error() -> Bound:
    """Eq. (2.2) / Lemma B.2 (spec 3.4): with probability >= 1 - gamma the hybrid mechanism's
    count is within (sqrt 8 / eps) ln(4/gamma) (log2 n + 1) of the true sum, under the paper's
    noise convention (the corrected Chan split doubles it). The paper's condition gamma <= n^{-b}
    does not imply the proof's ln(4/gamma) >= floor(log2 n) + 1 for every b (FLAG-26); the
    condition here is the proof's."""
    rest = sp.sqrt(8) / epsilon * sp.log(4 / gamma) * (sp.log(n, 2) + 1)
    return Bound("tossou2016.hybrid-error", "Eq. (2.2): error of the hybrid mechanism",
                 f"{_PAPER}, eq. (2.2), Lemma B.2; spec 001 s.3.4", "error",
                 "|H(n) - sum_{i<=n} r_i| with probability >= 1 - gamma", "paper", rest=rest,
                 condition=sp.Ge(sp.log(4 / gamma), sp.floor(sp.log(n, 2)) + 1),
                 algorithms=("dp-ucb-bound:paper", "dp-ucb:paper"), monotone=())


def bounds() -> list[Bound]:
    return [thm3_2_stated(), thm3_2_proof(), thm3_2_lambert(), thm3_2_corrected(),
            thm3_2_corrected_lambert(), thm3_3(), thm3_5(), thm3_4_printed(), thm3_4(),
            cor3_1_basic(), cor3_1_advanced(), cor3_2_input_epsilon(), hybrid_error()]
