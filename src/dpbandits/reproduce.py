"""``dpbandits reproduce``: the papers' experiments, each with its claims checked by code.

Every experiment of the papers' experiments sections is an :class:`Experiment`: a setting, the curves it
plots (:class:`Line`: an algorithm, variant and parameters), the privacy levels of its panels, and
the paper's claims about it as :class:`Claim` objects whose ``check`` turns the simulated numbers
into a verdict, ``supported``, ``not supported`` or ``not testable`` (e.g. a claim about T -> oo,
or about data we do not have), with the numbers that decided it.

Sizes: ``tiny`` (the test suite; seconds), ``small`` (the report), ``default`` (minutes) and
``full`` (the paper's horizon and repetitions). Every page states the size it ran at, and claims
are judged on the run's own numbers: a claim not supported at a reduced size may hold at the
paper's size, and the page says so.

Each (line, epsilon) cell is simulated once and written atomically to ``OUT/cells/`` with the
parameters that produced it; an interrupted reproduction reuses the finished cells.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .errors import DPBanditsError
from .files import write_atomically

__all__ = ["Line", "Claim", "Experiment", "EXPERIMENTS",
           "get_experiment", "reproduce", "Reproduction", "SIZES"]

SIZES = ("tiny", "small", "default", "full")


@dataclass(frozen=True)
class Line:
    """One curve: a registered algorithm, its variant and parameters, and how its epsilon is set."""

    label: str
    algorithm: str
    variant: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    epsilon_rule: str = "given"
    """``given``: the panel's epsilon; ``corollary-3.2``: DP-UCB-INT's input epsilon for the
    panel's target (eps', delta' = e^-10, v = 1.1), as Tossou & Dimitrakakis ran it."""


@dataclass(frozen=True)
class Verdict:
    text: str
    verdict: str
    evidence: str


@dataclass(frozen=True)
class Claim:
    """One of the paper's claims about an experiment and the code that judges it."""

    text: str
    check: Callable[["Cells"], tuple[str, str]]


@dataclass(frozen=True)
class Experiment:
    name: str
    paper: str
    figure: str
    setting: str
    lines: tuple[Line, ...]
    epsilons: tuple[float, ...]
    x: str
    """``time`` (regret curves, one panel per epsilon), ``epsilon`` (final regret against
    epsilon), ``inverse-epsilon`` (final regret against 1/epsilon) or ``log-time`` (R_n / ln n)."""
    sizes: dict[str, tuple[int, int]]
    """size -> (horizon, runs)."""
    claims: tuple[Claim, ...] = ()
    note: str = ""
    metric: str = "regret"
    """``regret`` (cumulative pseudo-regret) or ``return`` (expected per-round return, matroids)."""
    reduced_points: dict[str, int] = field(default_factory=dict)
    """size -> how many of ``epsilons`` (evenly chosen) to run at that size; all when absent."""


class Cells:
    """The simulated cells of one experiment: (label, epsilon) -> curve summary."""

    def __init__(self, data: dict[tuple[str, float], dict[str, Any]], experiment: Experiment):
        self.data, self.experiment = data, experiment

    def final(self, label: str, epsilon: float) -> tuple[float, float, float]:
        """Mean final regret and its two-sided 95% t interval."""
        d = self.data[(label, epsilon)]
        return d["mean"][-1], d["low"][-1], d["high"][-1]

    def at(self, label: str, epsilon: float, fraction: float) -> float:
        """Mean regret at the checkpoint nearest to ``fraction`` of the horizon."""
        d = self.data[(label, epsilon)]
        t = np.asarray(d["t"])
        return float(np.asarray(d["mean"])[np.argmin(np.abs(t - fraction * t[-1]))])

    @property
    def horizon(self) -> int:
        return int(next(iter(self.data.values()))["t"][-1])

    @property
    def runs(self) -> int:
        return int(next(iter(self.data.values()))["runs"])


# -- claims ---------------------------------------------------------------------------------------

def _fmt(x: float) -> str:
    return f"{x:.4g}"


