"""Plots of a validation: pull counts and regret of the candidate against the reference."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from scipy import stats

from ..files import atomic_write
from .summary import Validation

__all__ = ["plot"]


def plot(result: Validation, path: str | Path) -> Path:
    """Write a PNG with three panels, all on the fresh sample: mean pulls of every arm over time
    (candidate solid, reference dashed), pulls at T per arm (mean and 95% t interval), and the
    mean pseudo-regret with a 95% t band, the explicit bounds drawn where they apply.
    The file is written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    figure, (over_time, at_T, regret) = plt.subplots(1, 3, figsize=(15, 4.3))
    points = result.curves["pull_checkpoints"]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    arm = "base arm" if result.setup.super_arm_size else "arm"     # a matroid ALGO plays bases
    for a in range(result.setup.K):
        colour = colours[a % len(colours)]
        over_time.plot(points, result.curves["pulls"]["candidate"][:, a], color=colour,
                       label=f"{arm} {a}")
        over_time.plot(points, result.curves["pulls"]["reference"][:, a], color=colour,
                       linestyle="--")
    over_time.set_xlabel("round t")
    over_time.set_ylabel("mean pulls (candidate solid, reference dashed)")
    over_time.legend(fontsize=8)

    regret_points = result.curves["regret_checkpoints"]
    x = np.arange(result.setup.K)
    final = result.curves["pulls"]
    for offset, name in ((-0.2, "candidate"), (0.2, "reference")):
        at_T.bar(x + offset, final[name][-1], width=0.4, label=name)
    at_T.set_xticks(x)
    at_T.set_xlabel(arm)
    at_T.set_ylabel(f"mean pulls by T = {result.setup.T}")
    at_T.legend(fontsize=8)

    for name in ("candidate", "reference"):
        values = result.curves["regret"][name]
        mean = values.mean(axis=0)
        half = stats.t.ppf(0.975, values.shape[0] - 1) * values.std(axis=0, ddof=1) / math.sqrt(values.shape[0])
        regret.plot(regret_points, mean, label=name)
        regret.fill_between(regret_points, mean - half, mean + half, alpha=0.2)
    for entry in result.regret_checks:
        rows = entry["candidate"].rows
        t = [row["t"] for row in rows if np.isfinite(row["bound"])]
        b = [row["bound"] for row in rows if np.isfinite(row["bound"])]
        if t:
            regret.plot(t, b, linestyle=":", color="black", linewidth=1)
            regret.annotate(entry["bound"], (t[-1], b[-1]), fontsize=7, ha="right", va="bottom")
    regret.set_xscale("log")
    if result.regret_checks:
        regret.set_yscale("symlog", linthresh=1.0)
    regret.set_ylim(bottom=0)
    regret.set_xlabel("round t")
    regret.set_ylabel("pseudo-regret (mean, 95% band)")
    regret.legend(fontsize=8)
    evidence = result.evidence()
    detail = "; ".join(f"{kind} {facts['rejected']}/{facts['comparisons']} rejected"
                       + (f" from round {facts['departure']}" if facts["departure"] else "")
                       for kind, facts in evidence.items())
    setup = result.setup
    figure.suptitle(f"{setup.candidate} vs {setup.algorithm}: {result.behaviour} ({detail}); "
                    f"privacy: {result.privacy}; regret: {result.regret}\n"
                    f"panels: outcomes on fresh tables (path comparisons are on the fixed table)",
                    fontsize=9)
    figure.tight_layout()
    try:
        atomic_write(path, lambda handle: figure.savefig(handle, format="png", dpi=100), "wb")
    finally:
        plt.close(figure)
    return path
