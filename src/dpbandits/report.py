"""``dpbandits report``: the whole verification at a default budget, in one folder.

Parts, in order (each written to ``DIR/parts/<part>.json`` as soon as it is done, with the
parameters that produced it; a re-run with the same parameters reuses finished parts, so an
interrupted report resumes where it stopped):

1. ``algorithms``   every registered algorithm, its paper and the claim of each variant;
2. ``audit``        the audit claims table (``dpbandits.audit.audit_all``): each variant's claim,
                    the epsilon lower bound at 95% confidence and the verdict;
3. ``bounds``       every algorithm with an explicit regret bound, simulated and checked against
                    it (``dpbandits.bounds.check_regret``);
4. ``reproduce``    the papers' experiments at the papers' sizes (``reproduce_size="full"``),
                    each claim a stated test with its verdict.

``DIR/index.md`` and ``DIR/index.html`` (plots inline) open with a summary: which privacy claims
hold up to the audit's power and which are violated, which bounds are respected, which of the
papers' experimental claims our runs support. The default budget finishes in about
:data:`DEFAULT_MINUTES` minutes on 2 cores (measured; the README states the same number);
``--budget tiny`` is the test suite's.
"""

from __future__ import annotations

import base64
import html
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .errors import DPBanditsError
from .files import write_atomically

__all__ = ["report", "BUDGETS", "Part"]

BUDGETS: dict[str, dict[str, Any]] = {
    "tiny": dict(audit_samples=2_000, audit_int_samples=20_000, bounds_horizon=2 ** 10,
                 bounds_runs=4, bounds_seconds=0.5, reproduce_size="tiny",
                 experiments=("tossou2016-fig2a",)),
    "default": dict(audit_samples=20_000, audit_int_samples=500_000, bounds_horizon=2 ** 15,
                    bounds_runs=20, bounds_seconds=90.0, reproduce_size="full", experiments=None),
    "full": dict(audit_samples=100_000, audit_int_samples=2_000_000, bounds_horizon=2 ** 18,
                 bounds_runs=50, bounds_seconds=1200.0, reproduce_size="full", experiments=None),
}
"""What each budget runs. ``experiments=None`` means every reproduction target.
``bounds_seconds`` is the bounds part's estimated simulation time (runs x T / 1e7 s on the
compiled backend), spent on raising horizons to where vacuous bounds become informative."""

PARTS = ("algorithms", "audit", "bounds", "reproduce")

DEFAULT_MINUTES = 3.5
"""Wall-clock minutes of the default budget on the 2-core reference machine (measured)."""


@dataclass
class Part:
    """One finished part: its Markdown, summary counts and the files it wrote."""

    name: str
    markdown: str
    summary: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    seconds: float = 0.0
    parameters: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(name=self.name, markdown=self.markdown, summary=self.summary, files=self.files,
                    seconds=self.seconds, parameters=self.parameters)


# -- the parts ------------------------------------------------------------------------------------

def _algorithms(out: Path, budget: dict, seed: int, client, say, workers: int = 1,
               backend: str = "auto") -> Part:
    from .reference import algorithms

    lines = ["| algorithm | paper | feedback | variant: claim at epsilon = 1 |", "|---|---|---|---|"]
    infos = algorithms(1.0)
    for info in infos:
        claims = "; ".join(f"{v}: {c}" for v, c in info.claims.items())
        lines.append(f"| `{info.name}` | {info.paper} | {info.feedback} | {claims} |")
    return Part("algorithms", "\n".join(lines), {"algorithms": len(infos),
                                                 "variants": sum(len(i.variants) for i in infos)})