def lower_than(a: str, others: tuple[str, ...], epsilons=None) -> Callable[[Cells], tuple[str, str]]:
    """``a``'s mean final regret is below every one of ``others`` at every epsilon (95% intervals
    must be disjoint for `supported`; overlapping intervals in the right order are `not testable`)."""
    def check(cells: Cells) -> tuple[str, str]:
        verdicts, evidence = [], []
        for eps in epsilons or cells.experiment.epsilons:
            m, lo, hi = cells.final(a, eps)
            for b in others:
                mb, lob, hib = cells.final(b, eps)
                evidence.append(f"eps={eps:g}: {a} {_fmt(m)} vs {b} {_fmt(mb)}")
                verdicts.append("supported" if hi < lob else "not supported" if m >= mb
                                else "not testable")
        return _combine(verdicts), "; ".join(evidence)
    return check


def highest(label: str) -> Callable[[Cells], tuple[str, str]]:
    """``label`` has the largest mean final regret of all lines at every epsilon."""
    def check(cells: Cells) -> tuple[str, str]:
        ok, evidence = True, []
        for eps in cells.experiment.epsilons:
            finals = {line.label: cells.final(line.label, eps)[0] for line in cells.experiment.lines}
            ok &= max(finals, key=finals.get) == label
            evidence.append(f"eps={eps:g}: " + ", ".join(f"{k} {_fmt(v)}" for k, v in finals.items()))
        return ("supported" if ok else "not supported"), "; ".join(evidence)
    return check


def within_factor(a: str, b: str, factor: float, epsilons=None) -> Callable[[Cells], tuple[str, str]]:
    """``a``'s mean final regret is within ``factor`` of ``b``'s (both ways) at every epsilon."""
    def check(cells: Cells) -> tuple[str, str]:
        ok, evidence = True, []
        for eps in epsilons or cells.experiment.epsilons:
            ma, mb = cells.final(a, eps)[0], cells.final(b, eps)[0]
            ratio = ma / mb if mb > 0 else math.inf
            evidence.append(f"eps={eps:g}: ratio {_fmt(ratio)}")
            ok &= 1 / factor <= ratio <= factor
        return ("supported" if ok else "not supported"), "; ".join(evidence) + f" (factor {factor:g})"
    return check


def non_increasing_in_epsilon(label: str) -> Callable[[Cells], tuple[str, str]]:
    """Mean final regret does not increase with epsilon, up to noise: no step up whose 95%
    intervals are disjoint."""
    def check(cells: Cells) -> tuple[str, str]:
        eps = sorted(cells.experiment.epsilons)
        finals = [cells.final(label, e) for e in eps]
        ups = [f"{eps[i]:g}->{eps[i + 1]:g}" for i in range(len(eps) - 1)
               if finals[i + 1][1] > finals[i][2]]
        shown = ", ".join(f"{e:g}: {_fmt(f[0])}" for e, f in zip(eps, finals))
        return ("not supported" if ups else "supported"), f"{label} final regret {shown}" + (
            f"; significant increase at {', '.join(ups)}" if ups else "")
    return check


def flat_in_epsilon(label: str, band: float) -> Callable[[Cells], tuple[str, str]]:
    """max / min of the mean final regret over epsilon is at most ``band``."""
    def check(cells: Cells) -> tuple[str, str]:
        finals = [cells.final(label, e)[0] for e in cells.experiment.epsilons]
        ratio = max(finals) / max(min(finals), 1e-12)
        return ("supported" if ratio <= band else "not supported"), \
            f"{label}: max/min over epsilon = {_fmt(ratio)} (band {band:g})"
    return check


def gap_not_increasing(a: str, b: str, epsilons=None) -> Callable[[Cells], tuple[str, str]]:
    """The regret gap a - b at T is at most 10% above the gap at T/2 (an additive constant)."""
    def check(cells: Cells) -> tuple[str, str]:
        ok, evidence = True, []
        for eps in epsilons or cells.experiment.epsilons:
            half = cells.at(a, eps, 0.5) - cells.at(b, eps, 0.5)
            full = cells.final(a, eps)[0] - cells.final(b, eps)[0]
            evidence.append(f"eps={eps:g}: gap {_fmt(half)} at T/2, {_fmt(full)} at T")
            ok &= full <= 1.1 * half + 1e-9
        return ("supported" if ok else "not supported"), "; ".join(evidence)
    return check


