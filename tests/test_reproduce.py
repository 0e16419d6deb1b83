"""`dpbandits reproduce`: every experiment at the tiny size, claims judged by stated tests, resume.

Kinds: smoke (every target runs and writes its CSV, PNG and page; errors; resume), statistical
(each claim check on simulated per-run numbers: two curves drawn from the same distribution are
`inconclusive`, curves separated either way are `supported` / `contradicted`, and a one-sided
check is never contradicted by the algorithm being better; fixed seed), exact (the multiplicity
correction, the robust verdict over readings, the page's statement of sizes).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.cli import main
from dpbandits.reproduce import (EXPERIMENTS, VERDICTS, WORDS, Cells, Experiment, Line,
                                 early_lead_then_caught, flat_in_epsilon, growth_at_most, judge,
                                 power_law_exponent, range_at_least, range_at_most, ratio_at_least,
                                 ratio_at_most, ratio_within, reproduce, shortfall_falls,
                                 trend_down)


@pytest.mark.smoke
@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_experiment_runs_at_the_tiny_size(name, tmp_path):
    result = reproduce(name, tmp_path, size="tiny")
    assert [p.suffix for p in result.paths] == [".csv", ".png", ".md", ".json"]
    assert all(p.exists() and p.stat().st_size > 0 for p in result.paths)
    claims = EXPERIMENTS[name].claims
    assert len(result.claims) == sum(not c.ours for c in claims)
    assert len(result.checks) == sum(c.ours for c in claims)
    for claim in claims:               # a claim of the paper quotes it, says where, names its word
        assert claim.ours or (claim.quote and claim.where and claim.readings and claim.word in WORDS)
    for claim in result.claims + result.checks:   # each verdict is on the page with its evidence
        assert claim.verdict in VERDICTS
        assert claim.verdict != "not testable" or claim.evidence
        assert claim.text in result.page
    assert "size `tiny`" in result.page and "below the paper's size" in result.page
    assert "**The paper**" in result.page and result.below_paper


RUNS = 200
RNG_SEED = 20240611


def _cells(curves: dict[tuple[str, float], np.ndarray]) -> Cells:
    """Cells from per-run curves (runs, checkpoints) at checkpoints 1..100."""
    labels = list(dict.fromkeys(k[0] for k in curves))
    epsilons = tuple(sorted({k[1] for k in curves}))
    experiment = Experiment("toy", "paper", "Fig. 0", "hu2021-setting2",
                            tuple(Line(l, "ucb1") for l in labels), epsilons, "time", {"tiny": (100, RUNS)})
    t = list(range(1, 101))
    data = {k: dict(t=t, per_run=v.tolist(), mean=v.mean(0).tolist(), low=v.mean(0).tolist(),
                    high=v.mean(0).tolist(), runs=v.shape[0], optimal=1.0) for k, v in curves.items()}
    return Cells(data, experiment)


def _curve(rng, final: float, sd: float = 1.0, shape=lambda t: t / 100) -> np.ndarray:
    """Per-run curves ``final * shape(t)`` plus noise growing with t."""
    t = np.arange(1, 101)
    return final * shape(t)[None, :] + sd * rng.standard_normal((RUNS, 1)) * np.sqrt(t / 100)[None, :]


def _verdict(check, cells) -> str:
    return judge([("claim", "", check(cells))])[0].verdict


CASES = {
    # name: (check, same-distribution cells, cells in the claim's direction, cells against it)
    "better": (ratio_at_most("a", ("b",), 1.0),
               lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
               lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 12)},
               lambda r: {("a", 1.0): _curve(r, 12), ("b", 1.0): _curve(r, 10)}),
    "worse": (ratio_at_least("a", None, 1.0),
              lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
              lambda r: {("a", 1.0): _curve(r, 12), ("b", 1.0): _curve(r, 10)},
              lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 12)}),
    "similar": (ratio_within("a", "b", 1.25),
                # the same distribution sits inside the margin: equivalence is supported
                lambda r: {("a", 1.0): _curve(r, 10, sd=40), ("b", 1.0): _curve(r, 10, sd=40)},
                lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 11)},
                lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 30)}),
    "stays flat": (flat_in_epsilon("a", 1.25),
                   lambda r: {("a", e): _curve(r, 10, sd=40) for e in (0.5, 1.0, 2.0)},
                   lambda r: {("a", e): _curve(r, 10) for e in (0.5, 1.0, 2.0)},
                   lambda r: {("a", e): _curve(r, 10 / e) for e in (0.5, 1.0, 2.0)}),
    "decreases": (trend_down("a"),
                  lambda r: {("a", e): _curve(r, 10) for e in (0.5, 1.0, 2.0)},
                  lambda r: {("a", e): _curve(r, 10 / e) for e in (0.5, 1.0, 2.0)},
                  lambda r: {("a", e): _curve(r, 10 * e) for e in (0.5, 1.0, 2.0)}),
    # linear in 1/eps (b = 1) supports; (1/eps)^2.5 contradicts; a linear curve drowned in noise
    # says nothing
    "linear in": (power_law_exponent("a", 1.25),
                  lambda r: {("a", e): _curve(r, 2 + 5 / e, sd=30) for e in (0.5, 1.0, 2.0, 4.0)},
                  lambda r: {("a", e): _curve(r, 2 + 5 / e, sd=0.1) for e in (0.5, 1.0, 2.0, 4.0)},
                  lambda r: {("a", e): _curve(r, 2 + 5 / e ** 2.5, sd=0.1) for e in (0.5, 1.0, 2.0, 4.0)}),
    "does not increase": (growth_at_most("a", "b", 1.25),
                          lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
                          # a constant gap: a = b + 5 from early on
                          lambda r: {("a", 1.0): _curve(r, 10, shape=lambda t: t / 100 + 0.5),
                                     ("b", 1.0): _curve(r, 10)},
                          # a gap linear in t
                          lambda r: {("a", 1.0): _curve(r, 20), ("b", 1.0): _curve(r, 10)}),
    # a starts better (ahead by 5 from t = 2 to 10) and b catches up by T
    "eventually catches": (early_lead_then_caught("a", "b", 1.25),
                           lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
                           lambda r: {("a", 1.0): _curve(r, 10, sd=0.2, shape=lambda t: t / 100),
                                      ("b", 1.0): _curve(r, 10, sd=0.2, shape=lambda t: 0.5 + t / 200)},
                           lambda r: {("a", 1.0): _curve(r, 10, sd=0.2, shape=lambda t: 0.5 + t / 200),
                                      ("b", 1.0): _curve(r, 10, sd=0.2, shape=lambda t: t / 100)}),
    "comparable": (ratio_at_most("a", ("b",), 1.25),
                   lambda r: {("a", 1.0): _curve(r, 12.5), ("b", 1.0): _curve(r, 10)},
                   lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
                   lambda r: {("a", 1.0): _curve(r, 20), ("b", 1.0): _curve(r, 10)}),
    # the plotted return's shortfall: regret concave in t (it falls), linear (flat), convex (rises)
    "approaches the optimum": (shortfall_falls("a", 1.0),
                               lambda r: {("a", 1.0): _curve(r, 10)},
                               lambda r: {("a", 1.0): _curve(r, 10, shape=lambda t: np.sqrt(t / 100))},
                               lambda r: {("a", 1.0): _curve(r, 10, shape=lambda t: (t / 100) ** 2)}),
    # 'converges' is tested at the papers' sizes in tests/test_claim_rules.py
}


@pytest.mark.statistical
@pytest.mark.parametrize("name", list(CASES))
def test_each_check_is_inconclusive_on_equal_curves_and_decides_separated_ones(name):
    """Fixed seed. Equal curves: a false `supported`/`contradicted` has probability at most 0.05
    (the family-wise level); separated curves are 10+ standard errors apart, so a miss has
    probability far below 1e-6. Guards verdicts read from bare means and absence of evidence read
    as support."""
    check, same, toward, against = CASES[name]
    rng = np.random.default_rng(RNG_SEED)
    # (equivalence checks get equal curves with a spread too wide for the margin to be shown)
    assert _verdict(check, _cells(same(rng))) == "inconclusive at this size"
    assert _verdict(check, _cells(toward(rng))) == "supported"
    assert _verdict(check, _cells(against(rng))) == "contradicted"


@pytest.mark.statistical
@pytest.mark.parametrize("check", [ratio_at_most("a", ("b",), 1.0), ratio_at_most("a", ("b",), 1.25)],
                         ids=["better", "comparable"])
def test_a_one_sided_claim_is_not_contradicted_by_being_better(check):
    """Fixed seed; a is five times better than b (40 standard errors): a one-sided reading is
    supported, never contradicted (a false decision has probability far below 1e-6). Guards a
    two-sided test read into a one-sided sentence ('competitive', 'starts performing well')."""
    rng = np.random.default_rng(RNG_SEED)
    cells = _cells({**{("a", e): _curve(rng, 2) for e in (0.5, 1.0)},
                    **{("b", e): _curve(rng, 10) for e in (0.5, 1.0)}})
    assert _verdict(check, cells) == "supported"


@pytest.mark.statistical
def test_an_equivalence_claim_is_contradicted_by_being_much_better():
    """The contrast: 'similar' is two-sided, so five times better contradicts it (fixed seed, 40
    standard errors)."""
    rng = np.random.default_rng(RNG_SEED)
    cells = _cells({("a", 1.0): _curve(rng, 2), ("b", 1.0): _curve(rng, 10)})
    assert _verdict(ratio_within("a", "b", 1.25), cells) == "contradicted"


@pytest.mark.exact
def test_a_range_claim_is_decided_exactly_and_needs_the_papers_runs_to_support():
    """Ranges are decided exactly on the observed runs (seeded draws of 200 runs): a spread inside
    the limit supports only with the paper's number of runs; a spread above it contradicts at
    any number of runs (a range only grows with runs), one outlying run included ('reaches' is
    the mirror image)."""
    rng = np.random.default_rng(RNG_SEED)
    narrow, wide = _curve(rng, 10, sd=1), _curve(rng, 10, sd=20)
    outlier = narrow.copy()
    outlier[0] += 1000
    check = range_at_most(("a",), 20.0, runs=100)
    assert _verdict(check, _cells({("a", 1.0): narrow})) == "supported"
    assert _verdict(check, _cells({("a", 1.0): wide})) == "contradicted"
    assert _verdict(check, _cells({("a", 1.0): outlier})) == "contradicted"
    assert _verdict(range_at_most(("a",), 20.0, runs=300), _cells({("a", 1.0): narrow})) == \
        "inconclusive at this size"
    assert _verdict(range_at_least("a", 20.0, runs=100), _cells({("a", 1.0): wide})) == "supported"
    assert _verdict(range_at_least("a", 20.0, runs=100), _cells({("a", 1.0): narrow})) == "contradicted"
    assert _verdict(range_at_least("a", 20.0, runs=300), _cells({("a", 1.0): narrow})) == \
        "inconclusive at this size"


def _outcome(p_support: float, p_contradict: float):
    from dpbandits.reproduce.claims import Component, Outcome

    return Outcome((Component("s", 1.0, 1.0, 10, p_support),),
                   (Component("c", 1.0, 1.0, 10, p_contradict),), "t", "e")


@pytest.mark.exact
def test_the_combination_rule_counts_decided_readings_only():
    """All decided readings contradict: contradicted, naming the undecided ones; support and
    contradiction: depends on reading; none decided: inconclusive; untestable readings never
    count."""
    against, toward, undecided = _outcome(1.0, 0.0), _outcome(0.0, 1.0), _outcome(0.5, 0.5)
    verdicts = judge([("all against", [("x", against), ("y", against)]),
                      ("mixed", [("x", against), ("y", toward)]),
                      ("against or undecided", [("x", against), ("y", undecided)]),
                      ("all toward", [("x", toward), ("y", toward)]),
                      ("all undecided", [("x", undecided), ("y", undecided)])])
    assert [v.verdict for v in verdicts] == ["contradicted", "depends on reading", "contradicted",
                                             "supported", "inconclusive at this size"]
    assert "contradicted under 'x'" in verdicts[1].evidence and "supported under 'y'" in verdicts[1].evidence
    assert "undecided, so not counted: 'y'" in verdicts[2].evidence
    assert [r.verdict for r in verdicts[1].readings] == ["contradicted", "supported"]


@pytest.mark.exact
def test_combine_ignores_untestable_and_undecided_readings():
    from dpbandits.reproduce.claims import combine

    assert combine(["not testable", "contradicted"]) == "contradicted"
    assert combine(["not testable"]) == "not testable"
    assert combine(["supported", "inconclusive at this size"]) == "supported"
    assert combine(["could not fail", "inconclusive at this size"]) == "inconclusive at this size"
    assert combine(["could not fail", "not testable"]) == "could not fail"
    assert combine(["supported", "contradicted", "not testable"]) == "depends on reading"


@pytest.mark.statistical
def test_the_flip_point_is_where_the_verdict_changes():
    """Fixed seed; a is 0.8 of b (about 20 standard errors): 'better' (margin 1) is supported,
    and judged again just beyond its printed flip margins it is not, just inside it still is."""
    from dpbandits.reproduce.claims import Tested

    rng = np.random.default_rng(RNG_SEED)
    cells = _cells({("a", 1.0): _curve(rng, 8), ("b", 1.0): _curve(rng, 10)})
    at = lambda m: ratio_at_most("a", ("b",), m)(cells)
    v = judge([("claim", [Tested("r", at(1.0), 1.0, at)])])[0]
    assert v.verdict == "supported"
    flip = v.flip
    assert flip.below is not None and flip.below < 1.0 and flip.contradicted < flip.below
    again = lambda m: judge([("claim", [Tested("r", at(m), m, at)])])[0].verdict
    assert again(flip.below * 1.01) == "supported"
    assert again(flip.below) != "supported"
    assert again(flip.contradicted) == "contradicted"
    power = v.readings[0].power                 # how it could have failed, at which margin
    assert power.startswith("about ") and f"is contradicted, {flip.contradicted:.4g}" in power
    assert "supported" not in flip.text() and "inconclusive at this size at a margin of" in flip.text()


@pytest.mark.exact
def test_a_comparison_with_a_stand_in_that_plays_uniformly_could_not_fail():
    """Private-UCB worst because ours plays almost uniformly (its regret at least 90% of uniform
    play's): `could not fail`, never `supported` (Tossou & Dimitrakakis's 2-arm setting, uniform
    play loses T x 0.15)."""
    from dataclasses import replace

    rng = np.random.default_rng(RNG_SEED)
    cells = _cells({("a", 1.0): _curve(rng, 14.5, sd=0.5), ("b", 1.0): _curve(rng, 5)})
    cells.experiment = replace(cells.experiment, setting="tossou2016-2arms")
    v = judge([("claim", "", ratio_at_least("a", None, 1.0)(cells))])[0]
    assert v.verdict == "could not fail"
    assert "plays almost uniformly" in v.readings[0].power
    honest = _cells({("a", 1.0): _curve(rng, 10, sd=0.5), ("b", 1.0): _curve(rng, 5)})
    honest.experiment = replace(honest.experiment, setting="tossou2016-2arms")
    assert judge([("claim", "", ratio_at_least("a", None, 1.0)(honest))])[0].verdict == "supported"


@pytest.mark.exact
def test_every_claim_names_its_word_and_its_readings_share_the_words_margin():
    from dpbandits.reproduce.lexicon import WORDS

    for e in EXPERIMENTS.values():
        for claim in e.claims:
            if claim.ours:
                continue
            word = WORDS[claim.word]
            margins = {r.margin for r in claim.readings}
            assert len(margins) == 1, claim.text
            if word.margin is not None:
                assert margins == {word.margin}, claim.text
            assert all((r.build is None) == (r.margin is None) for r in claim.readings)


@pytest.mark.smoke
def test_claims_about_data_we_do_not_have_are_not_testable_on_the_stand_in(tmp_path):
    """Chandak et al.'s MovieLens claims run on the labelled stand-in: none is judged."""
    for name in ("chandak2023-table3", "chandak2023-fig4b"):
        result = reproduce(name, tmp_path / name, size="tiny")
        assert {c.verdict for c in result.claims} == {"not testable"}
        assert all("stand-in" in c.evidence and "absent data" in c.evidence for c in result.claims)


