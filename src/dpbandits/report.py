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
                    bounds_runs=20, bounds_seconds=150.0, reproduce_size="full", experiments=None),
    "full": dict(audit_samples=100_000, audit_int_samples=2_000_000, bounds_horizon=2 ** 18,
                 bounds_runs=50, bounds_seconds=1200.0, reproduce_size="full", experiments=None),
}
"""What each budget runs. ``experiments=None`` means every reproduction target.
``bounds_seconds`` is the bounds part's estimated simulation time (runs x T / 1e7 s on the
compiled backend), spent on raising horizons to where vacuous bounds become informative."""

PARTS = ("algorithms", "audit", "bounds", "reproduce")

DEFAULT_MINUTES = 5
"""Wall-clock minutes of the default budget with ``--workers 2`` on the 2-core reference machine
(measured: 3 min 46 s with --workers 2, every experiment at the paper's size)."""


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
                              "samples": budget["audit_int_samples"]},
               # the designed pairs of DP-UCB refute its printed claim at 50 000 runs, not at
               # 20 000 (docs/audit-design.md): 5 x the budget's test sample
               "dp-ucb": {**AUDIT_PRESETS.get("dp-ucb", {}),
                          "samples": 5 * budget["audit_samples"]}}
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
    reasons = {m: _unrefuted_reason(m, budget["audit_samples"], seed) for m in false_missed}
    text = (f"{budget['audit_samples']} test runs per side for each variant "
            f"({budget['audit_int_samples']} for dp-ucb-int's counterexample, "
            f"{5 * budget['audit_samples']} for dp-ucb's designed pairs), 95% confidence, "
            "selection and test samples separate. `violation` means the lower bound exceeds the "
            "claim; `consistent` means this audit could not refute it (not a proof of privacy).\n\n"
            + table)
    return Part("audit", text, {"audits": len(results), "violations": violations,
                                "consistent": consistent, "controls": controls,
                                "false_but_not_detected": false_missed,
                                "why_not_detected": reasons},
                ["audit-claims.json"])