def crossing(early: str, late: str, epsilons=None) -> Callable[[Cells], tuple[str, str]]:
    """``early`` has lower regret at T/100 and ``late`` has lower (or equal) regret at T."""
    def check(cells: Cells) -> tuple[str, str]:
        ok, evidence = True, []
        for eps in epsilons or cells.experiment.epsilons:
            e0, l0 = cells.at(early, eps, 0.01), cells.at(late, eps, 0.01)
            e1, l1 = cells.final(early, eps)[0], cells.final(late, eps)[0]
            evidence.append(f"eps={eps:g}: at T/100 {early} {_fmt(e0)} vs {late} {_fmt(l0)}; "
                            f"at T {_fmt(e1)} vs {_fmt(l1)}")
            ok &= e0 < l0 and l1 <= e1
        return ("supported" if ok else "not supported"), "; ".join(evidence)
    return check


def below_bound(label: str, key: str) -> Callable[[Cells], tuple[str, str]]:
    """The mean final regret is below the (explicit) bound ``key`` of dpbandits.bounds."""
    def check(cells: Cells) -> tuple[str, str]:
        from .bounds import get_bound
        from .reference import get_setting

        means = np.array(get_setting(cells.experiment.setting).means)
        gaps = means.max() - means
        bound, ok, evidence = get_bound(key), True, []
        for eps in cells.experiment.epsilons:
            m, lo, hi = cells.final(label, eps)
            value = float(bound.evaluate(T=float(cells.horizon), epsilon=eps, gaps=gaps))
            evidence.append(f"eps={eps:g}: {_fmt(m)} <= {_fmt(value)}")
            ok &= lo <= value
        return ("supported" if ok else "not supported"), f"{key}: " + "; ".join(evidence)
    return check


def return_ordered_in_epsilon(label: str) -> Callable[[Cells], tuple[str, str]]:
    """Final regret is larger at smaller epsilon (return decreases as epsilon decreases)."""
    return lambda cells: _ordered(cells, label)


def _ordered(cells: Cells, label: str) -> tuple[str, str]:
    eps = sorted(cells.experiment.epsilons, reverse=True)
    finals = [cells.final(label, e) for e in eps]
    ok = all(finals[i][0] <= finals[i + 1][0] for i in range(len(eps) - 1))
    shown = ", ".join(f"{e:g}: {_fmt(f[0])}" for e, f in zip(eps, finals))
    return ("supported" if ok else "not supported"), f"{label} final regret by epsilon {shown}"


def linear_in_inverse_epsilon(label: str, r2: float = 0.8) -> Callable[[Cells], tuple[str, str]]:
    """A least-squares line in 1/epsilon explains at least ``r2`` of the variance of final regret."""
    def check(cells: Cells) -> tuple[str, str]:
        x = 1 / np.array(cells.experiment.epsilons)
        y = np.array([cells.final(label, e)[0] for e in cells.experiment.epsilons])
        slope, intercept = np.polyfit(x, y, 1)
        residual = y - (slope * x + intercept)
        fit = 1 - residual.var() / max(y.var(), 1e-12)
        return ("supported" if fit >= r2 and slope > 0 else "not supported"), \
            f"{label}: R^2 = {_fmt(fit)}, slope {_fmt(slope)} per unit of 1/epsilon"
    return check


def both(*checks: Callable[[Cells], tuple[str, str]]) -> Callable[[Cells], tuple[str, str]]:
    """All of ``checks`` (the weakest verdict wins, the evidence of each is kept)."""
    def check(cells: Cells) -> tuple[str, str]:
        outcomes = [c(cells) for c in checks]
        return _combine([v for v, _ in outcomes]), "; ".join(e for _, e in outcomes)
    return check


def not_testable(reason: str) -> Callable[[Cells], tuple[str, str]]:
    return lambda cells: ("not testable", reason)


def _combine(verdicts: list[str]) -> str:
    if "not supported" in verdicts:
        return "not supported"
    if "not testable" in verdicts:
        return "not testable"
    return "supported"


