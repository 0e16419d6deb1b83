"""Hu, Huang & Mehta, "Near-Optimal Algorithms for Private Online Learning in a Stochastic
Environment" (arXiv:2102.07929): Figs. 1-12, Sec. 6 and Appendix I.

Sec. 6: "We set T = 2 x 2^21 and each plot is an average of 15 independent runs. We set
beta = 1/T in DP-SE", epsilon = 0.10, 0.25, 0.5, 1, 8, 64, 128, K = 5; mean reward settings 1
and 2 (Sec. 6) and 3 (App. I.3). The text states no axis scales; the figures plot regret against
rounds and final regret against epsilon.

The paper's claims are Sec. 6's sentences about setting 1 (Figs. 1-5), carried to setting 2 by
its own sentence ("all three algorithms in setting 2 behave very similarly to how they perform in
setting 1", Figs. 6-8, 10, 11) and to App. I.1's epsilons by its words 'small' and 'large'.
App. I.3 (setting 3, Fig. 12) states no claim: its pages carry only our own check of Theorem 3.
"""

from __future__ import annotations

from ..checks import (below_bound, both, flat_in_epsilon, lower_than, no_worse_than,
                      non_increasing_in_epsilon)
from ..experiment import Claim, Experiment, Line, Reading

PAPER = "Hu, Huang & Mehta (arXiv:2102.07929)"
LINES = (Line("anytime-lazy-ucb", "anytime-lazy-ucb"), Line("hybrid-ucb", "hybrid-ucb", variant="paper"),
         Line("dp-se", "dp-se"))
SIZES = {"tiny": (256, 3), "small": (2 ** 14, 8), "default": (2 ** 18, 15), "full": (2 ** 22, 15)}
EPSILONS = (0.1, 0.25, 0.5, 1.0, 8.0, 64.0, 128.0)
PAPER_SIZE = ("T = 2 x 2^21, 15 independent runs, epsilon = 0.10, 0.25, 0.5, 1, 8, 64, 128 "
              "(Sec. 6)")
NOTE = "Bernoulli rewards (the paper does not say); DP-SE with beta = 1/T (Sec. 6)."

SMALL = ("Figures 1 and 2 show that when \u03b5 is small (\u03b5 = 0.5, 1), Anytime-Lazy-UCB is "
         "competitive with DP-SE while Hybrid-UCB does not perform well.")
LARGE = ("However, when \u03b5 is large (\u03b5 = 8, 64), Hybrid-UCB starts performing well, as shown "
         "in Figures 3 and 4. The larger \u03b5 is, the better the performance.")
SETTING2 = ("Generally, all three algorithms in setting 2 behave very similarly to how they perform "
            "in setting 1, e.g., Anytime-Lazy-UCB is competitive with DP-SE and Hybrid-UCB performs "
            "well with large \u03b5 values.")
TREND = ("Apparently, for the UCB-based algorithms, Hybrid-UCB and Anytime-Lazy-UCB, the final "
         "regret decreases as \u03b5 increases. However, just as already shown in (Sajed & Sheffet, "
         "2019), the final regret of DP-SE with different choices of \u03b5 tends to stay flat.")
SEC6 = "Sec. 6, paragraph after the mean reward settings"


def _where(setting: int, figures: str) -> str:
    if setting == 1 and figures in ("Figs. 1-4", "Fig. 5"):
        return f"{SEC6} ({figures})"
    carried = f"{SEC6}, carried to {figures}"
    if setting == 1:
        return carried + " by its words 'small' and 'large'"
    return carried + f" by Sec. 6's sentence on setting 2: \"{SETTING2}\""


def _ours() -> Claim:
    return Claim("Anytime-Lazy-UCB's regret stays below its bound (Theorem 3)",
                 (Reading("mean final regret below Theorem 3's bound at T",
                          below_bound("anytime-lazy-ucb", "hu2021.thm3")),),
                 ours=True, why="our own check of the bound; Sec. 6 makes no such claim")