@pytest.mark.exact
def test_our_own_checks_are_not_counted_as_the_papers_claims():
    """The bound checks are ours (Sec. 6 of Hu et al. makes no such claim), and so is the regret
    ratio beside Chandak et al.'s plotted returns; App. I.3 states no claim: setting 3's pages
    carry only our checks."""
    for e in EXPERIMENTS.values():
        for claim in e.claims:
            assert claim.ours == ("bound" in claim.text or "regret ratio" in claim.text), claim.text
    assert all(c.ours for c in EXPERIMENTS["hu2021-fig12b-h"].claims)
    assert EXPERIMENTS["hu2021-fig12"].claims == ()


@pytest.mark.statistical
def test_inconclusive_says_how_many_runs_would_decide():
    """Fixed seed; a 0.2-sd difference at 200 runs is under-powered after correction (about 5e-2
    chance of deciding), and the estimate of the runs needed is finite."""
    rng = np.random.default_rng(RNG_SEED)
    cells = _cells({("a", 1.0): _curve(rng, 10, sd=5), ("b", 1.0): _curve(rng, 10.3, sd=5)})
    verdict = judge([("claim", "", ratio_at_most("a", ("b",), 1.0)(cells))])[0]
    assert verdict.verdict == "inconclusive at this size"
    assert "runs per curve would decide it" in verdict.evidence


