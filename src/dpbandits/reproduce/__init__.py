"""``dpbandits reproduce``: the papers' experiments, each with its claims tested over the runs.

Every experiment of the papers' experiments sections is an :class:`Experiment`: a setting, the
curves it plots (:class:`Line`: an algorithm, variant and parameters), the privacy levels of its
panels, the size the paper states, and the paper's claims about it as :class:`Claim` objects whose
check is a stated statistical test over the runs. A page's claims are judged together, corrected
for multiplicity. Each claim quotes the paper's sentence and names its outcome word, whose test
and margin the lexicon fixes for every paper; its readings differ only in what the paper leaves
unstated (a parameter, a rule, a horizon). Each reading gets ``supported``, ``contradicted``,
``inconclusive at this size`` (with the runs that would decide it), ``could not fail`` or
``could not pass`` (with why: a test that could not have failed, or a degenerate stand-in that
decides nothing either way) or ``not testable`` (with the absent data), and the claim's verdict
combines its decided readings, weighing an undecided one that points the other way
(:func:`~dpbandits.reproduce.claims.combine`), with the margin at which it would flip.
Our own checks (the regret bounds) are judged and tallied apart from the papers' claims.

The package's modules:

* :mod:`~dpbandits.reproduce.claims`: how a claim is judged (the statistics, robust verdicts);
* :mod:`~dpbandits.reproduce.cells`: the simulated runs a check reads;
* :mod:`~dpbandits.reproduce.outcome`: what a check finds, its one-sided tests;
* :mod:`~dpbandits.reproduce.lexicon`: one meaning per word: each outcome word's test and margin;
* :mod:`~dpbandits.reproduce.checks`: the tests behind the words, at any margin;
* :mod:`~dpbandits.reproduce.experiments`: the catalogue, one module per paper;
* :mod:`~dpbandits.reproduce.runner`: cells simulated in parallel, written atomically, resumed;
* :mod:`~dpbandits.reproduce.page`: the CSV, the figure and the page.

Sizes: ``tiny`` (the test suite; seconds), ``small``, ``default`` (minutes) and ``full`` (the
paper's horizon, repetitions and epsilon grid; where the paper states no repetitions, ours, and
the page says so).
"""

from __future__ import annotations

from .checks import (below_bound, both, early_lead_then_caught, flat_in_epsilon, growth_at_most,
                     not_testable, on_real_data, range_at_least, range_at_most, ratio_at_least,
                     ratio_at_most, ratio_outside, ratio_within, shortfall_falls, trend_down,
                     value_within)
from .claims import VERDICTS, Cells, Outcome, Verdict, judge
from .lexicon import WORDS
from .experiment import SIZES, Claim, Experiment, Line, Reading
from .experiments import EXPERIMENTS, get_experiment
from .runner import Reproduction, reproduce, reproduce_many
from .shapes import converges, power_law_exponent

__all__ = ["Line", "Reading", "Claim", "Experiment", "EXPERIMENTS", "VERDICTS", "get_experiment", "reproduce",
           "reproduce_many", "Reproduction", "SIZES", "judge", "WORDS"]
