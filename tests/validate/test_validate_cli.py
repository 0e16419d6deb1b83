"""`dpbandits validate` on the command line: an external program, a Python object, outputs, errors.

Kinds: smoke (runs, files, exit statuses, one-line errors), statistical (the awk UCB1 conforms
with failure probability <= alpha = 0.05; its planted radius error is caught with p < 1e-20).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpbandits.candidates import short_name
from dpbandits.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "validate"
SMALL = ["--horizon", "200", "--runs", "30", "--no-progress"]


@pytest.mark.slow
@pytest.mark.smoke
@pytest.mark.statistical
def test_an_awk_program_conforms_and_writes_json_and_png(tmp_path, capsys):
    program = f"sh {EXAMPLES / 'ucb1.sh'}"
    status = main(["validate", "--command", program, "--protocol", "interactive", "--against",
                   "ucb1", *SMALL, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "behaviour: CONFORMS" in out and "regret: VACUOUS AT THIS SIZE" in out
    stem = f"validate-ucb1-{short_name(program)}"
    data = json.loads((tmp_path / f"{stem}.json").read_text())
    assert data["behaviour"] == "conforms" and data["ok"] is True
    assert len(data["comparisons"]) == 2 * (5 * 5 + 7 + 5)     # 2 samples x (pulls, actions, regret)
    assert {"p_value", "p_holm", "effect", "detectable"} <= set(data["comparisons"][0])
    assert (tmp_path / f"{stem}.png").stat().st_size > 10_000
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{stem}.json", f"{stem}.png"]


@pytest.mark.slow
@pytest.mark.smoke
@pytest.mark.statistical
def test_a_planted_constant_exits_1_and_names_the_first_difference(tmp_path, capsys):
    program = f"sh {EXAMPLES / 'ucb1.sh'} 1"
    status = main(["validate", "--command", program, "--protocol", "interactive", "--against",
                   "ucb1", *SMALL, "--out", str(tmp_path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 1 and data["behaviour"] == "differs"
    assert data["first_difference"]["t"] == 10 and data["first_difference"]["p_value"] < 1e-10


@pytest.mark.slow
@pytest.mark.smoke
def test_a_python_policy_by_module_and_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(EXAMPLES)
    status = main(["validate", "--python", "implementations:PlainLazyUCB", "--against",
                   "anytime-lazy-ucb", "--epsilon", "1", "--audit-samples", "0", *SMALL,
                   "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "privacy: NOT AUDITED" in out and "hu2021.thm3" in out


@pytest.mark.smoke
@pytest.mark.parametrize("argv, message", [
    (["--python", "nope_module:X", "--against", "ucb1"], "cannot import"),
    (["--python", "implementations", "--against", "ucb1"], "MODULE:OBJECT"),
    (["--python", "implementations:Nope", "--against", "ucb1"], "has no 'Nope'"),
    (["--python", "implementations:PlainUCB1", "--against", "ucb1", "--means", "0.5", "1.4"],
     "must lie in [0, 1]"),
    (["--python", "implementations:follow_the_leader", "--against", "ucb1"], "requires table"),
    (["--python", "implementations:PlainUCB1", "--against", "nope"], "unknown algorithm"),
    (["--python", "implementations:PlainLazyUCB", "--against", "anytime-lazy-ucb"],
     "epsilon is required"),
    (["--python", "implementations:PlainUCB1", "--against", "ucb1", "--runs", "5"], "runs"),
    (["--python", "implementations:PlainUCB1", "--against", "omm"], "matroid"),
    (["--against", "ucb1"], "--command --python"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(EXAMPLES)
    status = main(["validate", *argv, "--horizon", "50", "--out", str(tmp_path), "--no-progress"])
    assert status == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1, error


@pytest.mark.smoke
def test_a_crashing_program_is_bad_input(tmp_path, capsys):
    status = main(["validate", "--command", "sh -c 'exit 3'", "--against", "ucb1", *SMALL,
                   "--out", str(tmp_path)])
    assert status == 2
    assert capsys.readouterr().err.startswith("dpbandits: error:")


@pytest.mark.smoke
@pytest.mark.statistical
@pytest.mark.parametrize("function, status", [("follow_the_leader", 0), ("peeking_leader", 1)])
def test_a_function_of_the_table(function, status, tmp_path, capsys, monkeypatch):
    """FTL written as a function of the table conforms (failure probability <= 0.05); the
    look-ahead bug changes the deterministic actions on the fixed table (p < 1e-10)."""
    monkeypatch.chdir(EXAMPLES)
    code = main(["validate", "--python", f"implementations:{function}", "--callable", "--against",
                 "ftl", *SMALL, "--out", str(tmp_path)])
    assert code == status, capsys.readouterr().out
