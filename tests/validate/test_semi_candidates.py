"""Python semi-bandit candidates: ``candidates.load(..., feedback="semi")`` and the command line.

The candidate of the statistical tests is examples/validate/omm.py, the OMM a user copies.

Kinds: statistical (fixed seeds; each states its failure probability and the rate it guards),
exact (the page's output line by line; the same bases whatever the number of workers), smoke
(bad input: one line, exit status 2, before any work).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from dpbandits.candidates import Command, SemiCandidateMechanism, load
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Table
from dpbandits.reference.matroid import Uniform, matroid_setting

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "validate" / "omm.py")
PAGE = ROOT / "docs" / "algorithms" / "dpucb-mat.md"
MATROID = matroid_setting("chandak-synthetic").matroid
SMALL = ["--horizon", "120", "--runs", "30", "--seed", "0", "--no-progress"]


class NotABasis:
    """Plays e1, e2 and the loop e7 (the last vector of Table 2 is zero): never a basis."""

    def __init__(self, matroid):
        self.matroid = matroid

    def act(self, t):
        return [0, 1, 6]

    def observe(self, t, arms, rewards):
        pass


class Recording:
    """Records the problem it was built for."""

    built: list = []

    def __init__(self, problem, rng):
        Recording.built.append(problem)

    def act(self, t):
        return [0, 1, 2]

    def observe(self, t, arms, rewards):
        pass


def _validate(capsys, tmp_path, candidate: str, against: str = "omm", *extra: str):
    status = main(["validate", "--python", candidate, "--against", against, "--out",
                   str(tmp_path), *SMALL, *extra])
    return status, capsys.readouterr()


@pytest.mark.statistical
def test_the_example_conforms_on_the_command_line(capsys, tmp_path):
    """A conforming candidate is called `differs` with probability <= alpha = 0.05 (Holm over
    the 94 comparisons, up to Mann-Whitney's normal approximation); exit status 0 here."""
    status, out = _validate(capsys, tmp_path, f"{EXAMPLE}:OMM")
    assert status == 0, out.out + out.err
    assert "behaviour: CONFORMS" in out.out and "a basis of Linear(L=7" in out.out


def _page_command(name: str) -> tuple[list[str], list[str]]:
    """The page's ``dpbandits validate`` command naming ``name`` and the output lines it shows."""
    blocks = re.findall(r"```(\w*)\n(.*?)```", PAGE.read_text(), re.S)
    for (kind, body), (_, shown) in zip(blocks, blocks[1:]):
        if kind == "bash" and name in body:
            return shlex.split(body.strip())[1:], shown.splitlines()
    raise AssertionError(f"{PAGE.name} shows no command with {name}")


@pytest.mark.statistical
@pytest.mark.exact
def test_a_wrong_constant_differs_on_the_command_line_as_the_page_shows(capsys, tmp_path,
                                                                          monkeypatch):
    """alpha = 0.5 in the radius (the page's command, T = 200, 40 runs, seed 0): OMM is
    deterministic given the table, and from round 7 on every run on the fixed table plays
    another super arm than the reference's; 59 of the 94 comparisons are rejected (37 of 62
    path, 22 of 32 outcome, pulls of base arm 0 at t = 25: p = 5.3e-09), so missing every one
    has negligible probability. Exit status 1, and every line the page shows is printed."""
    argv, shown = _page_command("omm.py:WrongRadius")
    monkeypatch.chdir(ROOT)
    status = main(argv + ["--no-progress", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 1, out
    printed = [line.rstrip() for line in out.splitlines()]
    missing = [line for line in shown if line.strip() != "..." and line.rstrip() not in printed]
    assert not missing, f"not printed: {missing}\nprinted:\n{out}"


@pytest.mark.smoke
def test_a_candidate_that_plays_no_basis_is_one_line_and_exit_2(capsys, tmp_path):
    status, out = _validate(capsys, tmp_path, f"{__name__}:NotABasis")
    assert status == 2 and out.err.count("\n") == 1, out.err
    assert "run 0: policy.act(1) returned the super arm [0, 1, 6], which is not a basis" in out.err
    assert "Traceback" not in out.err and not list(tmp_path.iterdir())


@pytest.mark.smoke
def test_the_problem_carries_the_matroid_and_k_is_the_number_of_base_arms():
    Recording.built.clear()
    mechanism = load(Recording, K=7, epsilon=1.0, params={"matroid": MATROID}, feedback="semi",
                     isolated=False)
    assert isinstance(mechanism, SemiCandidateMechanism) and mechanism.k == 3
    problem = Recording.built[0]                       # built once by the check before any work
    assert (problem.K, problem.feedback, problem.epsilon) == (7, "semi", 1.0)
    assert problem.params["matroid"] is MATROID


@pytest.mark.smoke
@pytest.mark.parametrize("kwargs, message", [
    (dict(params={}), r"give params\['matroid'\]"),
    (dict(params={"matroid": Uniform(5, 2)}), "has L = 5 base arms but K = 7"),
    (dict(candidate=Command("true")), "line protocol"),
    (dict(table_function=True), "not a function of the table"),
    (dict(candidate=f"{__name__}:Command"), "no act"),
])
def test_what_load_refuses_for_a_semi_bandit(kwargs, message):
    arguments = dict(candidate=f"{EXAMPLE}:OMM", K=7, params={"matroid": MATROID},
                     feedback="semi")
    arguments.update(kwargs)
    with pytest.raises(DPBanditsError, match=message):
        load(arguments.pop("candidate"), **arguments)


@pytest.mark.statistical
def test_the_audit_against_dpucb_mat_finds_the_non_private_example(capsys):
    """OMM's first basis is the greedy basis of row 0, so the row-0 pair separates the tables in
    every run (0 of 100 runs against 100 of 100): the Clopper-Pearson bound, 3.28, is above the
    claim eps = 1 whatever the draw; this test cannot fail by chance. Exit status 1."""
    status = main(["audit", "--python", f"{EXAMPLE}:OMM", "--against", "dpucb-mat",
                   "--horizon", "2", "--samples", "100", "--no-progress"])
    out = capsys.readouterr().out
    assert status == 1 and "VIOLATION" in out and "row 0" in out, out


class RandomBasis:
    """A uniformly random order of the base arms, greedily made a basis, every round."""

    def __init__(self, matroid, rng):
        self.matroid, self.rng = matroid, rng

    def act(self, t):
        basis: list[int] = []
        for e in self.rng.permutation(self.matroid.L).tolist():
            if self.matroid.is_independent(basis + [e]):
                basis.append(e)
        return basis

    def observe(self, t, arms, rewards):
        pass


@pytest.mark.exact
def test_a_loaded_candidate_gives_the_same_bases_with_two_workers():
    environment = matroid_setting("chandak-synthetic")
    rows = environment.table(11, np.random.default_rng(0))
    table = Table(rows[1:], X0=rows[0])
    bases = [load(RandomBasis, K=7, params={"matroid": MATROID}, feedback="semi",
                  workers=workers).sample(table, 12, 4) for workers in (1, 2)]
    np.testing.assert_array_equal(bases[0], bases[1])
    assert bases[0].shape == (12, 10, 3) and len({run.tobytes() for run in bases[0]}) > 1


DPUCB_MAT_EXAMPLE = str(ROOT / "examples" / "validate" / "dpucb_mat.py")


@pytest.mark.slow
@pytest.mark.statistical
def test_the_dpucb_mat_example_conforms_on_the_command_line(capsys, tmp_path):
    """examples/validate/dpucb_mat.py (DPUCB-MAT, variant corrected, written from the page)
    against dpucb-mat at eps = 1, T = 120, 30 runs, seed 0, audit skipped: a conforming
    candidate is called `differs` with probability <= alpha = 0.05 (Holm over the 94
    comparisons, up to Mann-Whitney's normal approximation); exit status 0 here."""
    status, out = _validate(capsys, tmp_path, f"{DPUCB_MAT_EXAMPLE}:DPUCBMat", "dpucb-mat",
                            "--variant", "corrected", "--epsilon", "1", "--audit-samples", "0")
    assert status == 0, out.out + out.err
    assert "behaviour: CONFORMS" in out.out and "privacy: NOT AUDITED" in out.out, out.out


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.exact
def test_the_dpucb_mat_example_is_audited_consistent_as_the_page_shows(capsys, tmp_path,
                                                                        monkeypatch):
    """The page's command (T = 200, 40 runs, 1000 audit samples, seed 0; about 50 s): a
    conforming candidate is called `differs` with probability <= alpha = 0.05, and a faithful
    eps-DP one is flagged by the audit (a lower bound above eps = 1) with probability <= alpha.
    Exit status 0, and every line the page shows is printed."""
    argv, shown = _page_command("dpucb_mat.py:DPUCBMat")
    monkeypatch.chdir(ROOT)
    status = main(argv + ["--no-progress", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "behaviour: CONFORMS" in out and "privacy: CONSISTENT" in out, out
    printed = [line.rstrip() for line in out.splitlines()]
    missing = [line for line in shown if line.strip() != "..." and line.rstrip() not in printed]
    assert not missing, f"not printed: {missing}\nprinted:\n{out}"
