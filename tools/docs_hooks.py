"""MkDocs hooks: pages show what the code computes, not numbers copied by hand.

Markers an algorithm page may contain, each on its own line:

``<!-- dpbandits:bounds NAME -->``
    every bound about algorithm NAME in :mod:`dpbandits.bounds`, rendered from its SymPy
    expression (LaTeX), with its source, the status of its constants and its condition; then,
    when an explicit bound applies to a bandit or full-information algorithm, a simulation at a
    small size (seeded) with the check's table and a plot of the regret against the bounds.
``<!-- dpbandits:tags NAME -->``
    a table from each pseudocode tag (``# [Alg.1 l.5]``) in the algorithm's module to the
    statements that carry it.
``<!-- dpbandits:catalogue -->``
    the table of every bound in :data:`dpbandits.bounds.BOUNDS`.
``<!-- dpbandits:kernel NAME -->``
    the compiled kernel of NAME: its module, and its certificate from
    ``docs/data/kernel-certificates.json``, the output of
    ``python -m dpbandits.validate.certify docs/data/kernel-certificates.json`` (a test recomputes
    every row and fails when the file is out of date).
``<!-- dpbandits:audit NAME -->``
    the rows for NAME of the audit claims table in ``docs/data/audit-claims.json``, the output
    of ``dpbandits audit --all --out docs/data`` (the page says which command produced it).
``<!-- dpbandits:options COMMAND -->``
    every option of ``dpbandits COMMAND`` with its default and help, read from the command's
    own parser (:func:`dpbandits.cli.options_table`), so the docs state the defaults it uses.
``<!-- dpbandits:limits -->``
    every bound the tool enforces, read from :mod:`dpbandits.limits`.
``<!-- dpbandits:algorithms -->``
    the index of the algorithms: one table per feedback model, a row per registered algorithm
    (its page, source and variants), in the registry's order.

The ``Algorithms`` section of the site's navigation is generated too (:func:`on_config`): the
index, then ``algorithms/NAME.md`` for every registered NAME, in the registry's order, so a new
algorithm needs its page and its registry line, nothing in ``mkdocs.yml`` (a registered
algorithm without a page fails the strict build).

Simulations at build time are small (T = 2^14, 10 runs) so that the strict build in the test suite
stays fast; the page states the size.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

MARKER = re.compile(r"^<!-- dpbandits:(bounds|audit|catalogue|tags|options|limits|kernel|algorithms) ?([a-z0-9-]*) -->$",
                    flags=re.M)
TAG = re.compile(r"#\s*(\[(?:[A-Za-z./0-9]+ )?l\.[^\]]*\])")
AUDIT_DATA = Path(__file__).resolve().parents[1] / "docs" / "data" / "audit-claims.json"
KERNEL_DATA = Path(__file__).resolve().parents[1] / "docs" / "data" / "kernel-certificates.json"
SIZE = dict(horizon=2 ** 14, runs=10, seed=0, epsilon=1.0)
SIMULATION_SECONDS = 5.0
"""Estimated seconds (runs x T / 1e7 on the compiled backend) an algorithm page's simulation may
take when its horizon is raised to where vacuous bounds become informative."""
SETTING = {"bandit": "hu2021-setting2", "full": "hu-journal-thm12"}


FAMILIES = {"bandit": "Stochastic bandits", "full": "Full information", "semi": "Matroid bandits"}
"""The index's section of each feedback model."""
NAV_SECTION = "Algorithms"


def on_config(config):
    """The navigation's ``Algorithms`` section: its index, then every registered algorithm's page."""
    config["nav"] = [_with_algorithms(item) for item in config["nav"] or []]
    return config


def _with_algorithms(item):
    if not (isinstance(item, dict) and NAV_SECTION in item):
        return item
    return {NAV_SECTION: algorithm_nav(item[NAV_SECTION])}


