"""The page of one reproduction: its CSV, its figure (on the paper's axes) and its Markdown page."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from ..files import write_atomically
from .claims import ALPHA, Cells, Verdict
from .experiment import Experiment

__all__ = ["write_csv", "plot", "page"]


def write_csv(path: Path, cells: Cells) -> Path:
    """Every curve's mean regret and 95% band at every checkpoint."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["line", "epsilon", "t", "mean_regret", "low95", "high95", "runs"])
    for (label, eps), d in cells.data.items():
        for t, m, lo, hi in zip(d["t"], d["mean"], d["low"], d["high"]):
            writer.writerow([label, eps, t, m, lo, hi, d["runs"]])
    write_atomically(path, buffer.getvalue())
    return path


def _band(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and two-sided 95% t interval of the mean over runs (axis 0)."""
    from scipy.stats import t as student

    n = values.shape[0]
    mean = values.mean(axis=0)
    if n < 2:
        return mean, mean, mean
    half = student.ppf(0.975, n - 1) * values.std(axis=0, ddof=1) / np.sqrt(n)
    return mean, mean - half, mean + half


def plot(path: Path, cells: Cells) -> Path:
    """The figure on the paper's axes: regret (or per-round return, or R_n / ln n) against rounds,
    one panel per epsilon, or final regret against epsilon or 1/epsilon; shaded 95% bands."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    e = cells.experiment
    labels = [line.label for line in e.lines]
    if e.x in ("epsilon", "inverse-epsilon"):
        figure, axes = plt.subplots(figsize=(6.5, 4.2))
        eps = np.array(e.epsilons)
        x = eps if e.x == "epsilon" else 1 / eps
        order = np.argsort(x)
        for label in labels:
            finals = np.stack([cells.finals(label, v) for v in e.epsilons], axis=1)
            mean, low, high = _band(finals)
            axes.plot(x[order], mean[order], marker="o", ms=3, label=label)
            axes.fill_between(x[order], low[order], high[order], alpha=0.2)
        if e.x == "epsilon" and e.axes in ("log-x", "log-log"):
            axes.set_xscale("log")
        axes.set_xlabel("epsilon" if e.x == "epsilon" else "1 / epsilon")
        axes.set_ylabel(f"final regret (T = {cells.horizon:,})")
        axes.legend(fontsize=8)
        axes.set_title(f"{e.paper}, {e.figure}", fontsize=9)
    else:
        panels = len(e.epsilons)
        columns = min(panels, 4)
        rows = -(-panels // columns)
        figure, grid = plt.subplots(rows, columns, figsize=(5.0 * columns, 3.8 * rows), squeeze=False)
        for ax in grid.flat[panels:]:
            ax.set_visible(False)
        for ax, eps in zip(grid.flat, e.epsilons):
            for label in labels:
                d = cells.data[(label, eps)]
                t = np.asarray(d["t"], float)
                per_run = np.asarray(d["per_run"], float)
                if e.metric == "return":
                    per_run = d["optimal"] - per_run / t
                elif e.x == "log-time":
                    keep = t >= 2
                    t, per_run = t[keep], per_run[:, keep] / np.log(t[keep])
                mean, low, high = _band(per_run)
                ax.plot(t, mean, label=label)
                ax.fill_between(t, low, high, alpha=0.2)
            if e.metric == "return":
                ax.axhline(next(iter(cells.data.values()))["optimal"], color="black", ls=":",
                           label="optimal policy")
            if e.axes in ("log-x", "log-log"):
                ax.set_xscale("log")
            ax.set_xlabel("round n" if e.metric == "return" or e.x == "log-time" else "time step t")
            ax.set_ylabel({"return": "expected per-round return", "regret": "regret"}[e.metric]
                          if e.x != "log-time" else "R_n / ln(n)")
            ax.set_title(f"{e.figure}, epsilon = {eps:g}", fontsize=9)
            ax.legend(fontsize=7)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    write_atomically(path, buffer.getvalue())
    return path


def _eps_list(epsilons) -> str:
    shown = ", ".join(f"{x:g}" for x in epsilons[:8])
    return shown + (f", ... ({len(epsilons)} values)" if len(epsilons) > 8 else "")


def page(e: Experiment, cells: Cells, verdicts: list[Verdict], checks: list[Verdict], size: str,
         setting: str, seed: int) -> str:
    """The Markdown page: what ran beside what the paper ran, each claim of the paper with its
    sentence, its readings and its verdict, our own checks apart, and the figure."""
    T, runs = cells.horizon, cells.runs
    full_T, full_runs = e.sizes["full"]
    below = size != "full" or tuple(cells.experiment.epsilons) != e.epsilons
    ours = (f"T = {T:,}, {runs} runs per curve, epsilon {_eps_list(cells.experiment.epsilons)}, "
            f"seed {seed}, setting `{setting}` (size `{size}`)")
    lines = [f"# {e.name}: {e.paper}, {e.figure}", "",
             f"- **The paper**: {e.paper_size}.",
             f"- **Our run**: {ours}" + (" — below the paper's size." if below else
                                         " — the paper's size." if e.runs_stated else
                                         f" — the paper's horizon; {full_runs} runs is our choice."),
             f"- Curves: {', '.join(line.label for line in e.lines)}."]
    if not e.runs_stated:
        lines.append(f"- The paper states no number of repetitions; at full size we run {full_runs}.")
    if e.note:
        lines.append(f"- Note: {e.note}")
    lines += ["", VERDICT_RULE.format(alpha=ALPHA), ""]
    paper = [c for c in e.claims if not c.ours]
    mine = [c for c in e.claims if c.ours]
    if paper:
        lines += _table("claim of the paper", verdicts)
        lines += ["", "How each claim is read and tested:", ""]
        lines += [_reading(claim, v) for claim, v in zip(paper, verdicts)]
    else:
        lines.append("The paper states no claim about this figure.")
    if any(v.verdict == "contradicted" for v in verdicts):
        lines += ["", _not_our_artefact(e)]
    if mine:
        lines += ["", "Our own checks (not claims of the paper; judged and counted apart):", ""]
        lines += _table("our check", checks)
        lines += [""] + [_reading(claim, v) for claim, v in zip(mine, checks)]
    if below:
        lines += ["", f"This run is below the paper's size (T = {full_T:,}, {full_runs} runs, "
                      f"epsilon grid of {len(e.epsilons)}): a claim about long horizons may not show "
                      f"yet. `dpbandits reproduce {e.name} --full` runs the paper's size."]
    axes = {"log-x": "logarithmic x axis", "linear": "linear axes", "log-log": "logarithmic axes"}[e.axes]
    lines += ["", f"![{e.name}]({e.name}.png)", "",
              f"Figure: {axes}, shaded 95% confidence bands of the mean over runs. "
              f"Numbers: `{e.name}.csv`."]
    return "\n".join(lines) + "\n"


VERDICT_RULE = (
    "Each claim quotes the paper and lists every reasonable reading of it (direction, quantity, "
    "margin, horizon, unstated parameters); each reading is a stated test over the runs, and the "
    "readings of this page are corrected together for multiplicity (Holm, family-wise level "
    "{alpha:g}). A claim is `supported`, `contradicted` or `inconclusive at this size` only when "
    "every reading says so, and `depends on reading` when they differ; `not testable` says why "
    "(docs/findings.md lists the contradictions that survive every reading).")


def _not_our_artefact(e: Experiment) -> str:
    """What a reader checks before quoting a contradiction of this page: the paper's stated size
    beside ours (top of the page), every reading and each unstated parameter run (above), and
    the evidence that the curves are the papers' algorithms."""
    algorithms = sorted({line.algorithm for line in e.lines})
    return ("**Before quoting a contradiction**: every reading listed above contradicts it, "
            "including each value of a parameter the paper leaves unstated; the paper's stated "
            "size is beside ours at the top of this page. The curves are the reference "
            "implementations, line-tagged to the papers' pseudocode ("
            + ", ".join(f"docs/algorithms/{a}.md" for a in algorithms)
            + "); each compiled kernel is certified against its reference by `validate` "
            "(docs/compiled.md; certificates in docs/data/kernel-certificates.json). "
            "docs/findings.md lists "
            "each contradiction that survives, with its evidence.")


def _table(head: str, verdicts: list[Verdict]) -> list[str]:
    rows = [f"| {head} | our verdict | evidence |", "|---|---|---|"]
    for v in verdicts:
        evidence = v.evidence if len(v.readings) <= 1 else v.evidence + " (each below)"
        rows.append(f"| {_cell(v.text)} | **{v.verdict}** | {_cell(evidence)} |")
    return rows


def _reading(claim, v: Verdict) -> str:
    said = f" The paper ({claim.where}): \"{claim.quote}\"" if claim.quote else ""
    why = f" Why these readings: {claim.why}." if claim.why else ""
    text = f"- *{_cell(v.text)}*.{said}{why}"
    for r in v.readings:
        test = f" Test: {r.test}." if r.test else ""
        numbers = f" {r.evidence}." if len(v.readings) > 1 or r.verdict == "not testable" else ""
        text += f"\n    - Reading: {_cell(r.reading)} — **{r.verdict}**.{numbers}{test}"
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