def _unrefuted_reason(label: str, samples: int, seed: int) -> str:
    """Why the audit of the actions did not refute a false claim, computed: on the designed pair
    whose action sequences lose most (:func:`dpbandits.audit.design.largest_action_level_loss`,
    5 x ``samples`` runs per side), what the actions lose and the test runs a refutation needs."""
    from .audit.design import largest_action_level_loss

    name, _, rest = label.partition("[")
    variant = rest.partition("]")[0] or None
    try:
        loss = largest_action_level_loss(name, epsilon=1.0, variant=variant, n=5 * samples,
                                         seed=seed)
    except DPBanditsError as error:
        return f"not computed ({error})"
    if loss is None:
        return ("no designed pair: its violating events are too rare for this budget "
                "(docs/errata.md)")
    return loss.summary()


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
            rows.append(f"| `{name}` | `{check.bound}` | {check.kind} "
                        f"| {horizons[name]} | {check.verdict} "
                        f"| {T if T is not None else 'never (up to 1e9)'} "
                        f"| {'-' if T is None else f'{estimated_seconds(runs, 2 * T):.3g}'} |")
        heading, _, details = report.to_markdown().partition("\n")
        sections.append(f"### {name}\n\n{heading.removeprefix('## ')}.{details}"
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
    text = _index(finished, parameters, _figures(finished, out))
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


def _index(parts: list[Part], parameters: dict, figures: dict[str, str] | None = None) -> str:
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

EXPERIMENT_LINK = "reproduce/{name}/{name}.md"
"""Where an experiment's name links in the HTML report: the page its reproduction wrote in the
report's folder (the paper's figure, sizes and claims)."""

DOCS_LINK = "../docs/algorithms/{name}.md"
"""Where an algorithm's name links in the HTML report: its page in the repository's docs folder,
relative to the report folder, which by default (``dpbandits-report``) sits in the repository's
root. A repository path rather than a site URL, since the docs are built locally."""

VERDICTS: dict[str, tuple[str, str]] = {
    "holds": ("good", "\u2713"), "respected": ("good", "\u2713"), "consistent": ("good", "\u2713"),
    "supported": ("good", "\u2713"), "conforms": ("good", "\u2713"),
    "violated": ("bad", "\u2717"), "violation": ("bad", "\u2717"),
    "contradicted": ("bad", "\u2717"), "not supported": ("bad", "\u2717"),
    "differs": ("bad", "\u2717"), "false": ("bad", "\u2717"), "unproven": ("open", "?"),
    "vacuous at this size": ("void", "\u25cb"), "vacuous": ("void", "\u25cb"),
    "inconclusive at this size": ("open", "?"), "inconclusive": ("open", "?"),
    "not testable": ("none", "\u2013"), "not applicable": ("none", "\u2013"),
    "non-private": ("none", "\u2013"), "could not test": ("none", "\u2013"),
}
"""A verdict's look in the HTML report: a class (its colour) and a symbol, so that colour is
never the only cue; the verdict's own words stay beside them."""

STYLE = """
:root{--ink:#1f2328;--muted:#59636e;--rule:#d1d9e0;--band:#f6f8fa;--accent:#0969da;
--good:#1a7f37;--good-bg:#dafbe1;--bad:#cf222e;--bad-bg:#ffebe9;--void:#6e7781;--void-bg:#eaeef2;
--open:#9a6700;--open-bg:#fff8c5;--none:#59636e;--none-bg:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;color:var(--ink);background:#fff;font:16px/1.55 system-ui,-apple-system,"Segoe UI",
Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:76rem;margin:0 auto;padding:2rem 1.5rem 4rem}
h1{font-size:2rem;margin:0 0 .25rem;letter-spacing:-.01em}
h2{font-size:1.45rem;margin:2.75rem 0 .75rem;padding-bottom:.3rem;border-bottom:1px solid var(--rule)}
h3{font-size:1.12rem;margin:2rem 0 .5rem}
h2,h3{scroll-margin-top:1rem}
p,li{max-width:62rem}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code{font:.88em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--band);
padding:.08em .32em;border-radius:4px}
nav.toc{background:var(--band);border:1px solid var(--rule);border-radius:8px;padding:.75rem 1.25rem;
margin:1.5rem 0}
nav.toc>strong{display:block;margin-bottom:.25rem}
nav.toc ul{margin:.2rem 0;padding-left:1.2rem}nav.toc li{margin:.1rem 0}
nav.toc>div>ul>li>ul{columns:3 14rem;font-size:.92rem}
#summary+ul{background:#fff;border:1px solid var(--rule);border-left:4px solid var(--accent);
border-radius:6px;padding:.75rem 1rem .75rem 2rem}
#summary+ul li{margin:.35rem 0}
.table{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--rule);padding:.35rem .6rem;vertical-align:top}
th{background:var(--band);text-align:left;font-weight:600;position:sticky;top:0}
tbody tr:nth-child(even){background:#fbfcfd}
img{max-width:100%;height:auto;display:block;margin:1rem 0;border:1px solid var(--rule);
border-radius:6px}
.verdict{display:inline-block;white-space:nowrap;font-weight:600;font-size:.85rem;
padding:.05rem .5rem;border-radius:999px;border:1px solid currentColor}
.verdict .mark{margin-right:.3rem}
.good{color:var(--good);background:var(--good-bg)}.bad{color:var(--bad);background:var(--bad-bg)}
.void{color:var(--void);background:var(--void-bg)}.open{color:var(--open);background:var(--open-bg)}
.none{color:var(--none);background:var(--none-bg)}
.legend{font-size:.9rem;color:var(--muted)}.legend .verdict{margin-right:.4rem}
footer{margin-top:3rem;color:var(--muted);font-size:.85rem}
"""
"""The report's one stylesheet, embedded in the page."""


def _figures(parts: list[Part], out: Path) -> dict[str, str]:
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


_COLOURS = {"good": "#1a7f37", "bad": "#cf222e", "void": "#6e7781", "open": "#bf8700",
            "none": "#8c959f"}


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
                  "not_supported": "not supported", "inconclusive": "inconclusive at this size",
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


def _experiment_names() -> set[str]:
    try:
        from .reproduce import EXPERIMENTS
    except Exception:                   # the page links what it can without the catalogue
        return set()
    return set(EXPERIMENTS)


def _png(figure) -> bytes:
    import io

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def _html(markdown_text: str, out: Path) -> str:
    """The report as one self-contained HTML page: one embedded stylesheet, a table of contents,
    every local PNG inlined, verdicts coloured and marked, algorithm names linked to their docs
    pages (:data:`DOCS_LINK`)."""
    import re

    import markdown

    from .reference.registry import ALGORITHMS

    root = out.resolve()

    def inline(match: re.Match) -> str:
        alt, target = match.group(1), match.group(2)
        path = (out / target).resolve()
        if target.endswith(".png") and path.is_relative_to(root) and path.is_file():
            data = base64.b64encode(path.read_bytes()).decode()
            return f"![{alt}](data:image/png;base64,{data})"
        return alt

    # Nothing in the page is markup but what markdown makes of it: text taken from cached parts
    # (or from anywhere else) cannot inject tags, and only our own images and web links survive;
    # the links to docs pages are added after this, from the registry's names only.
    escaped = html.escape(markdown_text, quote=False)
    text = re.sub(r"!\[([^\]]*)\]\(([^)]+)\)", inline, escaped)
    converter = markdown.Markdown(extensions=["tables", "toc"],
                                  extension_configs={"toc": {"toc_depth": "2-3"}})
    body = converter.convert(text)
    body = re.sub(r'(href|src)="(?!https?://|#|data:image/png;base64,)[^"]*"', r'\1="#"', body)

    experiments = _experiment_names()

    def target(name: str) -> str:
        if name in ALGORITHMS:
            return DOCS_LINK.format(name=name)
        return EXPERIMENT_LINK.format(name=name) if name in experiments else ""

    def link(match: re.Match) -> str:
        href = target(match.group(1))
        return f'<a href="{href}">{match.group(0)}</a>' if href else match.group(0)

    def heading(match: re.Match) -> str:
        href = target(match.group(3))
        if not href:
            return match.group(0)
        return f'{match.group(1)}{match.group(2)}<a href="{href}">{match.group(3)}</a></h3>'

    body = re.sub(r"<code>([a-z0-9-]+)(?:\[[^<\]]*\])?(?: [^<]*)?</code>", link, body)
    body = re.sub(r"<td>((?P<name>[a-z0-9-]+)(?:\[[^<\]]*\])?(?: [^<]*)?)</td>",
                  lambda m: (f'<td><a href="{target(m.group("name"))}">{m.group(1)}</a></td>'
                             if target(m.group("name")) else m.group(0)), body)
    body = re.sub(r'(<h3)( id="[^"]*">)([a-z0-9-]+)</h3>', heading, body)

    def verdict(match: re.Match) -> str:
        tag, words = match.group(1), match.group(2)
        look, mark = VERDICTS[html.unescape(words).strip()]
        badge = (f'<span class="verdict {look}"><span class="mark" aria-hidden="true">{mark}'
                 f"</span>{words}</span>")
        return f"<{tag}>{badge}</{tag}>"

    words = "|".join(re.escape(v) for v in sorted(VERDICTS, key=len, reverse=True))
    body = re.sub(rf"<(td|strong)>({words})</(?:td|strong)>", verdict, body)
    body = re.sub(r"<table>", '<div class="table"><table>', body).replace("</table>", "</table></div>")
    toc = converter.toc if hasattr(converter, "toc") else ""
    legend = ('<p class="legend">Verdicts: ' + " ".join(
        f'<span class="verdict {look}"><span class="mark" aria-hidden="true">{mark}</span>{name}'
        "</span>" for name, (look, mark) in VERDICTS.items()
        if name in ("holds", "violated", "vacuous at this size", "inconclusive at this size",
                    "not testable")) + "</p>")
    head, _, rest = body.partition("</h1>")
    body = (f"{head}</h1>{legend}<nav class=\"toc\"><strong>Contents</strong>{toc}</nav>{rest}"
            if rest else body)
    footer = ("<footer>Algorithm names link to their pages in the repository's docs folder "
              f"({html.escape(DOCS_LINK.format(name='NAME'))}, relative to this report's folder, "
              "which by default sits in the repository's root); experiment names link to the "
              f"page their reproduction wrote beside this report "
              f"({html.escape(EXPERIMENT_LINK.format(name='NAME'))}).</footer>")
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>dpbandits verification report</title><style>{STYLE}</style></head>"
            f"<body><main>{body}{footer}</main></body></html>")