def _audit_part(out: Path, budget: dict, seed: int, client, say, workers: int = 1,
               backend: str = "auto") -> Part:
    from .audit import audit_all, claims_table
    from .audit.runner import AUDIT_PRESETS

    presets = {"dp-ucb-int": {**AUDIT_PRESETS.get("dp-ucb-int", {}),
                              "samples": budget["audit_int_samples"]}}
    results = audit_all(1.0, samples=budget["audit_samples"], seed=seed, presets=presets,
                        client=client, workers=workers, resume=out / "audit-results",
                        progress=say, backend=backend)
    table = claims_table(results)
    data = [r.to_dict() for r in results]
    write_atomically(out / "audit-claims.json", json.dumps(data, indent=1))
    from .reference.registry import ALGORITHMS

    def registered(r) -> bool:
        return r.mechanism.partition("[")[0] in ALGORITHMS

    violations = [r.mechanism for r in results if r.verdict == "violation" and registered(r)]
    consistent = [r.mechanism for r in results if r.verdict == "consistent" and registered(r)]
    controls = {r.mechanism: r.verdict for r in results if not registered(r)}
    false_missed = [r.mechanism for r in results
                    if registered(r) and r.claim_status == "false" and r.verdict != "violation"]
    text = (f"{budget['audit_samples']} test runs per side for each variant "
            f"({budget['audit_int_samples']} for dp-ucb-int's counterexample), 95% confidence, "
            "selection and test samples separate. `violation` means the lower bound exceeds the "
            "claim; `consistent` means this audit could not refute it (not a proof of privacy).\n\n"
            + table)
    return Part("audit", text, {"audits": len(results), "violations": violations,
                                "consistent": consistent, "controls": controls,
                                "false_but_not_detected": false_missed},
                ["audit-claims.json"])


def _bounds_part(out: Path, budget: dict, seed: int, client, say, workers: int = 1,
               backend: str = "auto") -> Part:
    from .bounds import BOUNDS
    from .bounds.check import estimated_seconds
    from .bounds.simulated import check_algorithm, informative_horizons, plan_horizons, plot
    from .reference import get

    names = sorted({tag.partition(":")[0] for b in BOUNDS.values() for tag in b.algorithms
                    if b.is_explicit() and b.kind in ("upper", "lower") and b.status != "flawed"})
    settings, skipped = {}, []
    for name in names:
        feedback = get(name).feedback
        if feedback == "semi":
            skipped.append(name)
        else:
            settings[name] = "hu2021-setting2" if feedback == "bandit" else "hu-journal-thm12"
    base, runs = budget["bounds_horizon"], budget["bounds_runs"]
    informative = {name: informative_horizons(name, setting=setting)
                   for name, setting in settings.items()}
    # The plan assumes the compiled backend's speed; on the reference backend only the base runs.
    seconds = budget["bounds_seconds"] if backend != "reference" else 0.0
    horizons, planned = plan_horizons(informative, base, runs, seconds)
    sections, files, held, violated, vacuous, rows = [], [], [], [], [], []
    for i, (name, setting) in enumerate(settings.items()):
        say(f"bounds [{i + 1}/{len(settings)}] {name} at T = {horizons[name]}")
        report, _ = check_algorithm(name, setting=setting, horizon=horizons[name], runs=runs,
                                    seed=seed, client=client, workers=workers, backend=backend)
        image = out / f"bounds-{name}.png"
        if report.checks:
            plot(report, image)
            files.append(image.name)
        for check in report.checks:
            label = f"{name}: {check.bound}"
            if check.verdict == "holds":
                held.append(label)
            elif check.verdict == "violated":
                violated.append(label)
            elif check.verdict == "vacuous at this size":
                vacuous.append(label)
            T = check.informative_from
            rows.append(f"| [`{name}`](algorithms/{name}.md) | `{check.bound}` | {check.kind} "
                        f"| {horizons[name]} | {check.verdict} "
                        f"| {T if T is not None else 'never (up to 1e9)'} "
                        f"| {'-' if T is None else f'{estimated_seconds(runs, 2 * T):.3g}'} |")
        sections.append(f"### {name}\n\n" + report.to_markdown()
                        + (f"\n\n![{name}]({image.name})" if report.checks else ""))
    table = ["| algorithm | bound | kind | simulated T | verdict | informative from T "
             f"| estimated s for {runs} runs at twice that T |",
             "|---|---|---|---:|---|---:|---:|", *rows]
    intro = (f"{runs} runs, epsilon = 1, on `hu2021-setting2` (bandits) or `hu-journal-thm12` "
             f"(full information), seed {seed}. Each algorithm is simulated at T = {base}, raised "
             "to twice the horizon from which a bound that is vacuous there becomes informative "
             "(an upper bound below T x largest gap, the largest expected regret possible; a "
             "lower bound above 0), cheapest first, while the estimated cost (runs x T / 1e7 s "
             f"on the compiled backend) stays within this budget's {seconds:g} s (planned: "
             f"{planned:.3g} s). A check is `vacuous at this size` when no run could have "
             "violated its bound at any checked round: it says nothing about the bound, and "
             "the table gives the horizon that would test it. Matroid bounds are not simulated "
             "here.")
    return Part("bounds", intro + "\n\n" + "\n".join(table) + "\n\n" + "\n\n".join(sections),
                {"held": held, "violated": violated, "vacuous": vacuous, "not_simulated": skipped},
                files)


