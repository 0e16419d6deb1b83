"""The page of one reproduction: its CSV, its figure (on the paper's axes) and its Markdown page."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np

from ..files import write_atomically
from .checks import DEGENERATE
from .claims import ALPHA, NEAR_MARGIN, SEEDS, Cells, Verdict
from .experiment import Experiment

__all__ = ["write_csv", "plot", "page", "page_json", "VERDICT_RULE"]


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
    lines += ["", VERDICT_RULE, ""]
    paper = [c for c in e.claims if not c.ours]
    mine = [c for c in e.claims if c.ours]
    if paper:
        lines += _table("claim of the paper", verdicts, paper)
        lines += ["", "How each claim is read and tested:", ""]
        lines += [_reading(claim, v) for claim, v in zip(paper, verdicts)]
    else:
        lines.append("The paper states no claim about this figure.")
    if any(v.verdict == "contradicted" for v in verdicts):
        lines += ["", _not_our_artefact(e)]
    if mine:
        lines += ["", "Our own checks (not claims of the paper; judged and counted apart):", ""]
        lines += _table("our check", checks, mine)
        lines += [""] + [_reading(claim, v) for claim, v in zip(mine, checks)]
    if below:
        lines += ["", f"This run is below the paper's size (T = {full_T:,}, {full_runs} runs, "
                      f"epsilon grid of {len(e.epsilons)}): a claim about long horizons may not show "
                      f"yet. `dpbandits reproduce {e.name} --full` runs the paper's size."]
    axes = {"log-x": "logarithmic x axis", "linear": "linear axes", "log-log": "logarithmic axes"}[e.axes]
    lines += ["", f"![{e.name}]({e.name}.png)", "",
              f"Figure: {axes}, shaded 95% confidence bands of the mean over runs. "
              f"Numbers: `{e.name}.csv`; every claim's quote, word, readings, margins, verdicts "
              f"and flip points: `{e.name}.json`."]
    return "\n".join(lines) + "\n"


VERDICT_RULE = (
    f"**How words become verdicts.** Each claim quotes the paper and names its outcome word; the "
    f"word's test and margin are the same for every paper (docs/lexicon.md), on the quantity the "
    f"sentence names. Its readings differ only in what the paper leaves unstated (a parameter, a "
    f"rule, a horizon, the printed algorithm or our corrected variant, which regret). The "
    f"readings of this page are corrected together for multiplicity (Holm, family-wise level "
    f"{ALPHA:g}). **The rule**, over the decided readings: every decided reading supports, "
    f"`supported`; every decided reading contradicts, `contradicted` (the undecided readings are "
    f"named); some support and some contradict, `depends on reading`; but if an undecided "
    f"reading's point estimate lies on the other side of the margin from the decided ones, "
    f"`inconclusive at this size` (never `supported` or `contradicted` alone); none decided, "
    f"`inconclusive at this size` (with the runs that would decide). A reading that passes a "
    f"test that could not have failed (a vacuous comparison, or a comparator playing almost "
    f"uniformly) is `could not fail`, and one whose algorithm is, in our run, a degenerate "
    f"stand-in (at least {DEGENERATE:.0%} of uniform play's regret) is `could not fail` if "
    f"supported and `could not pass` if contradicted: neither is counted. Low power is said in "
    f"words beside a verdict; `not testable` names the absent data. Each claim prints the margin "
    f"(or level) at which its verdict would flip; a decided verdict within a factor "
    f"{NEAR_MARGIN:g} of its flip point (for a word with no margin, a level within a factor 2 of "
    f"{ALPHA:g}) is run again on seeds {SEEDS[0]}-{SEEDS[-1]}: it is `inconclusive at this size` "
    f"only if the seeds where it is decided disagree, and otherwise keeps its verdict with the "
    f"count of seeds (in a run that skips those re-runs, such as the report's default budget, it "
    f"is `inconclusive at this size`).")


def _not_our_artefact(e: Experiment) -> str:
    """What a reader checks before quoting a contradiction of this page: the paper's stated size
    beside ours (top of the page), every reading and each unstated parameter run (above), and
    the evidence that the curves are the papers' algorithms."""
    algorithms = sorted({line.algorithm for line in e.lines})
    return ("**Before quoting a contradiction**: every decided reading listed above contradicts "
            "it (the undecided ones are named), each at the margin its word fixes, and the flip "
            "point says at which margin it would not; the paper's stated "
            "size is beside ours at the top of this page. The curves are the reference "
            "implementations, line-tagged to the papers' pseudocode ("
            + ", ".join(f"docs/algorithms/{a}.md" for a in algorithms)
            + "); each compiled kernel is certified against its reference by `validate` "
            "(docs/compiled.md; certificates in docs/data/kernel-certificates.json). "
            "docs/findings.md lists "
            "each contradiction that survives, with its evidence.")


