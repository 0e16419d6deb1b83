"""``docs/data/audit-claims.json`` (the output of ``dpbandits audit --all --out docs/data``, which
the algorithm pages render) still describes the code.

Kinds: exact. Regenerating the file takes the full audit, so the test recomputes what is cheap
and deterministic (which mechanisms are audited, each one's claim, relation and known status, the
candidate pairs at the audited size, the sample sizes) and checks the statistical fields by
structure (a bound, a verdict consistent with it). Each failure names the command that fixes it:
``dpbandits audit ALGO --out docs/data`` rewrites ALGO's rows alone (every variant, as ``--all``
makes them) and keeps the others field for field.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from dpbandits.audit.mechanism import RegistryMechanism
from dpbandits.audit.pairs import DEFAULT_ARMS, candidate_pairs, known_pairs
from dpbandits.audit.design import designed_horizon, designed_pairs
from dpbandits.audit.design import DESIGNED_ARMS
from dpbandits.audit.runner import AUDIT_PRESETS, DEFAULT_HORIZON, algorithm_of_row
from dpbandits.audit.toys import TOY_VARIANTS, ToyThreshold
from dpbandits.reference.registry import ALGORITHMS, get

DATA = Path(__file__).resolve().parents[2] / "docs" / "data" / "audit-claims.json"
ROWS = json.loads(DATA.read_text())
SAMPLES, EPSILON = 20_000, 1.0          # the defaults of ``audit --all``


def _audited() -> dict[str, tuple[RegistryMechanism, int, int, int]]:
    """Label -> (mechanism, K, T, samples) for every registered algorithm and variant."""
    out = {}
    for name in ALGORITHMS:
        preset = AUDIT_PRESETS.get(name, {})
        K = DESIGNED_ARMS.get(name) or DEFAULT_ARMS.get(name, 3)
        T = preset.get("T") or (designed_horizon(name, K, preset.get("epsilon", EPSILON))
                                if name in DESIGNED_ARMS else DEFAULT_HORIZON)
        for variant in get(name).variants:
            mechanism = RegistryMechanism(name, K, preset.get("epsilon", EPSILON), variant.name,
                                          dict(preset.get("params", {})), T=T)
            out[mechanism.label] = (mechanism, K, T, preset.get("samples", SAMPLES))
    return out


AUDITED = _audited()


def fix(label: str) -> str:
    """What to run when the row ``label`` is stale or missing."""
    name = algorithm_of_row({"mechanism": label})
    if name in ALGORITHMS:
        return (f"run `dpbandits audit {name} --out docs/data` (rewrites {name}'s rows alone, "
                f"as --all makes them)")
    return "run `dpbandits audit --all --out docs/data` (the controls are written by --all)"


@pytest.mark.exact
def test_every_algorithm_and_variant_is_in_the_table_and_nothing_else():
    controls = {ToyThreshold(v, EPSILON).label for v in TOY_VARIANTS}
    controls |= {"hybrid-counter[paper]", "hybrid-counter[chan]"}
    present, expected = {r["mechanism"] for r in ROWS}, set(AUDITED) | controls
    problems = [f"no row for {label}: {fix(label)}" for label in sorted(expected - present)]
    problems += [f"a row for {label}, which is not audited: run `dpbandits audit --all --out "
                 f"docs/data` (rewrites the whole table)" for label in sorted(present - expected)]
    assert not problems, "\n".join(problems)


@pytest.mark.exact
@pytest.mark.parametrize("row", [r for r in ROWS if r["mechanism"] in AUDITED],
                         ids=lambda r: r["mechanism"])
def test_claims_and_pairs_match_the_code(row):
    mechanism, K, T, samples = AUDITED[row["mechanism"]]
    claimed = mechanism.claimed
    expected = {"claimed_epsilon": None if claimed is None else claimed.epsilon,
                "claimed_delta": 0.0 if claimed is None else claimed.delta,
                "relation": "row" if claimed is None else str(claimed.relation),
                "claim_status": getattr(getattr(mechanism, "claim", None), "status", ""),
                "n_test": samples, "alpha": 0.05}
    stale = [f"{key} {row[key]!r}, the code gives {value!r}" for key, value in expected.items()
             if row[key] != value]
    assert not stale, f"{row['mechanism']}: " + "; ".join(stale) + f": {fix(row['mechanism'])}"
    policy = getattr(mechanism, "_policy", None)
    designed = designed_pairs(mechanism.name, K, mechanism.epsilon or 1.0, mechanism.variant, T)
    pairs = designed + known_pairs(mechanism.name, K, T) if designed else known_pairs(
        mechanism.name, K, T) + candidate_pairs(
        K, T, boundaries=mechanism.epoch_boundaries(T),
        row_zero=bool(getattr(policy, "observes_round_zero", False)),
        **({"relation": claimed.relation} if claimed is not None else {}))
    chosen = {p.description: p.to_dict() for p in pairs}
    assert row["pair"]["description"] in chosen, (
        f"{row['mechanism']}: its pair {row['pair']['description']!r} is not among the pairs the "
        f"code builds: {fix(row['mechanism'])}")
    assert row["pair"] == json.loads(json.dumps(chosen[row["pair"]["description"]])), (
        f"{row['mechanism']}: its pair's tables differ from the code's: {fix(row['mechanism'])}")


@pytest.mark.exact
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["mechanism"])
def test_statistical_fields_are_consistent(row):
    bound = float(row["epsilon_lower_bound"])
    why = f"{row['mechanism']}: {fix(row['mechanism'])}"
    assert bound >= 0 or math.isinf(bound), why
    if row["claimed_epsilon"] is None:
        assert row["verdict"] == "non-private", why
    elif bound > row["claimed_epsilon"]:
        assert row["verdict"] == "violation", why
    else:
        assert row["verdict"] != "violation", why
    counts = row["counts"]
    assert 0 <= counts["in_S_D0"] <= counts["n_D0"] == row["n_test"], why
    assert 0 <= counts["in_S_D1"] <= counts["n_D1"] == row["n_test"], why


@pytest.mark.exact
def test_a_stale_row_names_the_command_that_rewrites_it_alone():
    assert fix("dp-ucb-int[paper] v=1.5") == (
        "run `dpbandits audit dp-ucb-int --out docs/data` (rewrites dp-ucb-int's rows alone, as "
        "--all makes them)")
    assert "audit --all" in fix("toy-threshold[halved]")


@pytest.mark.exact
def test_rewriting_one_algorithm_keeps_every_other_row_field_for_field():
    """What ``dpbandits audit ALGO --out DIR`` writes: ALGO's rows replaced (here by themselves
    with another ``seconds``), the others the same objects, in ``--all``'s order."""
    from dataclasses import replace

    from dpbandits.audit import AuditResult, replace_rows

    ftnl = [replace(AuditResult.from_dict(r), seconds=123.0) for r in ROWS
            if algorithm_of_row(r) == "rnm-ftnl"]
    merged = replace_rows(ROWS, ftnl, ["ftnl"])
    assert [r["mechanism"] for r in merged] == [r["mechanism"] for r in ROWS]
    for old, new in zip(ROWS, merged):
        if algorithm_of_row(old) == "rnm-ftnl":
            assert new["seconds"] == 123.0 and new["epsilon_lower_bound"] == old["epsilon_lower_bound"]
        else:
            assert new is old
    reordered = replace_rows(ROWS[::-1], ftnl, ["rnm-ftnl"])     # the registry's order again
    assert [algorithm_of_row(r) for r in reordered] == [algorithm_of_row(r) for r in ROWS][:len(AUDITED)] + \
        [algorithm_of_row(r) for r in ROWS[::-1] if algorithm_of_row(r) not in ALGORITHMS]


@pytest.mark.smoke
def test_audit_algo_out_rewrites_its_rows_alone(tmp_path):
    """``dpbandits audit rnm-ftnl --out DIR`` (a small sample) over a copy of the table: its two
    rows now hold the new audit, every other row is byte for byte what it was."""
    import contextlib
    import io

    from dpbandits.cli import main

    (tmp_path / "audit-claims.json").write_text(DATA.read_text())
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        status = main(["audit", "rnm-ftnl", "--samples", "200", "--no-progress",
                       "--out", str(tmp_path)])
    assert status in (0, 1), err.getvalue()
    kept = sum(algorithm_of_row(r) != "rnm-ftnl" for r in ROWS)     # 32 with 20 algorithms
    assert f"{kept} other rows kept" in err.getvalue()
    rows = json.loads((tmp_path / "audit-claims.json").read_text())
    assert [r["mechanism"] for r in rows] == [r["mechanism"] for r in ROWS]
    for old, new in zip(ROWS, rows):
        if algorithm_of_row(old) == "rnm-ftnl":
            assert new["n_test"] == 200
        else:
            assert json.dumps(new) == json.dumps(old)
    assert (tmp_path / "audit-claims.md").read_text().count("\n| ") == len(ROWS)
