"""The experiment catalogue: one module per paper, each listing that paper's experiments with the
size the paper states, its curves and its claims."""

from __future__ import annotations

from ...errors import DPBanditsError
from ..experiment import Experiment
from . import chandak2023, hu2021, hu_journal, tossou2016

__all__ = ["EXPERIMENTS", "get_experiment", "PAPERS"]

PAPERS = (tossou2016, hu2021, hu_journal, chandak2023)

EXPERIMENTS: dict[str, Experiment] = {e.name: e for paper in PAPERS for e in paper.EXPERIMENTS}
"""Every reproducible experiment, by name."""


def get_experiment(name: str) -> Experiment:
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise DPBanditsError(f"unknown experiment {name!r}; known experiments: "
                             f"{', '.join(EXPERIMENTS)}") from None