@pytest.mark.exact
def test_holm_correction_over_the_page():
    """Holm over 2m p-values: a p-value that decides alone is not enough among many claims."""
    from dpbandits.reproduce.claims import Component, Outcome

    def outcome(p):
        return Outcome((Component("x", 1.0, 1.0, 10, p),), (Component("y", -1.0, 1.0, 10, 1.0),), "t", "e")

    assert judge([("c", "", outcome(0.02))])[0].verdict == "supported"
    many = judge([("c", "", outcome(0.02))] + [("d", "", outcome(0.5))] * 4)
    assert many[0].verdict == "inconclusive at this size"


@pytest.mark.smoke
def test_a_rerun_reuses_finished_cells(tmp_path):
    reproduce("hu2021-fig1", tmp_path, size="tiny")
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "cells").iterdir()}
    messages = []
    reproduce("hu2021-fig1", tmp_path, size="tiny", progress=messages.append)
    assert messages == []
    assert stamps == {p: p.stat().st_mtime_ns for p in (tmp_path / "cells").iterdir()}
    reproduce("hu2021-fig1", tmp_path, size="tiny", seed=1, progress=messages.append)
    assert len(messages) == 3


@pytest.mark.smoke
def test_workers_do_not_change_a_number(tmp_path):
    one = reproduce("hu2021-fig9", tmp_path / "one", size="tiny")
    two = reproduce("hu2021-fig9", tmp_path / "two", size="tiny", workers=2)
    assert (tmp_path / "one" / "hu2021-fig9.csv").read_text() == (tmp_path / "two" / "hu2021-fig9.csv").read_text()
    assert [c.evidence for c in one.claims] == [c.evidence for c in two.claims]