def _reproduce_part(out: Path, budget: dict, seed: int, client, say, workers: int = 1,
               backend: str = "auto") -> Part:
    from .reproduce import EXPERIMENTS, reproduce_many

    names = budget["experiments"] or tuple(EXPERIMENTS)
    say(f"reproduce: {len(names)} experiments at size `{budget['reproduce_size']}`")
    results = reproduce_many(names, out / "reproduce", size=budget["reproduce_size"], seed=seed,
                             client=client, workers=workers, backend=backend, progress=say)
    buckets: dict[str, list[str]] = {key: [] for key in REPRODUCE_VERDICTS.values()}
    lines, files, below = [], [], []
    for result in results:
        if result.below_paper:
            below.append(result.experiment)
        lines += [f"### {result.experiment}", ""]
        page = result.page.split("\n", 2)[2]          # the page without its title
        lines += [page.split("\n![")[0].rstrip(), ""]
        for claim in result.claims:
            buckets[REPRODUCE_VERDICTS[claim.verdict]].append(f"{result.experiment}: {claim.text}")
        for path in result.paths:
            if str(path).endswith(".png"):
                relative = Path(path).resolve().relative_to(out.resolve())
                files.append(str(relative))
                lines += [f"![{result.experiment}]({relative})", ""]
    size = budget["reproduce_size"]
    intro = (f"Each experiment at size `{size}`"
             + (" (the paper's horizon, repetitions and epsilon grid; where the paper states no "
                "repetitions, the page gives ours)" if size == "full" else "") + ". "
             + (f"Below the paper's size: {', '.join(f'`{b}`' for b in below)}; "
                "`dpbandits reproduce NAME --full` runs the paper's size." if below
                else "Every experiment ran at the paper's size."))
    return Part("reproduce", intro + "\n\n" + "\n".join(lines), {**buckets, "below_paper": below}, files)


REPRODUCE_VERDICTS = {"supported": "supported", "contradicted": "contradicted",
                      "inconclusive at this size": "inconclusive", "not testable": "not_testable"}
"""A claim's verdict -> its key in the reproduce part's summary."""


BUILDERS: dict[str, Callable[..., Part]] = {
    "algorithms": _algorithms, "audit": _audit_part, "bounds": _bounds_part,
    "reproduce": _reproduce_part,
}


# -- assembling -----------------------------------------------------------------------------------

