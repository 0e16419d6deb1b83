"""One meaning per word: each word the papers use for an outcome, with its one test and one margin.

A claim names its word (:attr:`~dpbandits.reproduce.experiment.Claim.word`); its readings differ
only in what the paper leaves unstated (a parameter, a rule, a horizon), never in the margin,
which is the word's. The margins are justified once, on the documentation page *The lexicon*
(docs/lexicon.md), and every page prints the margin at which each verdict would flip, so that a
reader with another threshold reads the answer off the page.

Most words compare ratios of mean final regret, and those share one margin, :data:`CLOSE`. A
sentence that names another quantity is tested on it: Chandak et al. measure "the expected
per-round return" and plot it, so their *approaches* and *comparable per-round return* compare
plotted returns, with a margin on that scale, :data:`RETURN` (the regret ratio stays beside them
as our own check, counted apart).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import checks
from .claims import CLOSE
from .experiment import Reading

__all__ = ["CLOSE", "CONSISTENT", "RETURN", "Word", "WORDS", "read"]

CONSISTENT = 664.5 / 15_000
"""'Consistent' across runs, in units of uniform play's regret: the one number a paper gives, a
best-to-worst range under 664.5 at T = 100,000 in Tossou & Dimitrakakis's 2-arm scenario (Sec.
4), where uniform play loses 100,000 x 0.15 = 15,000. The paper does not say which regret it ranged; a
reading of 'consistent' takes the margin on the same regret as the range it tests."""

RETURN = 0.05
"""Two plotted per-round returns are close when they differ by at most this fraction of the
optimal return f*, the plot's reference line (docs/lexicon.md: on Chandak et al.'s synthetic
instance a curve at 0.95 f* passes; the epsilon = 10^-4 curves, which their Fig. 2 caption calls
deteriorated, sit at 0.70 f* and fail by a factor 6)."""


@dataclass(frozen=True)
class Word:
    """A word of the lexicon: its test, its margin and the margin's unit."""

    word: str
    test: str
    margin: float | None
    """The margin, the same for every paper (None: a sign test with no margin; its flip point is
    the family-wise level at which the verdict would change)."""
    unit: str = ""
    """What the margin measures."""
    symmetric: bool = False
    """An equivalence (a ratio within [1/m, m]): only margins of at least 1 mean anything."""


def _w(word: str, test: str, margin: float | None, unit: str = "ratio of mean final regrets",
       symmetric: bool = False) -> Word:
    return Word(word, test, margin, unit, symmetric)


WORDS: dict[str, Word] = {w.word: w for w in (
    _w("better", "A's mean final regret at most m x B's, one-sided, in every panel named", 1.0),
    _w("outperforms", "as 'better'", 1.0),
    _w("significantly better", "A's mean final regret at most m x B's, one-sided: better by more "
       "than the closeness margin (m = 1/1.25)", 1 / CLOSE),
    _w("worse", "A's mean final regret at least m x each other curve's, one-sided", 1.0),
    _w("similar", "A's mean final regret within [B/m, m B] (two one-sided tests)", CLOSE, symmetric=True),
    _w("comparable", "A's mean final regret at most m x B's, one-sided", CLOSE),
    _w("competitive", "as 'comparable'", CLOSE),
    _w("approaches", "approaching a curve on a per-round return plot: A's plotted per-round "
       "return at the last round at least the curve's minus m f*, at the largest epsilon named",
       RETURN, "fraction of the optimal per-round return f*"),
    _w("comparable per-round return", "A's plotted per-round return at the last round at least "
       "B's minus m f*, one-sided", RETURN, "fraction of the optimal per-round return f*"),
    _w("approaches the optimum", "the plotted per-round return's shortfall from the optimal "
       "return at n at most 1/m of its shortfall at n/2", CLOSE, "ratio of per-round shortfalls"),
    _w("performs well", "A's mean final regret at most m x each other plotted curve's", CLOSE),
    _w("does not perform well", "A's mean final regret at least m x each other plotted curve's",
       CLOSE),
    _w("decreases", "the per-run least-squares slope of final regret on ln epsilon has the "
       "stated sign", None, "family-wise level"),
    _w("stays flat", "mean final regret within a factor m between every two epsilons", CLOSE, symmetric=True),
    _w("does not increase", "the gap at T at most m x the gap at T/2", CLOSE,
       "ratio of gaps, T against T/2"),
    _w("eventually catches", "the early curve below the late one at some round up to T/10, and "
       "the late curve's regret at T at most m x the early one's", CLOSE),
    _w("under", "the best-to-worst range of final regret over the paper's number of runs at "
       "most the paper's number N (m = N)", None, "the paper's number"),
    _w("consistent", "the best-to-worst range of final regret over the paper's runs at most m x "
       "uniform play's regret", CONSISTENT, "fraction of uniform play's regret"),
    _w("reaches", "the best-to-worst range of final regret over the paper's runs at least N / m",
       CLOSE, "ratio to the paper's number"),
    _w("reported count", "the per-run count's mean within [N/m, m N] (two one-sided tests)", CLOSE,
       "ratio to the paper's number", symmetric=True),
    _w("converges", "over the plot's last decade, regret grows at most like (ln n)^m: R_n at "
       "most (ln n / ln(n/10))^m x R_(n/10) (c ln n passes, c ln^2 n fails)", CLOSE,
       "exponent of ln n"),
    _w("different", "two curves' plotted R_n / ln n at n differ by more than a factor m", CLOSE, symmetric=True),
    _w("linear in", "the exponent b of c + a x^b fitted to the mean curve within [1/m, m]", CLOSE,
       "ratio of exponent to 1", symmetric=True),
)}
"""Every word a claim may name, by word."""


def read(text: str, build: Callable[[float], checks.Check] | checks.Check, word: str,
         margin: float | None = None) -> Reading:
    """A reading of a claim naming ``word``: ``build(m)`` is its check at margin ``m``; the margin
    is the word's unless the word takes the paper's own number (``under``). A word with no margin
    takes the check itself."""
    entry = WORDS[word]
    m = entry.margin if margin is None else margin
    if m is None:
        return Reading(text, build, margin=None)
    return Reading(text, build(m), margin=m, build=build, low=1.0 if entry.symmetric else 0.0)
