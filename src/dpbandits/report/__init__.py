"""``dpbandits report``: the whole verification at a default budget, in one folder.

Parts, in order (each written to ``DIR/parts/<part>.json`` as soon as it is done, with the
parameters that produced it; a re-run with the same parameters reuses finished parts, so an
interrupted report resumes where it stopped):

1. ``algorithms``   every registered algorithm, its paper and the claim of each variant;
2. ``audit``        the audit claims table (``dpbandits.audit.audit_all``): each variant's claim,
                    the epsilon lower bound at 95% confidence and the verdict;
3. ``bounds``       every algorithm with an explicit regret bound, simulated and checked against
                    it (``dpbandits.bounds.check_regret``);
4. ``reproduce``    the papers' experiments at the papers' sizes (``reproduce_size="full"``),
                    each claim a stated test with its verdict.

With ``--workers N`` (N > 1, no cluster) the parts that run are built at the same time, each in
a thread, their simulations on one pool of N processes that take the parts' tasks in turn (each
part's largest first), the kernels not yet compiled first, each once; nothing of the results
changes (every task is seeded by its own arguments). ``DIR/timing.json`` records each part's
wall seconds and processor seconds (its thread and its tasks in the workers), the processor
seconds of each task in the order the tasks started, and the report process's own processor
seconds (``benchmarks/report_time.py`` reads it).

``DIR/index.md`` and ``DIR/index.html`` (plots inline) open with a summary: which privacy claims
hold up to the audit's power and which are violated, which bounds are respected (at the band's
confidence, on the simulated instance), which are inconclusive at this size, which of the
papers' experimental claims our runs support. The default budget finishes in about
:data:`DEFAULT_MINUTES` minutes on 2 cores (measured; the README states the same number);
``--budget tiny`` is the test suite's.

The package's modules, by stage:

* :mod:`~dpbandits.report.plan`: the budgets, the parts and their cache (what runs, what is reused);
* :mod:`~dpbandits.report.parts`: the builder of each part;
* :mod:`~dpbandits.report.assemble`: :func:`report`, which runs or reuses the parts and writes the pages;
* :mod:`~dpbandits.report.summary`: the summary and the Markdown index;
* :mod:`~dpbandits.report.figures`: the audit's forest plot and the grid of the claims' verdicts;
* :mod:`~dpbandits.report.webpage`: the self-contained HTML page (:mod:`~dpbandits.report.style`
  holds its stylesheet and the look of each verdict).
"""

from __future__ import annotations

from .assemble import report
from .plan import BUDGETS, DEFAULT_MINUTES, PARTS, Part
from .summary import summary

__all__ = ["report", "BUDGETS", "Part", "PARTS", "DEFAULT_MINUTES", "summary"]
