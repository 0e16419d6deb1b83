"""The report's pictures: the audit's forest plot and the grid of the papers' claims by verdict."""

from __future__ import annotations

import json
from pathlib import Path

from ..files import write_atomically
from .plan import Part
from .style import COLOURS as _COLOURS, VERDICTS

__all__ = ["figures", "REPRODUCE_KEYS"]

def figures(parts: list[Part], out: Path) -> dict[str, str]:
    """One picture per part that has one: the audit's forest plot and the reproductions' grid of
    verdicts, written to ``out``; part name -> file name."""
    figures = {}
    by = {part.name: part for part in parts}
    if "audit" in by and (out / "audit-claims.json").is_file():
        if _audit_forest(out / "audit-claims.json", out / "audit-forest.png"):
            figures["audit"] = "audit-forest.png"
    if "reproduce" in by and _verdict_grid(by["reproduce"].summary, out / "reproduce-verdicts.png"):
        figures["reproduce"] = "reproduce-verdicts.png"
    return figures


def _audit_forest(source: Path, path: Path) -> bool:
    """Forest plot of the audit: for each variant its one-sided 95% interval [lower bound, inf)
    for epsilon, the point estimate (not a bound) and its claim; coloured and labelled by
    verdict. False when there is nothing to draw."""
    import math

    try:
        rows = [r for r in json.loads(source.read_text()) if isinstance(r, dict)
                and isinstance(r.get("epsilon_lower_bound"), (int, float))]
    except (OSError, ValueError):
        return False
    if not rows:
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def number(value) -> float:
        return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else math.nan

    values = [number(r.get(k)) for r in rows for k in ("epsilon_lower_bound", "claimed_epsilon")]
    right = 1.15 * max([v for v in values if math.isfinite(v)] + [1.0])
    figure, axes = plt.subplots(figsize=(9, 0.3 * len(rows) + 1.4))
    for i, row in enumerate(rows):
        y = len(rows) - 1 - i
        verdict = str(row.get("verdict", ""))
        look, mark = VERDICTS.get(verdict, ("none", "\u2013"))
        colour = _COLOURS[look]
        low = number(row["epsilon_lower_bound"])
        axes.plot([low, right], [y, y], color=colour, linewidth=3, alpha=0.55,
                  solid_capstyle="butt")
        axes.plot([low], [y], marker="|", markersize=12, markeredgewidth=2.5, color=colour)
        estimate = number(row.get("epsilon_estimate"))
        if math.isfinite(estimate) and estimate <= right:
            axes.plot([estimate], [y], marker="o", markersize=5, color="white",
                      markeredgecolor=colour, markeredgewidth=1.5)
        claim = number(row.get("claimed_epsilon"))
        if math.isfinite(claim):
            axes.plot([claim], [y], marker="D", markersize=6, color="black")
        axes.annotate(f"{mark} {verdict}", (1.005, y), xycoords=("axes fraction", "data"),
                      va="center", fontsize=8, color=colour)
    axes.set_yticks(range(len(rows)))
    axes.set_yticklabels([str(r.get("mechanism", ""))[:40] for r in reversed(rows)], fontsize=8)
    axes.set_xlim(0, right)
    axes.set_ylim(-0.7, len(rows) - 0.3)
    axes.set_xlabel("epsilon")
    axes.grid(axis="x", color="#d1d9e0", linewidth=0.6)
    axes.plot([], [], color="grey", linewidth=3, alpha=0.55, label="95% interval [lower bound, inf)")
    axes.plot([], [], marker="o", color="white", markeredgecolor="grey", linestyle="",
              label="estimate (not a bound)")
    axes.plot([], [], marker="D", color="black", linestyle="", label="claimed epsilon")
    axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8,
                frameon=False, title="a violation: the interval lies entirely beyond the claim",
                title_fontsize=8)
    figure.tight_layout()
    write_atomically(path, _png(figure))
    plt.close(figure)
    return True


REPRODUCE_KEYS = {"supported": "supported", "contradicted": "contradicted",
                  "depends": "depends on reading",
                  "not_supported": "not supported", "inconclusive": "inconclusive at this size",
                  "could_not_fail": "could not fail", "could_not_pass": "could not pass",
                  "not_testable": "not testable"}
"""Keys of the reproduce part's summary that list claims ("EXPERIMENT: claim"), and their verdict."""


def _verdict_grid(summary_: dict, path: Path) -> bool:
    """Grid of the papers' claims: one row per experiment (grouped by paper), one cell per claim,
    coloured and marked by verdict. False when there is nothing to draw."""
    cells: dict[str, list[str]] = {}
    for key, verdict in REPRODUCE_KEYS.items():
        for entry in summary_.get(key, []) or []:
            if isinstance(entry, str):
                cells.setdefault(entry.partition(":")[0].strip(), []).append(verdict)
    if not cells:
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    order = list(REPRODUCE_KEYS.values())
    names = sorted(cells, key=lambda n: (n.split("-")[0], n))
    width = max(len(v) for v in cells.values())
    figure, axes = plt.subplots(figsize=(max(6.0, 2.6 + 0.42 * width), 0.36 * len(names) + 1.6))
    for i, name in enumerate(names):
        y = len(names) - 1 - i
        for j, verdict in enumerate(sorted(cells[name], key=order.index)):
            look, mark = VERDICTS[verdict]
            axes.add_patch(Rectangle((j + 0.05, y - 0.42), 0.9, 0.84, color=_COLOURS[look],
                                     alpha=0.85))
            axes.text(j + 0.5, y, mark, ha="center", va="center", color="white", fontsize=10,
                      fontweight="bold")
    papers = [n.split("-")[0] for n in names]
    for i in range(1, len(names)):
        if papers[i] != papers[i - 1]:
            axes.axhline(len(names) - i - 0.5, color="black", linewidth=0.8)
    axes.set_yticks(range(len(names)))
    axes.set_yticklabels(list(reversed(names)), fontsize=8)
    axes.set_xticks([])
    axes.set_xlim(0, width)
    axes.set_ylim(-0.6, len(names) - 0.4)
    axes.set_xlabel("claims of each experiment (ordered by verdict)", fontsize=9)
    for side in ("top", "right", "bottom"):
        axes.spines[side].set_visible(False)
    handles = [Rectangle((0, 0), 1, 1, color=_COLOURS[VERDICTS[v][0]], alpha=0.85,
                         label=f"{VERDICTS[v][1]} {v}") for v in order
               if any(v in c for c in cells.values())]
    axes.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4,
                fontsize=8, frameon=False)
    figure.tight_layout()
    write_atomically(path, _png(figure))
    plt.close(figure)
    return True


def _png(figure) -> bytes:
    import io

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()