# -- the experiments ------------------------------------------------------------------------------

T01 = "Tossou & Dimitrakakis (AAAI 2016)"
H21 = "Hu, Huang & Mehta (arXiv:2102.07929)"
HJ = "Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3)"
CH = "Chandak, Hu & Hegde (2023)"

_TOSSOU_LINES = (
    Line("ucb1", "ucb1"),
    Line("dp-ucb-bound", "dp-ucb-bound", variant="paper"),
    Line("dp-ucb", "dp-ucb", variant="paper"),
    Line("dp-ucb-int", "dp-ucb-int", variant="corrected", params=(("interval", "x"),),
         epsilon_rule="corollary-3.2"),
    Line("private-ucb", "private-ucb"),
)
_TOSSOU_SIZES = {"tiny": (256, 2), "small": (2048, 4), "default": (20_000, 10), "full": (100_000, 100)}
_TOSSOU_CLAIMS = (
    Claim("DP-UCB-INT performs significantly better than all other private algorithms",
          lower_than("dp-ucb-int", ("dp-ucb-bound", "dp-ucb", "private-ucb"))),
    Claim("the gap between DP-UCB-INT and non-private UCB does not increase with time",
          gap_not_increasing("dp-ucb-int", "ucb1")),
    Claim("DP-UCB is better than DP-UCB-BOUND for small time steps; DP-UCB-BOUND catches up later",
          crossing("dp-ucb", "dp-ucb-bound")),
    Claim("Private-UCB performs worse than all other algorithms", highest("private-ucb")),
)


def _tossou(panel: str, setting: str, eps: float) -> Experiment:
    return Experiment(
        f"tossou2016-fig2{panel}", T01, f"Fig. 2({panel})", setting, _TOSSOU_LINES, (eps,), "time",
        _TOSSOU_SIZES, _TOSSOU_CLAIMS,
        note=("DP-UCB-INT runs with the input epsilon of Corollary 3.2 for the panel's target "
              "(delta' = e^-10, v = 1.1) and the Lemma B.1 x-rule interval series: the paper does "
              "not say which interval rule it used (docs/errata.md#td-int-interval); with f = ceil(1/eps) the "
              "eps' = 0.1 panels would be round-robin for most of the horizon."))


_HU_LINES = (Line("anytime-lazy-ucb", "anytime-lazy-ucb"), Line("hybrid-ucb", "hybrid-ucb", variant="paper"),
             Line("dp-se", "dp-se"))
_HU_SIZES = {"tiny": (256, 2), "small": (2 ** 12, 4), "default": (2 ** 15, 8), "full": (2 ** 22, 15)}
_HU_EPS = (0.1, 0.25, 0.5, 1.0, 8.0, 64.0, 128.0)


def _hu_time(fig: str, setting: int, epsilons: tuple[float, ...]) -> Experiment:
    claims = [Claim(f"Anytime-Lazy-UCB's regret stays below its derived bound (Hu, Huang & Mehta (2021), Sec. 6, App. I)",
                    below_bound("anytime-lazy-ucb", "hu2021.thm3"))]
    small = tuple(e for e in epsilons if e <= 1)
    large = tuple(e for e in epsilons if e >= 8)
    if small:
        claims += [Claim("at small epsilon Hybrid-UCB does not perform well: its regret exceeds "
                         "Anytime-Lazy-UCB's and DP-SE's (acceptance criterion iii)",
                         both(lower_than("anytime-lazy-ucb", ("hybrid-ucb",), small),
                              lower_than("dp-se", ("hybrid-ucb",), small))),
                   Claim("at small epsilon Anytime-Lazy-UCB is competitive with DP-SE: within a "
                         "factor 3 (criterion iv)", within_factor("anytime-lazy-ucb", "dp-se", 3.0, small))]
    if large:
        claims.append(Claim("at large epsilon Hybrid-UCB performs well: within a factor 1.5 of "
                            "Anytime-Lazy-UCB", within_factor("hybrid-ucb", "anytime-lazy-ucb", 1.5, large)))
    return Experiment(f"hu2021-{fig}", H21, fig.replace("fig", "Fig. "), f"hu2021-setting{setting}",
                      _HU_LINES, epsilons, "time", _HU_SIZES, tuple(claims),
                      note="Bernoulli rewards (the paper does not say); DP-SE with beta = 1/T.")


