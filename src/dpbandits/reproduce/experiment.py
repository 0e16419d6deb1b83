"""What an experiment is: its curves (:class:`Line`), claims (:class:`Claim`, each with its
:class:`Reading` s) and sizes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Line", "Reading", "Claim", "Experiment", "SIZES"]

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
class Reading:
    """One way of reading a claim, committed to a direction, a quantity, a margin and a horizon,
    and the check that tests it (Cells -> :class:`~dpbandits.reproduce.claims.Outcome`)."""

    text: str
    check: Callable[..., Any]
    margin: float | None = None
    """The margin the check was built with (the claim's word's, :mod:`~dpbandits.reproduce.lexicon`)."""
    build: Callable[[float], Callable[..., Any]] | None = None
    """The same check at another margin (for the flip point); None for a word with no margin."""
    low: float = 0.0
    """The smallest meaningful margin (1 for an equivalence, whose margin is a ratio within
    [1/m, m])."""


@dataclass(frozen=True)
class Claim:
    """One of the paper's claims about an experiment (or one of our own checks, ``ours``), with
    the paper's sentence, where it stands, and every reasonable reading of it.

    Its verdict combines its readings' over the decided ones only
    (:func:`~dpbandits.reproduce.claims.combine`)."""

    text: str
    readings: tuple[Reading, ...]
    word: str = ""
    """The outcome word of the paper's sentence, a key of
    :data:`~dpbandits.reproduce.lexicon.WORDS` (empty for our own checks)."""
    quote: str = ""
    """The paper's own sentence, verbatim (empty for our own checks)."""
    where: str = ""
    """Where the sentence stands in the paper: section, figure, page."""
    why: str = ""
    """Why these readings and margins: stated once per claim, before any run."""
    ours: bool = False
    """Our own check (a bound, a baseline), not a claim the paper makes: tallied apart."""

    @property
    def reading(self) -> str:
        return "; ".join(r.text for r in self.readings)


@dataclass(frozen=True)
class Experiment:
    """One figure or table of a paper: its setting, curves, privacy levels, sizes and claims."""

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
    """size -> (horizon, runs); ``full`` is the paper's size (its runs ours where it states none)."""
    claims: tuple[Claim, ...] = ()
    note: str = ""
    metric: str = "regret"
    """``regret`` (cumulative pseudo-regret) or ``return`` (expected per-round return, matroids)."""
    reduced_points: dict[str, int] = field(default_factory=dict)
    """size -> how many of ``epsilons`` (evenly chosen) to run at that size; all when absent."""
    paper_size: str = ""
    """What the paper states about its size, with where it says so."""
    runs_stated: bool = True
    """Whether the paper states its number of repetitions (if not, the page says so)."""
    axes: str = "log-x"
    """The paper's axes: ``log-x`` (log rounds), ``linear`` or ``log-log``; read from its text
    where stated (e.g. Tossou & Dimitrakakis, Sec. 4: 'The plot, in logarithmic scale')."""
    final_basis: bool = False
    """Keep each run's last super arm (to count its overlap with the optimal basis, Table 3)."""