def algorithm_nav(given: list) -> list:
    """The entries of mkdocs.yml's ``Algorithms`` section other than registered algorithms'
    pages (the index), then ``algorithms/NAME.md`` for every registered NAME."""
    from dpbandits.reference.registry import ALGORITHMS

    pages = [f"algorithms/{name}.md" for name in ALGORITHMS]
    return [entry for entry in given if entry not in pages] + pages


FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", flags=re.M | re.S)
"""A fenced code block: a marker inside one is shown, not rendered (the tutorial's page
template)."""


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs API)
    out, start = [], 0
    for fence in FENCE.finditer(markdown):
        out += [_render_markers(markdown[start:fence.start()]), fence.group(0)]
        start = fence.end()
    return "".join(out + [_render_markers(markdown[start:])])


def _render_markers(markdown: str) -> str:
    return MARKER.sub(lambda match: _render(match.group(1), match.group(2)), markdown)


def algorithm_index() -> str:
    """One table per feedback model: each registered algorithm's page, source and variants."""
    from dpbandits.reference.registry import ALGORITHMS, get

    rows: dict[str, list[str]] = {}
    for name in ALGORITHMS:
        cls = get(name)
        variants = ", ".join(v.name + (" (default)" if v.name == cls.default_variant else "")
                             for v in cls.variants)
        rows.setdefault(cls.feedback, []).append(f"| [{cls.title}]({name}.md) | {cls.paper} | "
                                                 f"{variants} |")
    lines = []
    for feedback, title in FAMILIES.items():
        if feedback in rows:
            lines += [f"## {title}", "", "| algorithm | source | variants |", "|---|---|---|",
                      *rows.pop(feedback), ""]
    for feedback, found in rows.items():          # a feedback model the index does not name yet
        lines += [f"## Feedback `{feedback}`", "", "| algorithm | source | variants |",
                  "|---|---|---|", *found, ""]
    return "\n".join(lines)


def _render(what: str, name: str) -> str:
    if what == "catalogue":
        return _catalogue()
    if what == "algorithms":
        return algorithm_index()
    if what == "options":
        from dpbandits.cli import options_table

        return options_table(name)
    if what == "limits":
        from dpbandits.limits import table

        return table()
    if what == "tags":
        return _tags(name)
    if what == "kernel":
        return _kernel(name)
    return _bounds(name) if what == "bounds" else _audit(name)


def _tags(name: str) -> str:
    """Every pseudocode tag in the algorithm's module, and in the classes of the reference it
    derives from (the shared private matroid estimator, say), with the statements that carry
    it, in source order."""
    import inspect
    import sys

    from dpbandits.reference import get
    from dpbandits.reference.policy import PolicyBase

    cls = get(name)
    spans = [(cls.__module__, 1, None)]            # the whole module: its functions carry tags
    for base in cls.__mro__[1:]:
        if base is PolicyBase or not base.__module__.startswith("dpbandits.reference."):
            continue
        lines, first = inspect.getsourcelines(base)
        spans.append((base.__module__, first, first + len(lines) - 1))
    rows: dict[str, list[str]] = {}
    for module, first, last in spans:
        text = Path(inspect.getsourcefile(sys.modules[module])).read_text()
        for line in text.splitlines()[first - 1:last]:
            match = TAG.search(line)
            if match and not line.lstrip().startswith("#"):
                code = line[:match.start()].strip().replace("|", "\\|")
                where = f"`{module.replace('.', '/')}.py`"
                rows.setdefault(match.group(1), []).append(f"`{code}` ({where})")
    if not rows:
        return "*No pseudocode tags in this module.*\n"
    lines = ["| pseudocode tag | statements that implement it |", "|---|---|"]
    for tag, codes in rows.items():
        lines.append(f"| `{tag}` | " + "<br>".join(codes) + " |")
    return "\n".join(lines) + "\n"