def _hu_epsilon(fig: str, setting: int) -> Experiment:
    claims = (Claim("final regret of Anytime-Lazy-UCB decreases as epsilon increases (criterion i)",
                    non_increasing_in_epsilon("anytime-lazy-ucb")),
              Claim("final regret of Hybrid-UCB decreases as epsilon increases (criterion i)",
                    non_increasing_in_epsilon("hybrid-ucb")),
              Claim("DP-SE's final regret stays roughly flat across epsilon: within a factor 2 "
                    "(criterion ii)", flat_in_epsilon("dp-se", 2.0)))
    return Experiment(f"hu2021-{fig}", H21, fig.replace("fig", "Fig. "), f"hu2021-setting{setting}",
                      _HU_LINES, _HU_EPS, "epsilon", _HU_SIZES, claims,
                      note="Bernoulli rewards (the paper does not say); DP-SE with beta = 1/T.")


_HJ_LINES = (Line("anytime-lazy-ucb", "anytime-lazy-ucb"), Line("lazy-dp-ts", "lazy-dp-ts"),
             Line("dp-se", "dp-se"), Line("adap-klucb", "adap-klucb"))
_HJ_SIZES = {"tiny": (256, 2), "small": (2 ** 12, 4), "default": (2 ** 15, 8), "full": (1_000_000, 20)}


def _journal(fig: int) -> Experiment:
    claims = (Claim("Lazy-DP-TS performs similarly to AdaP-KLUCB: within a factor 2 (Q1)",
                    within_factor("lazy-dp-ts", "adap-klucb", 2.0)),
              Claim("Lazy-DP-TS always performs better than DP-SE and Anytime-Lazy-UCB (Q2)",
                    lower_than("lazy-dp-ts", ("dp-se", "anytime-lazy-ucb"))))
    return Experiment(f"hu-journal-fig{fig}", HJ, f"Fig. {fig}", f"hu-journal-setting{fig}", _HJ_LINES,
                      (0.25, 0.5, 1.0), "time", _HJ_SIZES, claims,
                      note="AdaP-KLUCB with alpha = 3.1 and DP-SE with beta = 1/T (not stated in the paper).")


_CH_SIZES = {"tiny": (256, 2), "small": (2048, 4), "default": (10_000, 10), "full": (10_000, 100)}
_CH_SWEEP = {"tiny": 4, "small": 6, "default": 12}