def report(out: str | Path = "dpbandits-report", *, budget: str = "default", seed: int = 0,
           parts: tuple[str, ...] = PARTS, client=None, workers: int = 1,
           progress: Callable[[str], None] | None = None, backend: str = "auto") -> Path:
    """Run (or resume) the report in folder ``out``; returns the path of ``index.md``.

    ``workers`` local processes or a Dask ``client`` only change where simulations run: every
    number is the same (seeded blocks). ``backend`` is the engine's; the report's parameters
    record it."""
    from .reference.engine import check_backend

    check_backend(backend)
    if budget not in BUDGETS:
        raise DPBanditsError(f"unknown budget {budget!r}; choose one of {', '.join(BUDGETS)}")
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise DPBanditsError(f"unknown report part(s) {unknown}; parts are {', '.join(PARTS)}")
    say = progress or (lambda message: None)
    out = Path(out)
    (out / "parts").mkdir(parents=True, exist_ok=True)
    from . import __version__

    parameters = dict(budget=budget, seed=seed, version=__version__, backend=backend,
                      **BUDGETS[budget])
    parameters = json.loads(json.dumps(parameters))
    finished: list[Part] = []
    for i, name in enumerate(parts):
        cached, problem = _load(out / "parts" / f"{name}.json", name, parameters)
        if problem:
            print(f"dpbandits: warning: the cached part {name!r} is damaged ({problem}); "
                  "computing it again", file=sys.stderr)
        if cached is not None:
            say(f"[{i + 1}/{len(parts)}] {name}: reused from an earlier run")
            finished.append(cached)
            continue
        say(f"[{i + 1}/{len(parts)}] {name} ...")
        start = time.perf_counter()
        part = BUILDERS[name](out, BUDGETS[budget], seed, client, say, workers, backend)
        part.seconds = round(time.perf_counter() - start, 1)
        part.parameters = parameters
        write_atomically(out / "parts" / f"{name}.json", json.dumps(part.to_dict(), indent=1))
        say(f"[{i + 1}/{len(parts)}] {name}: done in {part.seconds:.0f} s")
        finished.append(part)
    text = _index(finished, parameters)
    write_atomically(out / "index.md", text)
    write_atomically(out / "index.html", _html(text, out))
    return out / "index.md"


SUMMARY_KEYS: dict[str, dict[str, type]] = {
    "algorithms": {"algorithms": int, "variants": int},
    "audit": {"audits": int, "violations": list, "consistent": list, "controls": dict,
              "false_but_not_detected": list},
    "bounds": {"held": list, "violated": list, "vacuous": list, "not_simulated": list},
    "reproduce": {"supported": list, "contradicted": list, "inconclusive": list, "not_testable": list,
                  "below_paper": list},
}
"""The summary each part must carry: key and type (a cached part is checked against it)."""


def _load(path: Path, name: str, parameters: dict) -> tuple[Part | None, str]:
    """A cached part (None when absent, from other parameters or damaged) and what is wrong
    with it ("" when nothing is)."""
    if not path.exists():
        return None, ""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"not readable JSON: {type(error).__name__}"
    if not isinstance(data, dict):
        return None, "not a JSON object"
    if data.get("parameters") != parameters:
        return None, ""
    problem = _part_problem(data, name)
    if problem:
        return None, problem
    return Part(**data), ""


