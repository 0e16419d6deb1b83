"""The selection sample of an audit against ALGO, sized from what the selection needs.

The selection sample only *chooses*: the pair, the score and the threshold of the one event that
the test sample, drawn apart with seeds of its own, then counts. Its size therefore changes no
level and no hypothesis count (docs/audit-protocol.md#the-selection-sample); it changes how
good the chosen event is, and what the audit costs. A fixed sample of ``n_selection`` runs per
side on every candidate pair (18 pairs at T = 16 for Anytime-Lazy-UCB: 72 000 runs, most of a
validation's runs of the candidate) spends most of its runs on pairs that are plainly not the
best. :class:`Screening` spends them in two stages instead:

1. **Screening.** Every pair gets ``n_selection / 4`` runs per side (at least :attr:`floor`),
   and its event is fitted and scored on them as on a full sample (first half fits, second half
   chooses the threshold).
2. **The leading pairs.** The :attr:`leaders` pairs with the largest screening bounds (the
   earlier pair on ties; the designed pairs come first) get their full ``n_selection`` runs per
   side (the same seeds, so their first runs are the screening's), and the event is chosen among
   theirs as before.

Stage 2 is skipped when the screening has decided what it can: its best bound is already at
least twice the claim (the loss the test sample is sized to detect: a gross violation, which the
test then sizes itself on), or no event could
give a bound above the claim at the test's largest size (:func:`max_attainable_bound` at
``n_test`` runs per side and level alpha / looks), so the choice cannot change the verdict.
With no more pairs than :attr:`leaders`, or a screening below :attr:`floor`, every pair gets the
full sample, as before. The audit's own ``dpbandits audit ALGO`` and ``--all`` keep their
fixed selection sample (:mod:`dpbandits.audit.runner`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .scores import Event

__all__ = ["Screening", "leading", "SCREENING"]


@dataclass(frozen=True)
class Screening:
    """A two-stage selection sample (module docstring)."""

    share: int = 4
    """The screening's runs per side are ``n_selection // share``."""
    floor: int = 200
    """Screening only when it has at least this many runs per side (100 to fit, 100 to score);
    below, every pair gets the full sample."""
    leaders: int = 3
    """Pairs carried from the screening to the full sample."""

    def screen_size(self, n_selection: int, pairs: int) -> int | None:
        """Runs per side of the screening, or None when every pair gets ``n_selection``."""
        n = n_selection // self.share
        if pairs <= self.leaders or n < self.floor or n >= n_selection:
            return None
        return n


SCREENING = Screening()
"""The selection of an audit against ALGO (``dpbandits audit --against``, ``validate``,
``assert_private``)."""


def leading(events: list[Event | None], count: int) -> list[int]:
    """The indices of the ``count`` events with the largest selection bounds, in that order
    (the earlier index on ties; a pair with no fitted event last)."""
    order = sorted(range(len(events)),
                   key=lambda i: (events[i] is None,
                                  -(events[i].selection_bound if events[i] is not None else 0.0),
                                  i))
    return order[:count]


def stop_reason(best: Event | None, claimed_eps: float | None, attainable: float | None,
                violation: float = 2.0) -> str:
    """Why the screening's events suffice (empty when the leading pairs need their full
    sample): its best bound is at least ``violation`` times the claim (the loss the test sample
    is sized to detect), or no bound the test could give would exceed the claim."""
    if claimed_eps is None:
        return ""
    if best is not None and best.selection_bound >= violation * claimed_eps > 0:
        return (f"the screening's best event already gives a bound of {best.selection_bound:.3f} "
                f"on its second half, at least {violation:g} x the claim {claimed_eps:g} (the "
                f"loss the test sample is sized to detect)")
    if attainable is not None and attainable <= claimed_eps:
        return (f"no event can give a bound above the claim {claimed_eps:g} at the test's most "
                f"runs (at most {attainable:.3f}, every run in the event on one table and none "
                f"on the other), so the choice cannot change the verdict")
    return ""