def _chandak() -> list[Experiment]:
    mat = ("dpucb-mat", "dpts-mat")
    fig2 = Experiment(
        "chandak2023-fig2", CH, "Fig. 2", "chandak-synthetic",
        tuple(Line(a, a, variant="corrected") for a in mat), (1e5, 2.0, 1e-4), "time", _CH_SIZES,
        (Claim("DPUCB-MAT's performance decreases as epsilon decreases", return_ordered_in_epsilon("dpucb-mat")),
         Claim("DPTS-MAT shows the same trend", return_ordered_in_epsilon("dpts-mat"))),
        metric="return", note="corrected variants (round-0 noise scaled for L, docs/errata.md#chh-round0)")
    fig4 = Experiment(
        "chandak2023-fig4", CH, "Fig. 4(a)", "chandak-synthetic",
        (Line("dpts-mat", "dpts-mat", variant="corrected"), Line("cts", "cts")), (2.0,), "time", _CH_SIZES,
        (Claim("DPTS-MAT's return is comparable to non-private CTS (final regret within a factor 3)",
               within_factor("dpts-mat", "cts", 3.0)),),
        metric="return", note="Fig. 4(b), the movie data, needs MovieLens-1M (--movielens DIR).")
    fig5a = Experiment(
        "chandak2023-fig5", CH, "Fig. 5(a)", "chandak-synthetic",
        (Line("dpucb-mat", "dpucb-mat", variant="corrected"), Line("dpts-mat", "dpts-mat", variant="corrected")),
        (2.0,), "log-time", _CH_SIZES,
        (Claim("DPTS-MAT empirically outperforms DPUCB-MAT", lower_than("dpts-mat", ("dpucb-mat",))),
         Claim("R_n / ln n of both converge", not_testable(
             "a statement about n -> infinity; the plot shows R_n / ln n for inspection"))),
        note="epsilon not stated in the paper; 2 assumed. Fig. 5(b) is chandak2023-fig5b.")
    sweep = tuple(float(e) for e in np.linspace(0.5, 50, 50))
    fig5b = Experiment(
        "chandak2023-fig5b", CH, "Fig. 5(b)", "chandak-synthetic",
        (Line("dpucb-mat", "dpucb-mat", variant="corrected"), Line("dpts-mat", "dpts-mat", variant="corrected")),
        sweep, "inverse-epsilon", _CH_SIZES,
        (Claim("the regret trend is linear in 1/epsilon (DPUCB-MAT)", linear_in_inverse_epsilon("dpucb-mat")),
         Claim("the regret trend is linear in 1/epsilon (DPTS-MAT)", linear_in_inverse_epsilon("dpts-mat")),
         Claim("TS beats UCB at every epsilon", lower_than("dpts-mat", ("dpucb-mat",)))),
        note="epsilon = linspace(0.5, 50, 50) at full size; fewer, evenly chosen, at reduced sizes.",
        reduced_points=_CH_SWEEP)
    table3 = Experiment(
        "chandak2023-table3", CH, "Table 3", "chandak-movielens-standin",
        (Line("dpucb-mat", "dpucb-mat", variant="corrected"), Line("omm", "omm")), (2.0,), "time",
        {"tiny": (128, 2), "small": (1024, 2), "default": (5000, 4), "full": (20_000, 10)},
        (Claim("8 of the 17 recommended movies coincide with A* after 20k rounds", not_testable(
            "needs MovieLens-1M (--movielens DIR); the labelled synthetic stand-in is not the paper's data")),
         Claim("DPUCB-MAT's return is comparable to OMM's (final regret within a factor 3)",
               within_factor("dpucb-mat", "omm", 3.0))),
        metric="return",
        note=("runs on the labelled synthetic stand-in unless --movielens DIR points at MovieLens-1M; "
              "the overlap of the final basis with A* is not computed yet (actions are not kept)."))
    return [fig2, fig4, fig5a, fig5b, table3]


def _catalogue() -> dict[str, Experiment]:
    found = [
        _tossou("a", "tossou2016-2arms", 1.0), _tossou("b", "tossou2016-2arms", 0.1),
        _tossou("c", "tossou2016-10arms", 1.0), _tossou("d", "tossou2016-10arms", 0.1),
        _hu_time("fig1", 1, (0.5,)), _hu_time("fig2", 1, (1.0,)), _hu_time("fig3", 1, (8.0,)),
        _hu_time("fig4", 1, (64.0,)), _hu_epsilon("fig5", 1),
        _hu_time("fig6", 2, (0.5,)), _hu_time("fig7", 2, (8.0,)), _hu_time("fig8", 2, (64.0,)),
        _hu_time("fig9", 1, (0.1, 0.25, 128.0)), _hu_epsilon("fig10", 2),
        _hu_time("fig11", 2, (0.1, 0.25, 1.0, 128.0)), _hu_epsilon("fig12", 3),
        _journal(1), _journal(2), *_chandak(),
    ]
    return {e.name: e for e in found}


EXPERIMENTS: dict[str, Experiment] = _catalogue()
"""Every reproducible experiment, by name."""


def get_experiment(name: str) -> Experiment:
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise DPBanditsError(f"unknown experiment {name!r}; known experiments: "
                             f"{', '.join(EXPERIMENTS)}") from None


# -- running --------------------------------------------------------------------------------------

@dataclass
class Reproduction:
    """What one reproduction wrote and concluded."""

    experiment: str
    size: str
    page: str
    paths: list[Path]
    claims: list[Verdict] = field(default_factory=list)


def _epsilons(experiment: Experiment, size: str) -> tuple[float, ...]:
    points = experiment.reduced_points.get(size)
    if points is None:
        return experiment.epsilons
    every = np.linspace(0, len(experiment.epsilons) - 1, points).round().astype(int)
    return tuple(experiment.epsilons[i] for i in every)