def _catalogue() -> str:
    from dpbandits.bounds import BOUNDS

    lines = ["| key | result | kind | constants | status | about |", "|---|---|---|---|---|---|"]
    for key in sorted(BOUNDS):
        b = BOUNDS[key]
        about = ", ".join(f"`{a}`" for a in b.algorithms) or "-"
        status = b.status + (f" (printed: `{b.printed}`)" if b.printed else "")
        lines.append(f"| `{key}` | {b.title} | {b.kind} | {b.constants} | {status} | {about} |")
    return "\n".join(lines) + "\n"


def _bounds(name: str) -> str:
    from dpbandits.bounds import bounds_for
    from dpbandits.reference import get

    cls = get(name)
    found = list({b.key: b for v in cls.variants for b in bounds_for(name, v.name)}.values())
    if not found:
        return "*No bound of the papers is about this algorithm in `dpbandits.bounds`.*\n"
    lines = []
    for bound in found:
        lines += [f"**`{bound.key}`**: {bound.title}. {bound.kind.capitalize()} bound on "
                  f"{bound.quantity}; constants: *{bound.constants}*; status: *{bound.status}*"
                  + (f" (printed form: `{bound.printed}`)" if bound.printed else "") + ".",
                  "", "$$", bound.latex(), "$$", ""]
        condition = _condition(bound)
        if condition:
            lines += [f"Valid when ${condition}$.", ""]
        lines += [f"Source: {bound.source}.", ""]
    checkable = [b for b in bounds_for(name) if b.is_explicit() and b.status != "flawed"
                 and b.kind in ("upper", "lower")]
    if checkable and cls.feedback in SETTING:
        lines += _simulation(name, SETTING[cls.feedback])
    return "\n".join(lines) + "\n"


def _condition(bound) -> str:
    import sympy as sp

    if bound.condition in (sp.true, True):
        return ""
    return sp.latex(bound.condition)


def _simulation(name: str, setting: str) -> list[str]:
    from dpbandits.bounds.simulated import check_algorithm, informative_horizons, plan_horizons, plot

    starts = informative_horizons(name, setting=setting, epsilon=SIZE["epsilon"])
    horizons, _ = plan_horizons({name: starts}, SIZE["horizon"], SIZE["runs"], SIMULATION_SECONDS)
    size = {**SIZE, "horizon": horizons[name]}
    report, _ = check_algorithm(name, setting=setting, **size)
    if not report.checks:
        return [f"*No explicit bound could be evaluated on `{setting}` (see above).*", ""]
    path = Path(_Temp.path())
    plot(report, path)
    image = base64.b64encode(path.read_bytes()).decode()
    lines = [f"Simulated (default variant) on `{setting}` with epsilon = {size['epsilon']:g}, T = {size['horizon']}, "
             f"{size['runs']} runs, seed {size['seed']} (reproduce with `dpbandits bounds {name} "
             f"--setting {setting} --horizon {size['horizon']} --runs {size['runs']}`). T is "
             f"{SIZE['horizon']}, raised to twice the horizon from which a bound vacuous there "
             f"becomes informative where the runs fit in about {SIMULATION_SECONDS:g} s on the "
             "compiled backend. A check is "
             "`vacuous at this size` when its bound is at least T x largest gap, the largest regret "
             "any algorithm can have, at every checked round: no run could violate it there. The "
             "last column is the smallest horizon from which the bound is informative "
             "([how it is found](../bounds.md#when-a-check-can-fail)).", "",
             "| bound | verdict | mean regret / bound at T | informative from T |",
             "|---|---|---:|---:|"]
    for check in report.checks:
        start = check.informative_from
        lines.append(f"| `{check.bound}` | {check.verdict} | {check.final_ratio:.3g} "
                     f"| {start if start is not None else 'never (up to 1e9)'} |")
    lines += ["", *report.informative_lines(), "",
              f"![{name}: simulated regret against its bounds](data:image/png;base64,{image})", ""]
    return lines