def _time(fig: str, setting: int, epsilons: tuple[float, ...], figure: str | None = None) -> Experiment:
    figure = figure or fig.replace("fig", "Fig. ")
    claims = []
    small = tuple(e for e in epsilons if e <= 1)
    large = tuple(e for e in epsilons if e >= 8)
    where = _where(setting, "Figs. 1-4" if setting == 1 and fig in ("fig1", "fig2", "fig3", "fig4")
                   else figure)
    if setting != 3 and small:
        claims += [
            Claim("at small epsilon Hybrid-UCB does not perform well",
                  (Reading("final regret of Hybrid-UCB above both Anytime-Lazy-UCB's and DP-SE's",
                           both(lower_than("anytime-lazy-ucb", ("hybrid-ucb",), small),
                                lower_than("dp-se", ("hybrid-ucb",), small))),
                   Reading("final regret of Hybrid-UCB above Anytime-Lazy-UCB's",
                           lower_than("anytime-lazy-ucb", ("hybrid-ucb",), small))),
                  quote=SMALL, where=where,
                  why="one-sided: 'does not perform well' beside the curves it is plotted with, "
                      "either both of them or the paper's own algorithm"),
            Claim("at small epsilon Anytime-Lazy-UCB is competitive with DP-SE",
                  tuple(Reading(f"Anytime-Lazy-UCB's mean final regret at most {f:g} times DP-SE's",
                                no_worse_than("anytime-lazy-ucb", "dp-se", f, small)) for f in (2.0, 3.0)),
                  quote=SMALL, where=where,
                  why="one-sided (being better than DP-SE never contradicts 'competitive'); the "
                      "two algorithms share the order K log T / eps of regret but not its "
                      "constants, so a factor 2 or 3 is still 'competitive' on a regret plot and "
                      "an order of magnitude is not")]
    if setting != 3 and large:
        claims.append(Claim(
            "at large epsilon Hybrid-UCB starts performing well",
            tuple(Reading(f"Hybrid-UCB's mean final regret at most 1.5 times {other}'s",
                          no_worse_than("hybrid-ucb", other, 1.5, large))
                  for other in ("anytime-lazy-ucb", "dp-se")),
            quote=LARGE, where=where,
            why="one-sided (Hybrid-UCB being the best curve never contradicts 'performing well'): "
                "no worse than 1.5 times the curves it is plotted with, either of them"))
    claims.append(_ours())
    return Experiment(f"hu2021-{fig}", PAPER, figure, f"hu2021-setting{setting}", LINES, epsilons,
                      "time", SIZES, tuple(claims), note=NOTE + _no_claims(setting),
                      paper_size=PAPER_SIZE, axes="linear")


def _no_claims(setting: int) -> str:
    return (" App. I.3 states no claim about setting 3; this page carries only our own check."
            if setting == 3 else "")


def _epsilon(fig: str, setting: int, figure: str | None = None) -> Experiment:
    figure = figure or fig.replace("fig", "Fig. ")
    where = _where(setting, figure)
    claims = () if setting == 3 else tuple(
        Claim(f"final regret of {label} decreases as epsilon increases",
              (Reading("a significantly negative least-squares slope in ln epsilon, and no "
                       "significant rise from one epsilon to the next",
                       non_increasing_in_epsilon(label)),
               Reading("a significantly negative least-squares slope in ln epsilon (a "
                       "significantly positive one contradicts)",
                       non_increasing_in_epsilon(label, steps=False))),
              quote=TREND, where=where,
              why="a trend over the grid, in its direction; a single step up (e.g. between 64 and "
                  "128, where the UCB curves meet the non-private floor) contradicts only the "
                  "strict reading")
        for label in ("anytime-lazy-ucb", "hybrid-ucb")) + (
        Claim("the final regret of DP-SE tends to stay flat across epsilon",
              tuple(Reading(f"mean final regret within a factor {band:g} between any two epsilons",
                            flat_in_epsilon("dp-se", band)) for band in (2.0, 3.0)),
              quote=TREND, where=where,
              why="an equivalence across the grid (both directions are departures from flat); "
                  "'tends to' allows some movement, so factors 2 and 3, against the tenfold or "
                  "more of the UCB curves over the same grid"),)
    return Experiment(f"hu2021-{fig}", PAPER, figure, f"hu2021-setting{setting}", LINES, EPSILONS,
                      "epsilon", SIZES, claims, note=NOTE + _no_claims(setting),
                      paper_size=PAPER_SIZE, axes="log-x")


EXPERIMENTS = [
    _time("fig1", 1, (0.5,)), _time("fig2", 1, (1.0,)), _time("fig3", 1, (8.0,)),
    _time("fig4", 1, (64.0,)), _epsilon("fig5", 1),
    _time("fig6", 2, (0.5,)), _time("fig7", 2, (8.0,)), _time("fig8", 2, (64.0,)),
    _time("fig9", 1, (0.1, 0.25, 128.0)), _epsilon("fig10", 2),
    _time("fig11", 2, (0.1, 0.25, 1.0, 128.0)), _epsilon("fig12", 3, "Fig. 12(a)"),
    _time("fig12b-h", 3, EPSILONS, "Fig. 12(b)-(h)"),
]