def _source(experiment: Experiment, movielens: str | None):
    from .reference import get_setting
    from .reference.matroid.data import MATROID_SETTINGS, matroid_setting

    if experiment.setting in MATROID_SETTINGS:
        if experiment.name == "chandak2023-table3" and movielens:
            return matroid_setting("chandak-movielens", path=movielens), "chandak-movielens"
        return matroid_setting(experiment.setting), experiment.setting
    return get_setting(experiment.setting).environment(), experiment.setting


def _factory(line: Line, source, eps: float, T: int):
    from .reference import get, spec
    from .reference.bandit.dp_ucb_int import input_epsilon

    cls = get(line.algorithm)
    params = dict(line.params)
    if cls.feedback == "semi":
        params["matroid"] = source.matroid
    epsilon = None
    if cls.private:
        epsilon = input_epsilon(eps, 1.1, math.exp(-10)) if line.epsilon_rule == "corollary-3.2" else eps
    return spec(line.algorithm, source.K, epsilon=epsilon, variant=line.variant, T=T, **params)


def reproduce(name: str, out: str | Path, *, size: str = "default", seed: int = 0, workers: int = 1,
              backend: str = "auto",
              client=None, movielens: str | None = None,
              progress: Callable[[str], None] | None = None) -> Reproduction:
    """Run (or resume) experiment ``name`` at ``size`` and write its CSV, PNG and Markdown page."""
    from .reference import simulate

    from .reference.engine import check_backend

    check_backend(backend)
    experiment = get_experiment(name)
    if size not in SIZES:
        raise DPBanditsError(f"unknown size {size!r}; sizes are {', '.join(SIZES)}")
    T, runs = experiment.sizes[size]
    say = progress or (lambda message: None)
    out = Path(out)
    (out / "cells").mkdir(parents=True, exist_ok=True)
    source, setting_used = _source(experiment, movielens)
    epsilons = _epsilons(experiment, size)
    data: dict[tuple[str, float], dict[str, Any]] = {}
    for i, line in enumerate(experiment.lines):
        for eps in epsilons:
            from .reference import get

            variant = line.variant or get(line.algorithm).default_variant
            key = dict(experiment=name, line=line.label, epsilon=eps, T=T, runs=runs, seed=seed,
                       setting=setting_used, params=[list(p) for p in line.params],
                       variant=variant, rule=line.epsilon_rule)
            path = out / "cells" / f"{line.label}-{eps:g}.json"
            cell = _load_cell(path, key)
            if cell is None:
                say(f"{name}: {line.label}, epsilon = {eps:g} (T = {T}, {runs} runs)")
                result = simulate(_factory(line, source, eps, T), source, T, runs=runs, seed=seed,
                                  workers=workers, client=client, record_actions=False,
                                  backend=backend)
                low, high = result.confidence_band()
                cell = dict(key=key, t=result.checkpoints.tolist(), mean=result.mean_curve().tolist(),
                            low=low.tolist(), high=high.tolist(), runs=runs,
                            backend=result.backend,
                            optimal=float(getattr(source, "optimal_value", np.max(source.means))))
                write_atomically(path, json.dumps(cell))
            data[(line.label, eps)] = cell
    cells = Cells(data, replace(experiment, epsilons=epsilons))
    verdicts = []
    for claim in experiment.claims:
        try:
            verdict, evidence = claim.check(cells)
        except (ValueError, ZeroDivisionError) as error:
            verdict, evidence = "not testable", f"could not be evaluated: {error}"
        verdicts.append(Verdict(claim.text, verdict, evidence))
    paths = [_write_csv(out / f"{name}.csv", cells), _plot(out / f"{name}.png", cells)]
    page = _page(experiment, cells, verdicts, size, setting_used, seed)
    write_atomically(out / f"{name}.md", page)
    paths.append(out / f"{name}.md")
    return Reproduction(name, size, page, paths, verdicts)


def _load_cell(path: Path, key: dict) -> dict | None:
    try:
        cell = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return cell if cell.get("key") == json.loads(json.dumps(key)) else None


