"""What an experiment is: its curves (:class:`Line`), claims (:class:`Claim`) and sizes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Line", "Claim", "Experiment", "SIZES"]

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


