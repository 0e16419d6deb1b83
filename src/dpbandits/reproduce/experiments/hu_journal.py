"""Hu, Huang, Mehta & Hegde, journal version of arXiv:2102.07929 (Anytime-Lazy-UCB, Lazy-DP-TS):
Figs. 1 and 2, Sec. 6 (Experimental Results).

Sec. 6: "T = 10^6 and the number of arms K = 5", epsilon in {0.25, 0.5, 1}; setting 1 means
{0.75, 0.625, 0.5, 0.375, 0.25}, setting 2 {0.5, 0.4, 0.4, 0.4, 0.4}; "the average of 20
independent runs". The figures plot cumulative regret against rounds; no scale is stated.
The paper states neither AdaP-KLUCB's alpha nor DP-SE's beta: DP-SE runs with beta = 1/T (the
conference version's choice, Sec. 6) and AdaP-KLUCB with each alpha of :data:`ALPHAS`.
"""

from __future__ import annotations

from ..checks import ratio_at_most, ratio_within
from ..experiment import Claim, Experiment, Line
from ..lexicon import read

PAPER = "Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3)"
ALPHAS = (3.1, 4.0)
"""AdaP-KLUCB's exploration parameter (alpha > 3, Azize & Basu's Alg. 1 l.1): 3.1 is Azize &
Basu's own experiments' value; 4 a round value further from the boundary."""


def _adap(alpha: float) -> str:
    return "adap-klucb" if alpha == ALPHAS[0] else f"adap-klucb-alpha{alpha:g}"


LINES = (Line("anytime-lazy-ucb", "anytime-lazy-ucb"), Line("lazy-dp-ts", "lazy-dp-ts"),
         Line("dp-se", "dp-se"),
         *(Line(_adap(a), "adap-klucb", params=(() if a == ALPHAS[0] else (("alpha", a),)))
           for a in ALPHAS))
SIZES = {"tiny": (256, 3), "small": (2 ** 14, 10), "default": (2 ** 17, 20), "full": (1_000_000, 20)}
PAPER_SIZE = "T = 10^6, 20 independent runs, epsilon in {0.25, 0.5, 1} (Sec. 6)"
SEC6 = "Sec. 6 (Experimental Results), first paragraph"


def _figure(fig: int) -> Experiment:
    claims = (
        Claim("the empirical performance of Lazy-DP-TS is similar to AdaP-KLUCB",
              tuple(read(f"AdaP-KLUCB with alpha = {a:g}",
                         lambda m, a=a: ratio_within("lazy-dp-ts", _adap(a), m), "similar")
                    for a in ALPHAS),
              word="similar",
              quote="Not surprisingly, the empirical performance of Lazy-DP-TS is similar to "
                    "AdaP-KLUCB due to the facts that: 1. the non-private version of Lazy-DP-TS "
                    "[...] and the non-private version of AdaP-KLUCB [...] have the same "
                    "coefficient for the leading log(T) term in the instance-dependent regret "
                    "bound; 2. both AdaP-KLUCB and Lazy-DP-TS use, essentially, the same way to "
                    "add noise.", where=SEC6,
              why="an equivalence (both directions), at the plots' horizon in every panel; the "
                  "paper's reason is equal leading constants; AdaP-KLUCB's alpha is unstated, so "
                  "each alpha is a reading"),
        Claim("Lazy-DP-TS always empirically performs better than DP-SE and Anytime-Lazy-UCB",
              (read("at the plots' horizon, in every panel ('always')",
                    lambda m: ratio_at_most("lazy-dp-ts", ("dp-se", "anytime-lazy-ucb"), m), "better"),),
              word="better",
              quote="Additionally, as compared with DP-SE and Anytime-Lazy-UCB, Lazy-DP-TS always "
                    "empirically performs better.", where=SEC6,
              why="one-sided, against each of the two, in every panel"))
    return Experiment(f"hu-journal-fig{fig}", PAPER, f"Fig. {fig}", f"hu-journal-setting{fig}",
                      LINES, (0.25, 0.5, 1.0), "time", SIZES, claims, paper_size=PAPER_SIZE,
                      axes="linear",
                      note="AdaP-KLUCB with alpha = " + " and ".join(f"{a:g}" for a in ALPHAS)
                           + " and DP-SE with beta = 1/T (the paper states neither).")


EXPERIMENTS = [_figure(1), _figure(2)]