@pytest.mark.smoke
def test_cli_list_and_errors(capsys, tmp_path):
    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in EXPERIMENTS)
    assert main(["reproduce", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown experiment" in capsys.readouterr().err
    assert main(["reproduce", "--out", str(tmp_path)]) == 2


@pytest.mark.exact
def test_a_page_with_a_contradiction_says_what_to_check_before_quoting_it():
    from dataclasses import replace

    from dpbandits.reproduce import Claim, Reading
    from dpbandits.reproduce.claims import ReadingVerdict, Verdict
    from dpbandits.reproduce.page import page

    rng = np.random.default_rng(RNG_SEED)
    cells = _cells({("a", 1.0): _curve(rng, 10)})
    claim = Claim("a claim", (Reading("r", ratio_at_most("a", ("a",), 1.0)),), word="better",
                  quote="q", where="Sec. 1")
    e = replace(cells.experiment, claims=(claim,), paper_size="T = 100",
                sizes={"tiny": (100, RUNS), "full": (100, RUNS)})
    against = Verdict("a claim", "contradicted", "e", readings=(ReadingVerdict("r", "contradicted", "e"),))
    held = replace(against, verdict="supported")
    assert "Before quoting a contradiction" in page(e, cells, [against], [], "tiny", e.setting, 0)
    assert "Before quoting a contradiction" not in page(e, cells, [held], [], "tiny", e.setting, 0)
    assert 'The paper (Sec. 1): "q"' in page(e, cells, [held], [], "tiny", e.setting, 0)


@pytest.mark.smoke
def test_each_page_writes_its_claims_as_json(tmp_path):
    import json

    result = reproduce("tossou2016-fig2a", tmp_path, size="tiny")
    data = json.loads((tmp_path / "tossou2016-fig2a.json").read_text())
    assert [c["text"] for c in data["claims"]] == [c.text for c in result.claims]
    for c in data["claims"]:
        assert c["quote"] and c["word"] and c["verdict"] and c["readings"]
        for r in c["readings"]:
            assert {"test", "margin", "verdict", "flip"} <= set(r)
    assert "decided readings" in data["rule"]


@pytest.mark.smoke
def test_a_verdict_near_its_flip_point_runs_again_on_seeds_0_to_4(tmp_path, monkeypatch):
    """With every decided verdict counted as near, the decided claims carry their verdicts on
    seeds 0-4; a claim whose decided verdicts differ between seeds is inconclusive, one decided
    the same way wherever it is decided keeps that verdict with the count of seeds."""
    from dpbandits.reproduce import claims

    monkeypatch.setattr(claims.Flip, "near", lambda self: True)
    result = reproduce("hu2021-fig1", tmp_path, size="tiny")
    for c in result.claims:
        if c.seeds:
            assert [s for s, _ in c.seeds] == [0, 1, 2, 3, 4]
            decided = {v for _, v in c.seeds if v in ("supported", "contradicted", "depends on reading")}
            if len(decided) > 1:
                assert c.verdict == "inconclusive at this size" and "change with the seed" in c.evidence
            elif decided:
                assert c.verdict in decided and f"of {len(c.seeds)} seeds" in c.evidence


@pytest.mark.smoke
def test_a_run_that_skips_the_reruns_counts_a_verdict_near_its_flip_point_as_inconclusive(tmp_path, monkeypatch):
    """The report's default budget does not run seeds 1-4: a decided verdict near its flip point
    is then inconclusive, and says so with the command that runs them."""
    from dpbandits.reproduce import claims, reproduce_many

    monkeypatch.setattr(claims.Flip, "near", lambda self: True)
    result = reproduce_many(["hu2021-fig1"], tmp_path, size="tiny", reseed=False)[0]
    for c in result.claims:
        assert c.verdict not in ("supported", "contradicted", "depends on reading")
        if "not run again" in c.evidence:
            assert c.verdict == "inconclusive at this size" and "--full" in c.evidence