def _table(head: str, verdicts: list[Verdict], claims) -> list[str]:
    rows = [f"| {head} | word | our verdict | flips at | evidence |", "|---|---|---|---|---|"]
    for claim, v in zip(claims, verdicts):
        evidence = v.evidence if len(v.readings) <= 1 else v.evidence + " (each below)"
        flip = v.flip.text() if v.flip is not None else ""
        rows.append(f"| {_cell(v.text)} | {_cell(claim.word) or '-'} | **{v.verdict}** | "
                    f"{_cell(flip) or '-'} | {_cell(evidence)} |")
    return rows


def _reading(claim, v: Verdict) -> str:
    said = f" The paper ({claim.where}): \"{claim.quote}\"" if claim.quote else ""
    word = f" Word: *{claim.word}*." if claim.word else ""
    why = f" Why: {claim.why}." if claim.why else ""
    text = f"- *{_cell(v.text)}*.{said}{word}{why}"
    if v.flip is not None and v.flip.text():
        text += f" Flip point of the claim: {v.flip.text()}."
    if v.seeds:
        text += " Near its flip point, run on seeds " + ", ".join(
            f"{s} ({x})" for s, x in v.seeds) + "."
    for r in v.readings:
        test = f" Test: {r.test}." if r.test else ""
        margin = f" Margin {r.margin:.4g}." if r.margin is not None else ""
        numbers = f" {r.evidence}." if r.evidence else ""
        flip = f" Flip point: {r.flip.text()}." if r.flip is not None and r.flip.text() and len(v.readings) > 1 else ""
        power = f" Power: {r.power}." if r.power else ""
        text += f"\n    - Reading: {_cell(r.reading)} — **{r.verdict}**.{margin}{numbers}{flip}{power}{test}"
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def page_json(e: Experiment, cells: Cells, verdicts: list[Verdict], checks: list[Verdict],
              size: str, seed: int) -> str:
    """The page's claims as data: each claim's quote, word, readings (test, margin, verdict, flip
    point, power) and verdict; our own checks apart."""
    def claim(c, v: Verdict) -> dict:
        return dict(text=v.text, quote=c.quote, where=c.where, word=c.word, verdict=v.verdict,
                    flip=v.flip.to_dict() if v.flip else None,
                    flip_text=v.flip.text() if v.flip else "", seeds=[list(x) for x in v.seeds],
                    evidence=v.evidence, readings=[r.to_dict() for r in v.readings])

    paper = [c for c in e.claims if not c.ours]
    mine = [c for c in e.claims if c.ours]
    data = dict(experiment=e.name, paper=e.paper, figure=e.figure, size=size, seed=seed,
                horizon=cells.horizon, runs=cells.runs, rule=VERDICT_RULE,
                claims=[claim(c, v) for c, v in zip(paper, verdicts)],
                our_checks=[claim(c, v) for c, v in zip(mine, checks)])
    return json.dumps(data, indent=1, default=_plain) + "\n"


def _plain(x):
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    raise TypeError(f"not JSON: {type(x).__name__}")