def _write_csv(path: Path, cells: Cells) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["line", "epsilon", "t", "mean_regret", "low95", "high95", "runs"])
    for (label, eps), d in cells.data.items():
        for t, m, lo, hi in zip(d["t"], d["mean"], d["low"], d["high"]):
            writer.writerow([label, eps, t, m, lo, hi, d["runs"]])
    write_atomically(path, buffer.getvalue())
    return path


def _plot(path: Path, cells: Cells) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    e = cells.experiment
    labels = [line.label for line in e.lines]
    if e.x in ("epsilon", "inverse-epsilon"):
        figure, axes = plt.subplots(figsize=(6.5, 4.2))
        x = np.array(e.epsilons) if e.x == "epsilon" else 1 / np.array(e.epsilons)
        for label in labels:
            finals = np.array([cells.final(label, eps) for eps in e.epsilons])
            axes.errorbar(x, finals[:, 0], yerr=[finals[:, 0] - finals[:, 1], finals[:, 2] - finals[:, 0]],
                          marker="o", capsize=2, label=label)
        if e.x == "epsilon":
            axes.set_xscale("log")
        axes.set_xlabel("epsilon" if e.x == "epsilon" else "1 / epsilon")
        axes.set_ylabel(f"regret at T = {cells.horizon}")
        axes.legend(fontsize=8)
        axes.set_title(f"{e.paper}, {e.figure}", fontsize=9)
    else:
        panels = len(e.epsilons)
        figure, grid = plt.subplots(1, panels, figsize=(5.2 * panels, 4), squeeze=False)
        for ax, eps in zip(grid[0], e.epsilons):
            for label in labels:
                d = cells.data[(label, eps)]
                t, m = np.asarray(d["t"], float), np.asarray(d["mean"], float)
                lo, hi = np.asarray(d["low"], float), np.asarray(d["high"], float)
                if e.metric == "return":
                    m, lo, hi = d["optimal"] - m / t, d["optimal"] - hi / t, d["optimal"] - lo / t
                elif e.x == "log-time":
                    keep = t >= 2
                    t, m, lo, hi = t[keep], m[keep] / np.log(t[keep]), lo[keep] / np.log(t[keep]), hi[keep] / np.log(t[keep])
                ax.plot(t, m, label=label)
                ax.fill_between(t, lo, hi, alpha=0.15)
            if e.metric == "return":
                ax.axhline(next(iter(cells.data.values()))["optimal"], color="black", ls=":", label="optimal policy")
            ax.set_xscale("log")
            ax.set_xlabel("round")
            ax.set_ylabel({"return": "expected per-round return", "regret": "pseudo-regret"}[e.metric]
                          if e.x != "log-time" else "R_n / ln n")
            ax.set_title(f"{e.figure}, epsilon = {eps:g}", fontsize=9)
            ax.legend(fontsize=7)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    write_atomically(path, buffer.getvalue())
    return path


def _page(e: Experiment, cells: Cells, verdicts: list[Verdict], size: str, setting: str, seed: int) -> str:
    T, runs = e.sizes[size]
    full_T, full_runs = e.sizes["full"]
    lines = [f"# {e.name}: {e.paper}, {e.figure}", "",
             f"Setting `{setting}`; epsilon {', '.join(f'{x:g}' for x in cells.experiment.epsilons)}; "
             f"T = {T}, {runs} runs, seed {seed} (size `{size}`; the paper: T = {full_T}, "
             f"{full_runs} runs). Curves: {', '.join(line.label for line in e.lines)}.", ""]
    if e.note:
        lines += [f"Note: {e.note}", ""]
    lines += ["| claim of the paper | our run | evidence |", "|---|---|---|"]
    for v in verdicts:
        lines.append(f"| {v.text} | **{v.verdict}** | {v.evidence} |")
    if size != "full":
        lines += ["", "At a reduced size a claim about long horizons may not yet show; "
                      f"`dpbandits reproduce {e.name} --full` runs the paper's size."]
    lines += ["", f"![{e.name}]({e.name}.png)", "", f"Numbers: `{e.name}.csv`."]
    return "\n".join(lines) + "\n"