def _part_problem(data: dict, name: str) -> str:
    """What makes ``data`` not a well-formed part ``name`` ("" when it is one)."""
    fields = {"name": str, "markdown": str, "summary": dict, "files": list, "seconds": (int, float),
              "parameters": dict}
    if set(data) != set(fields):
        return f"fields {sorted(data)} instead of {sorted(fields)}"
    for key, kind in fields.items():
        if not isinstance(data[key], kind) or isinstance(data[key], bool):
            return f"{key!r} has the wrong type"
    if data["name"] != name:
        return f"it names the part {data['name'][:40]!r}"
    if not all(isinstance(f, str) for f in data["files"]):
        return "a file name is not text"
    for key, kind in SUMMARY_KEYS[name].items():
        value = data["summary"].get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"summary {key!r} is missing or has the wrong type"
        if kind is list and not all(isinstance(v, str) for v in value):
            return f"summary {key!r} holds something other than text"
        if kind is dict and not all(isinstance(k, str) and isinstance(v, str)
                                    for k, v in value.items()):
            return f"summary {key!r} holds something other than text"
    return ""


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
                        "(docs/errata.md) but their violating events are too rare for this "
                        "budget: " + ", ".join(f"`{m}`" for m in missed) + "."
                        if missed else "every claim the errata page (docs/errata.md) shows "
                        "false was caught."))
        flagged = sum(v == "violation" for v in s["controls"].values())
        lines.append(f"- **Audit controls** (toy mechanisms of known loss): {flagged} of "
                     f"{len(s['controls'])} flagged: "
                     + ", ".join(f"`{m}` {v}" for m, v in s["controls"].items()) + ".")
    if "bounds" in by:
        s = by["bounds"]
        lines.append(f"- **Regret bounds**: {len(s['held'])} checks respected where a run could "
                     f"have violated them, {len(s['violated'])} violated"
                     + (": " + ", ".join(f"`{v}`" for v in s["violated"]) if s["violated"] else "")
                     + f", {len(s['vacuous'])} vacuous at the largest size this budget affords "
                     "(no run could violate them there; the bounds part gives the horizon from "
                     "which each becomes informative)"
                     + (": " + ", ".join(f"`{v}`" for v in s["vacuous"]) if s["vacuous"] else "")
                     + ".")
    if "reproduce" in by:
        s = by["reproduce"]
        total = sum(len(s[k]) for k in ("supported", "contradicted", "inconclusive", "not_testable"))
        lines.append(f"- **The papers' experimental claims** ({total}, each a stated test over our "
                     f"runs): {len(s['supported'])} supported, {len(s['contradicted'])} "
                     f"contradicted, {len(s['inconclusive'])} inconclusive at the size run (each "
                     f"page gives the runs that would decide it), {len(s['not_testable'])} not "
                     "testable by simulation (each page says why). "
                     + (f"Ran below the paper's size: {', '.join(f'`{b}`' for b in s['below_paper'])}."
                        if s["below_paper"] else "Every experiment ran at the paper's size."))
    return lines


def _index(parts: list[Part], parameters: dict) -> str:
    titles = {"algorithms": "Algorithms and their claims", "audit": "Privacy audit",
              "bounds": "Regret against the papers' bounds", "reproduce": "Reproductions"}
    lines = ["# dpbandits verification report", "",
             f"Budget `{parameters['budget']}`, seed {parameters['seed']}, dpbandits "
             f"{parameters['version']}.", "", "## Summary", "", *summary(parts), ""]
    for part in parts:
        lines += [f"## {titles[part.name]}", "", f"*{part.seconds:.0f} s.*", "", part.markdown, ""]
    return "\n".join(lines)


def _html(markdown_text: str, out: Path) -> str:
    """HTML with every local PNG inlined, so the page is one self-contained file."""
    import re

    import markdown

    root = out.resolve()

    def inline(match: re.Match) -> str:
        alt, target = match.group(1), match.group(2)
        path = (out / target).resolve()
        if target.endswith(".png") and path.is_relative_to(root) and path.is_file():
            data = base64.b64encode(path.read_bytes()).decode()
            return f"![{alt}](data:image/png;base64,{data})"
        return alt

    # Nothing in the page is markup but what markdown makes of it: text taken from cached parts
    # (or from anywhere else) cannot inject tags, and only our own images and web links survive.
    escaped = html.escape(markdown_text, quote=False)
    text = re.sub(r"!\[([^\]]*)\]\(([^)]+)\)", inline, escaped)
    body = markdown.markdown(text, extensions=["tables"])
    body = re.sub(r'(href|src)="(?!https?://|#|data:image/png;base64,)[^"]*"', r'\1="#"', body)
    style = ("body{font-family:sans-serif;max-width:70em;margin:auto;padding:1em}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
             "img{max-width:100%}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>dpbandits report</title>"
            f"<style>{style}</style></head><body>{body}</body></html>")