class _Temp:
    _dir = None

    @classmethod
    def path(cls) -> str:
        import tempfile

        if cls._dir is None:
            cls._dir = tempfile.TemporaryDirectory(prefix="dpbandits-docs-")
        return str(Path(cls._dir.name) / "plot.png")


def _kernel(name: str) -> str:
    """The kernel's module and its certificate rows (see the compiled backend's page)."""
    from dpbandits.compiled import KERNELS
    from dpbandits.reference.registry import reference_only

    module = KERNELS.get(name)
    if module is None:
        return (f"*`{name}` has no compiled kernel: it runs on the reference backend only "
                f"({reference_only(name)}).*\n")
    lines = [f"The compiled backend runs `{name}` through the kernel "
             f"`dpbandits.compiled.{module}`, a second implementation that draws the same random "
             "numbers in the same order as the reference; its module docstring says where its "
             "trajectories are bit-identical to the reference's and why not elsewhere (see "
             "[the compiled backend](../compiled.md)).", ""]
    rows = [r for r in json.loads(KERNEL_DATA.read_text()) if r["algorithm"] == name] \
        if KERNEL_DATA.exists() else []
    if not rows:
        lines.append("`validate` does not certify this kernel: it covers bandit and "
                     "full-information algorithms; the kernel's trajectories are checked "
                     "bit for bit against the reference in the test suite instead.")
        return "\n".join(lines) + "\n"
    lines += ["Its certificate: `validate` with the kernel as the candidate and the reference "
              "as ALGO (`python -m dpbandits.validate.certify docs/data/kernel-certificates.json`):",
              "", "| variant | epsilon | T | runs per sample | comparisons | rejected (Holm, level) "
              "| largest detectable effect (80% power) | verdict |", "|---|---:|---:|---:|---:|---|---:|---|"]
    for r in rows:
        eps = "-" if r["epsilon"] is None else f"{r['epsilon']:g}"
        lines.append(f"| {r['variant'] or 'default'} | {eps} | {r['T']} | {r['runs']} | "
                     f"{r['comparisons']} | {r['rejected']} (at {r['alpha']:.2g}) | "
                     f"{_num(r['largest_detectable_effect'])} | **{r['verdict']}** |")
    setting = rows[0].get("setting")
    where = (f"Setting `{setting}` (a basis of its matroid each round; base-arm means "
             if setting else "Means ")
    lines += ["", where + ", ".join(f"{m:g}" for m in rows[0]["means"]) + (")" if setting else "")
              + f", seed {rows[0]['seed']}. The detectable effect is a rank-biserial correlation "
              "for pull counts" + (" of the base arms" if setting else "") + " and regret."]
    return "\n".join(lines) + "\n"


def _audit(name: str) -> str:
    if not AUDIT_DATA.exists():
        return ("*The audit claims table has not been generated: run "
                "`dpbandits audit --all --out docs/data`.*\n")
    rows = [r for r in json.loads(AUDIT_DATA.read_text())
            if r["mechanism"] == name or r["mechanism"].startswith(f"{name}[")]
    if not rows:
        return f"*`{name}` does not appear in the audit claims table.*\n"
    lines = ["From `dpbandits audit --all` (the claims table, `docs/data/audit-claims.json`):", "",
             "| mechanism | claim | epsilon lower bound (95%) | certificate | exact epsilon of the pair | verdict |",
             "|---|---|---:|---:|---:|---|"]
    for r in rows:
        claim = "-" if r["claimed_epsilon"] is None else f"{r['claimed_epsilon']:g}-DP [{r['relation']}]"
        lines.append(f"| {r['mechanism']} | {claim} | {_num(r['epsilon_lower_bound'])} | "
                     f"{_num(r.get('certificate'))} | {_num(r.get('exact_epsilon'))} | "
                     f"**{r['verdict']}** |")
    return "\n".join(lines) + "\n"


def _num(value) -> str:
    return "-" if value is None else f"{value:.3f}"
