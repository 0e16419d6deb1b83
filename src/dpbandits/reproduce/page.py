"""The page of one reproduction: its CSV, its figure and its Markdown page."""

from __future__ import annotations

import csv
import io

import numpy as np

from ..files import write_atomically
from .claims import Cells, Verdict
from .experiment import Experiment

def _write_csv(path: Path, cells: Cells) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["line", "epsilon", "t", "mean_regret", "low95", "high95", "runs"])
    for (label, eps), d in cells.data.items():
        for t, m, lo, hi in zip(d["t"], d["mean"], d["low"], d["high"]):
            writer.writerow([label, eps, t, m, lo, hi, d["runs"]])
    write_atomically(path, buffer.getvalue())
    return path


def _plot(path: Path, cells: Cells) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    e = cells.experiment
    labels = [line.label for line in e.lines]
    if e.x in ("epsilon", "inverse-epsilon"):
        figure, axes = plt.subplots(figsize=(6.5, 4.2))
        x = np.array(e.epsilons) if e.x == "epsilon" else 1 / np.array(e.epsilons)
        for label in labels:
            finals = np.array([cells.final(label, eps) for eps in e.epsilons])
            axes.errorbar(x, finals[:, 0], yerr=[finals[:, 0] - finals[:, 1], finals[:, 2] - finals[:, 0]],
                          marker="o", capsize=2, label=label)
        if e.x == "epsilon":
            axes.set_xscale("log")
        axes.set_xlabel("epsilon" if e.x == "epsilon" else "1 / epsilon")
        axes.set_ylabel(f"regret at T = {cells.horizon}")
        axes.legend(fontsize=8)
        axes.set_title(f"{e.paper}, {e.figure}", fontsize=9)
    else:
        panels = len(e.epsilons)
        figure, grid = plt.subplots(1, panels, figsize=(5.2 * panels, 4), squeeze=False)
        for ax, eps in zip(grid[0], e.epsilons):
            for label in labels:
                d = cells.data[(label, eps)]
                t, m = np.asarray(d["t"], float), np.asarray(d["mean"], float)
                lo, hi = np.asarray(d["low"], float), np.asarray(d["high"], float)
                if e.metric == "return":
                    m, lo, hi = d["optimal"] - m / t, d["optimal"] - hi / t, d["optimal"] - lo / t
                elif e.x == "log-time":
                    keep = t >= 2
                    t, m, lo, hi = t[keep], m[keep] / np.log(t[keep]), lo[keep] / np.log(t[keep]), hi[keep] / np.log(t[keep])
                ax.plot(t, m, label=label)
                ax.fill_between(t, lo, hi, alpha=0.15)
            if e.metric == "return":
                ax.axhline(next(iter(cells.data.values()))["optimal"], color="black", ls=":", label="optimal policy")
            ax.set_xscale("log")
            ax.set_xlabel("round")
            ax.set_ylabel({"return": "expected per-round return", "regret": "pseudo-regret"}[e.metric]
                          if e.x != "log-time" else "R_n / ln n")
            ax.set_title(f"{e.figure}, epsilon = {eps:g}", fontsize=9)
            ax.legend(fontsize=7)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    write_atomically(path, buffer.getvalue())
    return path


def _page(e: Experiment, cells: Cells, verdicts: list[Verdict], size: str, setting: str, seed: int) -> str:
    T, runs = e.sizes[size]
    full_T, full_runs = e.sizes["full"]
    lines = [f"# {e.name}: {e.paper}, {e.figure}", "",
             f"Setting `{setting}`; epsilon {', '.join(f'{x:g}' for x in cells.experiment.epsilons)}; "
             f"T = {T}, {runs} runs, seed {seed} (size `{size}`; the paper: T = {full_T}, "
             f"{full_runs} runs). Curves: {', '.join(line.label for line in e.lines)}.", ""]
    if e.note:
        lines += [f"Note: {e.note}", ""]
    lines += ["| claim of the paper | our run | evidence |", "|---|---|---|"]
    for v in verdicts:
        lines.append(f"| {v.text} | **{v.verdict}** | {v.evidence} |")
    if size != "full":
        lines += ["", "At a reduced size a claim about long horizons may not yet show; "
                      f"`dpbandits reproduce {e.name} --full` runs the paper's size."]
    lines += ["", f"![{e.name}]({e.name}.png)", "", f"Numbers: `{e.name}.csv`."]
    return "\n".join(lines) + "\n"
