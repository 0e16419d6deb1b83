"""Privacy accounted from the code: an upper bound on epsilon traced from what the reference does.

The audit bounds epsilon from below; this module bounds it from above, from the reference
algorithm's own noise draws (docs/accountant.md). :func:`trace` runs one trajectory of a
registered algorithm with the noise source in tracing mode (:mod:`dpbandits.reference.noise`):
every release is recorded with its distribution, its scale and, for each value, the coefficient
of every cell (round, arm) of the reward table in the statistic it perturbs. :func:`account`
composes the trace under the neighbour relation of the claims (``ROW``: one row of the table is
replaced, every cell moving by at most 1):

* a Laplace release of values with sensitivities s_i to a row costs sum_i s_i / scale_i
  (the Laplace mechanism; Dwork and Roth, Theorem 3.6);
* an argmax release (report-noisy-max) whose utilities move by at most s_i costs
  2 max_i s_i / scale for Laplace, exponential and Gumbel noise alike (one utility may go up while
  another goes down: docs/errata.md#rnm-laplace, docs/errata.md#ww-exponential), and for Laplace
  never more than the Laplace mechanism on all values, sum_i s_i / scale; an argmax release
  whose noisy values the algorithm read beyond their argmax is a release of the values;
* a value released without a fresh draw (no noise, or a noise value used twice), a published
  value, a random draw's parameters or an action that moves with a cell: infinite;
* per row, the releases that contain it compose by basic composition (pure claims) or, for an
  (epsilon, delta) claim, by the better of basic and heterogeneous advanced composition at the
  claim's delta (Dwork, Rothblum and Vadhan 2010; Kairouz et al. 2015 for the heterogeneous form,
  docs/errata.md#td-advanced-composition); rows are disjoint inputs, so the worst row is the
  algorithm's epsilon (parallel composition), and the actions are post-processing of the releases.

The bound holds for the traced trajectory: given the actions, the coupling that shifts each noise
by its statistic's change maps the run on one table to the same actions on its neighbour, at the
cost above. So the algorithm's epsilon is the maximum of that cost over every output it can
produce, and the accountant says which of two things it computed:

* **proof at this size**, for every table with entries in [0, 1] at that K and T
  (docs/accountant.md#what-a-proof-is): where the action sequences times the {0, 1} tables
  the policy can tell apart along each fit :data:`ENUMERATION_BUDGET` (up to K = 2, T = 8
  for a bandit; ``dpbandits list`` proves at K = 2 and the largest T within
  :data:`PROOF_BUDGET`, :func:`proof_size`: T = 6 for a bandit, 4 for full information, 5 for
  the matroid policies), :func:`traced_upper` forces every action sequence on the policy
  round by round and runs it on every such table, on each of the :data:`PROOF_SEEDS` noise
  seeds, each seen cell probed across the whole range (+1 from 0, -1 from 1). The code is
  checked where it runs (:mod:`dpbandits.reference.noise`): every release's noise a declared
  law as drawn (a draw compared, selected, clipped or combined before its release is not),
  no predicate, branch, index or conversion of an unreleased reward-derived value (a leak,
  whatever its outcome), and every branch of the algorithm's code run under tracing
  (:mod:`.coverage`). The status is a proof when all of that holds and, along each sequence,
  the releases are the same on every table and seed; the class is every table in [0, 1] when
  every nonlinear map of a reward-derived value has an interval rule
  (:mod:`~dpbandits.reference.intervals`), else the enumerated {0, 1} tables. The noise values are sampled on the seeds,
  not enumerated (a schedule that moved only with noise values other seeds draw would be
  missed). The sequences are traced as a tree (a prefix once, copied where sequences branch)
  with a sequence's tables in the runs of one policy (:class:`_TableTracer`);
* **proof at this size by the per-arm schedule** (:data:`PROOF`; :mod:`.size`,
  docs/accountant.md#proof-at-your-size): for a bandit with a pure claim at a T the
  enumeration cannot reach, the policy runs a few forced sequences with every reward-derived
  value carrying its linear form over the cells, each cell charged |coefficient| / scale at its
  releases; the bound is the largest cell cost on the sequences that hold one arm. It holds for
  every sequence, table in [0, 1] and noise draw at that K and T when the per-arm schedule
  lemma does (a cell's cost is a function of its arm, the start and its position in the arm's
  stream), and it is a proof when a dependence analysis run with the policy at the small
  size (every action sequence, every branch run both ways) and at size T derives the lemma
  from the code (:mod:`dpbandits.reference.locality`: per-(run, arm) state read and written
  only through the traced (rows, actions) pair, the round only in comparisons constant after
  the start, the schedule and scales from counts), the enumeration at the small size is a
  proof, the forms give its costs cell by cell, and the checks of the code hold at both sizes
  (at a K where no enumeration fits, the small-size checks run at K = 2 and 3 and the start
  must be fixed: docs/accountant.md#any-k); a proof for an algorithm that takes no T covers
  every T' <= T (docs/accountant.md#every-shorter-horizon);
* **per-arm bound, not a proof** (:data:`PER_ARM`): the same when everything but the
  dependence analysis holds (the lemma, in its stream or round form, is then checked on the
  traced sequences, not derived from the code; the status names the analysis's first
  finding); otherwise an estimate naming what failed;
* **estimate from N traces, not a proof**: otherwise (larger sizes, a refused sequence after
  the policy's start, or a schedule that moved with the table or the noise seed, which the
  findings name: the sequence, the seed and the table), the maximum over the traced
  trajectories: the natural ones on seeded tables, forced ones that hold one arm after a
  round-robin start and, where enumerated, every sequence and {0, 1} table.

Whether the release schedule depends on the data is derived, not declared: it is
``data-independent`` when the rounds, kinds, families, scales and sizes of the releases were the
same on every traced sequence and table (``Accounting.schedule``).
"""

from __future__ import annotations

from ..reference.privacy import Guarantee
from .brackets import Bracket, _parse_label, audit_bracket, bracket, claim_bracket
from .composition import (ESTIMATED_TABLES, PER_ARM, PROOF, TABLES, UNIT_TABLES, Accounting, account,
                          alignment, release_loss, row_losses)
from .enumeration import (ENUMERATION_BUDGET, PROOF_BUDGET, PROOF_K, PROOF_SEEDS, PROOF_T,
                          _binary_tables, _choices, _visible, enumerate_traces, enumeration_size,
                          proof_size)
from .lockstep import _TableGenerator, _TableTracer
from .tracing import (HELD_T, STRUCTURE, TRACE_CELLS, TRACE_K, TRACE_SEEDS, TRACE_SETTINGS,
                      TRACE_T, TooLargeToTrace, Trace, _begin, trace)
from .upper import traced_upper

__all__ = ["Trace", "Accounting", "Bracket", "trace", "enumerate_traces", "release_loss",
           "row_losses", "account", "alignment", "traced_upper", "bracket", "audit_bracket", "claim_bracket",
           "STRUCTURE", "TRACE_SETTINGS", "TRACE_K", "TRACE_T", "TRACE_SEEDS", "PROOF_K", "PROOF_T",
           "ENUMERATION_BUDGET", "PROOF_BUDGET", "PROOF_SEEDS", "PROOF", "PER_ARM", "TABLES", "UNIT_TABLES",
           "enumeration_size", "proof_size", "TooLargeToTrace", "TRACE_CELLS"]

