"""The report's summary (its opening lines, computed from the parts' summaries) and its Markdown
index."""

from __future__ import annotations

from .plan import Part

__all__ = ["summary", "index", "TITLES", "FIGURE_ALT"]

def summary(parts: list[Part]) -> list[str]:
    """The report's opening lines, computed from the parts' summaries."""
    by = {p.name: p.summary for p in parts}
    lines = []
    if "algorithms" in by:
        s = by["algorithms"]
        lines.append(f"- **{s['algorithms']} algorithms** ({s['variants']} variants) registered.")
    if "audit" in by:
        s = by["audit"]
        private = len(s["violations"]) + len(s["consistent"])
        lines.append(f"- **Privacy claims violated** ({len(s['violations'])} of {private} private "
                     "variants; the audit's lower bound exceeds the claim at 95% confidence): "
                     + (", ".join(f"`{m}`" for m in s["violations"]) or "none") + ".")
        missed = s["false_but_not_detected"]
        lines.append(f"- **Privacy claims not refuted** at this budget ({len(s['consistent'])}): "
                     + (", ".join(f"`{m}`" for m in s["consistent"]) or "none") + ". Not refuted "
                     "is not proved: "
                     + (f"{len(missed)} of these are shown false on the errata page "
                        "(docs/errata.md) but the audit of their actions did not refute them: "
                        + "; ".join(f"`{m}`: {s.get('why_not_detected', {}).get(m, 'not computed')}"
                                    for m in missed) + "."
                        if missed else "every claim the errata page (docs/errata.md) shows "
                        "false was caught."))
        flagged = sum(v == "violation" for v in s["controls"].values())
        lines.append(f"- **Audit controls** (toy mechanisms of known loss): {flagged} of "
                     f"{len(s['controls'])} flagged: "
                     + ", ".join(f"`{m}` {v}" for m, v in s["controls"].items()) + ".")
    if "bounds" in by:
        s = by["bounds"]
        lines.append(f"- **Regret bounds**: {len(s['respected'])} checks respected where a run "
                     "could have violated them (the simultaneous 95% band on the bound's side; "
                     f"on this instance, not a proof), {len(s['violated'])} violated"
                     + (": " + ", ".join(f"`{v}`" for v in s["violated"]) if s["violated"] else "")
                     + f", {len(s['inconclusive'])} inconclusive at this size (the band contains "
                     "the bound; the bounds part gives the runs that would decide each)"
                     + (": " + ", ".join(f"`{v}`" for v in s["inconclusive"])
                        if s["inconclusive"] else "")
                     + f", {len(s['vacuous'])} vacuous at the largest size this budget affords "
                     "(no run could violate them there; the bounds part gives the horizon from "
                     "which each becomes informative)"
                     + (": " + ", ".join(f"`{v}`" for v in s["vacuous"]) if s["vacuous"] else "")
                     + ".")
    if "reproduce" in by:
        lines += _reproduce_summary(by["reproduce"])
    return lines


def index(parts: list[Part], parameters: dict, figures: dict[str, str] | None = None) -> str:
    """The report's Markdown: title, summary, then each part (its picture first, if any)."""
    figures = figures or {}
    lines = ["# dpbandits verification report", "",
             f"Budget `{parameters['budget']}`, seed {parameters['seed']}, dpbandits "
             f"{parameters['version']}.", "", "## Summary", "", *summary(parts), ""]
    for part in parts:
        lines += [f"## {TITLES[part.name]}", "", f"*{part.seconds:.0f} s.*", ""]
        if part.name in figures:
            lines += [f"![{FIGURE_ALT[part.name]}]({figures[part.name]})", ""]
        lines += [part.markdown, ""]
    return "\n".join(lines)


TITLES = {"algorithms": "Algorithms and their claims", "audit": "Privacy audit",
          "bounds": "Regret against the papers' bounds", "reproduce": "Reproductions"}
"""Each part's heading."""

FIGURE_ALT = {"audit": "Each variant's epsilon lower bound (95%) against its claim",
              "reproduce": "The papers' claims: verdict of each, by paper and experiment"}


def _reproduce_summary(s: dict) -> list[str]:
    """The papers' claims (six verdicts, by the lexicon's rule) and, apart, our own checks."""
    keys = ("supported", "contradicted", "depends", "inconclusive", "could_not_fail", "could_not_pass",
            "not_testable")
    total = sum(len(s.get(k, [])) for k in keys)
    lines = [f"- **The papers' experimental claims** ({total}, each quoted from the paper, its "
             f"outcome word read by the one test and margin the lexicon gives it, docs/lexicon.md; "
             f"verdicts over the decided readings): {len(s['supported'])} supported, "
             f"{len(s['contradicted'])} contradicted"
             + (" (" + "; ".join(f"`{c}`" for c in s["contradicted"]) + "; docs/findings.md gives "
                "the evidence)" if s["contradicted"] else "")
             + f", {len(s['depends'])} depending on the reading (a reading supports and another "
             f"contradicts; each page says which), {len(s['inconclusive'])} inconclusive at the "
             f"size run (each page gives the runs that would decide it), "
             f"{len(s.get('could_not_fail', []))} that could not fail (a test our stand-in or the "
             f"size made impossible to fail, not counted as support), "
             f"{len(s.get('could_not_pass', []))} that could not pass (a degenerate stand-in, not "
             f"counted as contradiction), {len(s['not_testable'])} not "
             "testable (absent data). "
             + (f"Ran below the paper's size: {', '.join(f'`{b}`' for b in s['below_paper'])}."
                if s["below_paper"] else "Every experiment ran at the paper's size.")]
    ours = s["our_checks"]
    if ours:
        counts = {v: sum(x == v for x in ours.values()) for v in dict.fromkeys(ours.values())}
        lines.append(f"- **Our own checks beside the experiments** ({len(ours)}; not claims of the "
                     "papers, counted apart): " + ", ".join(f"{n} {v}" for v, n in counts.items())
                     + ".")
    return lines
