"""The ecosystem's protocols with no glue: SMPyBandits-style policies, MABWiser MABs and learning
policies, step-style solvers, full-information ``observe(t, row)``, constructors taking ``seed``;
global generators seeded per run, and candidates whose runs do not repeat reported.

Kinds: statistical (each faithful UCB1 of tests/validate/protocol_examples.py conforms with
``ucb1 --param log_round=t-1`` at seed 0, a false alarm the Holm procedure allows with
probability <= alpha = 0.05; each planted bug differs there), exact (the
same actions at 1 and 2 workers, isolated or not, equal to a hand-written act/observe
equivalent), smoke (messages). The real libraries are exercised where they are installed and
import (skipped otherwise).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from dpbandits.candidates import load, resolve, short_name
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Table

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE / "protocol_examples.py"
SMALL = ["--horizon", "200", "--runs", "30", "--no-progress"]
TABLE = Table((np.random.default_rng(3).random((40, 3)) < 0.5).astype(float))

PROTOCOL_CASES = [
    ("SmpyUCB", "SmpyUCBWrongArm", ["--param", "tie_break=random", "--param", "initial_order=random"]),
    ("tiny_mab", "tiny_mab_no_two", []),
    ("StepUCB", "StepUCBInverted", ["--param", "tie_break=random"]),
]


def _validate(tmp_path, capsys, name: str, params: list[str]) -> tuple[int, dict]:
    status = main(["validate", "--python", f"{EXAMPLES}:{name}", "--against", "ucb1",
                   "--param", "log_round=t-1", *params, *SMALL, "--out", str(tmp_path), "--json"])
    return status, json.loads(capsys.readouterr().out)


@pytest.mark.statistical
@pytest.mark.parametrize("faithful, planted, params", PROTOCOL_CASES,
                         ids=["smpybandits", "mabwiser", "step"])
def test_each_protocol_validates_with_no_glue(tmp_path, capsys, faithful, planted, params):
    status, data = _validate(tmp_path, capsys, faithful, params)
    assert status == 0 and data["behaviour"] == "conforms", data["first_difference"]
    status, data = _validate(tmp_path, capsys, planted, params)
    assert status == 1 and data["behaviour"] != "conforms"
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == sorted(f"validate-ucb1-{short_name(f'{EXAMPLES}:{name}')}.json"
                           for name in (faithful, planted))


@pytest.mark.statistical
def test_a_mab_that_predicts_after_an_empty_fit_conforms_with_thompson_sampling(tmp_path, capsys):
    """The driver runs a cold-start MAB as MABWiser does (predict from round 1): a Beta(1, 1)
    Thompson MAB conforms with thompson (a false 'differs' has probability <= alpha = 0.05,
    Holm; seed 0 is such a case, one path comparison at Holm p = 0.048, and seeds 1-6 conform),
    its reward-flipped twin differs."""
    for name, status_wanted in (("tiny_thompson_mab", 0), ("tiny_thompson_mab_flipped", 1)):
        status = main(["validate", "--python", f"{EXAMPLES}:{name}", "--against", "thompson",
                       *SMALL, "--seed", "1", "--out", str(tmp_path), "--json"])
        data = json.loads(capsys.readouterr().out)
        assert status == status_wanted, data["first_difference"]


@pytest.mark.exact
@pytest.mark.parametrize("name", ["SmpyUCB", "tiny_mab", "StepUCB"])
def test_global_and_seed_randomness_depends_on_the_run_seed_only(name):
    target = f"{EXAMPLES}:{name}"
    one = load(target, K=3, timeout=20).sample(TABLE, 24, 5)
    assert (load(target, K=3, workers=2, timeout=20).sample(TABLE, 24, 5) == one).all()
    state = np.random.get_state()[1].copy(), random.getstate()
    assert (load(target, K=3, isolated=False).sample(TABLE, 24, 5) == one).all()
    assert (np.random.get_state()[1] == state[0]).all() and random.getstate() == state[1]
    if name != "tiny_mab":       # (its ties go to the first arm: it draws nothing)
        assert not (load(target, K=3, timeout=20).sample(TABLE, 24, 6) == one).all()


@pytest.mark.exact
def test_the_protocols_follow_their_descriptions_round_by_round():
    """Each adapter's first rounds, worked out by hand on TABLE (rows 1..3: [1,1,0], [0,0,1],
    [1,1,0] after the rounding above)."""
    mab = load(f"{EXAMPLES}:tiny_mab", K=3, isolated=False).sample(TABLE, 2, 0)
    assert (mab[:, :3] == [0, 1, 2]).all()           # one pull of each arm, in the MAB's order
    # A MAB that predicts after an empty fit (its expectations differ with no data) predicts
    # from round 1, as MABWiser runs Thompson sampling: its first arms vary with the seed.
    cold = load(f"{EXAMPLES}:tiny_thompson_mab", K=3, isolated=False).sample(TABLE, 60, 0)
    assert len({tuple(run[:3]) for run in cold.tolist()}) > 5
    step = load(f"{EXAMPLES}:StepUCB", K=3, isolated=False).sample(TABLE, 2, 0)
    assert (step[:, :3] == [0, 1, 2]).all()          # step(None, None) first: unpulled in order
    smpy = load(f"{EXAMPLES}:SmpyUCB", K=3, isolated=False).sample(TABLE, 50, 0)
    assert all(sorted(run[:3]) == [0, 1, 2] for run in smpy.tolist())   # unpulled first
    assert len({tuple(run[:3]) for run in smpy.tolist()}) > 1           # in a random order


@pytest.mark.exact
def test_full_information_observe_of_two_arguments_gets_the_row():
    rows = load(f"{EXAMPLES}:RowLeader", K=3, feedback="full").sample(TABLE, 3, 0)
    native = load(f"{EXAMPLES}:ArmRowLeader", K=3, feedback="full").sample(TABLE, 3, 0)
    assert (rows == native).all()
    X = TABLE.X
    leader = [int(np.argmax(X[:t].sum(axis=0))) for t in range(X.shape[0])]
    assert rows[0].tolist() == leader


@pytest.mark.exact
def test_a_constructor_seed_is_an_integer_of_the_run():
    seen = []

    def factory(K, seed):
        seen.append(seed)
        return _Seeded(K, seed)

    load(factory, K=2, isolated=False).sample(Table(np.zeros((3, 2))), 4, 0)
    assert all(isinstance(s, int) and 0 <= s < 2 ** 32 for s in seen)
    # the check's build, 4 runs with seeds of their own, the same 4 again (the repeat check)
    assert len(seen) == 9 and len(set(seen)) == 5 and seen[1:5] == seen[5:]


class _Seeded:
    def __init__(self, K, seed):
        self.rng = np.random.RandomState(seed)
        self.K = K

    def act(self, t):
        return int(self.rng.randint(self.K))

    def observe(self, t, arm, reward):
        pass


UNREPEATABLE = {
    "unseeded": "import numpy as np\n_G = np.random.default_rng()\n",
    "module-level": "import numpy as np\n_G = np.random.default_rng(0)\n",
}


@pytest.mark.exact
@pytest.mark.parametrize("kind", sorted(UNREPEATABLE))
@pytest.mark.parametrize("workers", [1, 2])
def test_a_candidate_whose_runs_do_not_repeat_is_reported(tmp_path, kind, workers):
    path = tmp_path / "leaky.py"
    path.write_text(UNREPEATABLE[kind] + (
        "class Leaky:\n"
        "    def __init__(self, K):\n        self.K = K\n"
        "    def act(self, t):\n        return int(_G.integers(self.K))\n"
        "    def observe(self, t, arm, reward):\n        pass\n"))
    with pytest.raises(DPBanditsError, match=r"run 0 did not repeat .* --workers"):
        load(f"{path}:Leaky", K=3, workers=workers, timeout=20).sample(TABLE, 30, 0)


@pytest.mark.smoke
def test_a_module_inside_a_package_keeps_its_relative_imports(tmp_path):
    package = tmp_path / "solvers" / "private"
    package.mkdir(parents=True)
    (tmp_path / "solvers" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("class Base:\n    def observe(self, t, arm, x):\n        pass\n")
    (package / "first.py").write_text("from .base import Base\nclass First(Base):\n"
                                      "    def __init__(self, K):\n        pass\n"
                                      "    def act(self, t):\n        return 0\n")
    actions = load(f"{package / 'first.py'}:First", K=2, timeout=20).sample(Table(np.zeros((4, 2))), 2, 0)
    assert (actions == 0).all()


@pytest.mark.smoke
@pytest.mark.parametrize("code, message", [
    ("from scipy.special import no_such_function\n",
     r"does not work with the installed scipy \d.* older version of scipy"),
    ("import no_such_module_here\n", r"needs the module 'no_such_module_here', which is not installed"),
    # What Python raises for SMPyBandits 0.9.7's Beta posterior under SciPy >= 1.15.
    ("import scipy\nraise ImportError(\"cannot import name 'btdtri' from 'scipy.special' (x.py)\", "
     "name='scipy.special')\n",
     r"imports scipy.special.btdtri, which scipy removed in 1.15.0; the installed scipy is "
     r"\d[^:]*: install 'scipy<1.15', as pip install 'dpbandits\[ecosystem\]' does"),
])
def test_a_library_that_does_not_import_is_one_line_naming_the_dependency(tmp_path, code, message):
    (tmp_path / "library").mkdir()
    (tmp_path / "library" / "__init__.py").write_text(code)
    with pytest.raises(DPBanditsError, match=message) as caught:
        load(f"{tmp_path / 'library' / '__init__.py'}:Policy", K=2, isolated=False)
    assert "\n" not in str(caught.value)


@pytest.mark.smoke
@pytest.mark.parametrize("text, message", [
    ("mabwiser:UCB1(alpha=__import__('os'))", "must be Python literals"),
    ("m:F(*x)", "must be Python literals"),
    (f"{EXAMPLES}:TinyMAB(['a', 'b'], seed=1)", None),
])
def test_arguments_are_literals(text, message):
    if message:
        with pytest.raises(DPBanditsError, match=message):
            resolve(text)
    else:
        mab = resolve(text)()
        assert mab.arms == ["a", "b"]


@pytest.mark.smoke
def test_a_printing_candidate_leaves_the_json_valid(tmp_path, capsys):
    path = tmp_path / "loud.py"
    path.write_text("print('{\"behaviour\": \"conforms\"}')\n"
                    f"exec(open({str(EXAMPLES)!r}).read())\n")
    status = main(["validate", "--python", f"{path}:StepUCBInverted", "--against", "ucb1",
                   *SMALL, "--json", "--out", str(tmp_path)])
    assert status == 1 and json.loads(capsys.readouterr().out)["behaviour"] != "conforms"


@pytest.mark.smoke
def test_an_unknown_shape_and_a_wrong_feedback_are_one_clear_error():
    class Nothing:
        def __init__(self, K):
            pass

    with pytest.raises(DPBanditsError, match="has no act\\(\\) method .* step\\(last_reward"):
        load(Nothing, K=2)
    with pytest.raises(DPBanditsError, match="observes the pulled arm's reward only"):
        load(f"{EXAMPLES}:StepUCB", K=2, feedback="full")


@pytest.mark.smoke
def test_output_names_carry_the_candidate():
    assert short_name("sh examples/validate/ucb1.sh").startswith("sh-ucb1-")
    assert short_name("examples/validate/implementations.py:PlainLazyUCB").startswith(
        "implementations-PlainLazyUCB-")
    assert short_name("mabwiser:UCB1(alpha=1)").startswith("mabwiser-UCB1-alpha=1-")


@pytest.mark.exact
def test_no_two_candidates_share_an_output_name():
    # Before, validate wrote every SMPyBandits.Policies:X to validate-ALGO-SMPyBandits.json and
    # UCB1(alpha=1.5) over UCB1(alpha=1) (Path.with_suffix read ".Policies-UCB" and ".5" as
    # suffixes); the readable part alone also drops folders.
    specs = ["SMPyBandits.Policies:UCB", "SMPyBandits.Policies:UCBalpha",
             "mabwiser:UCB1(alpha=1)", "mabwiser:UCB1(alpha=1.5)", "mabwiser:UCB1(alpha=1_5)",
             "a/impl.py:X", "b/impl.py:X", "sh ucb1.sh 1", "sh ucb1.sh-1", "x" * 70 + ":A",
             "x" * 70 + ":B"]
    names = [short_name(spec) for spec in specs]
    assert len(set(names)) == len(specs), names
    assert all(re.fullmatch(r"[A-Za-z0-9_.=+-]+-[0-9a-f]{8}", name) for name in names), names
    assert short_name("sh examples/validate/ucb1.sh 1") == "sh-ucb1-1-0c22e0f5"  # the tutorial's


@pytest.mark.smoke
def test_validate_writes_one_file_per_candidate_and_names_it(tmp_path, capsys, monkeypatch):
    # Two classes of one module (as SMPyBandits.Policies:UCB and :UCBalpha): two files, and the
    # "wrote" line names the files on disk.
    package = tmp_path / "Fakebandits"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "Policies.py").write_text(EXAMPLES.read_text() + "\nUCB = UCBalpha = SmpyUCB\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "out"
    written = []
    for name in ("UCB", "UCBalpha"):
        status = main(["validate", "--python", f"Fakebandits.Policies:{name}", "--against", "ucb1",
                       "--horizon", "20", "--runs", "20", "--audit-samples", "0", "--no-progress",
                       "--param", "tie_break=random", "--param", "initial_order=random",
                       "--out", str(out)])
        wrote = re.search(r"^wrote (\S+\.json) and (\S+\.png)$", capsys.readouterr().err, re.M)
        assert status in (0, 1) and wrote, status
        written += wrote.groups()
    assert sorted(Path(path) for path in written) == sorted(out.iterdir())
    assert len(set(written)) == 4 and "Policies-UCBalpha-" in written[2]


# ---- the real libraries, where installed ------------------------------------------------------

def _importable(module: str) -> bool:
    try:
        __import__(module)
    except Exception:
        return False
    return True


@pytest.mark.statistical
@pytest.mark.skipif(not _importable("mabwiser.mab"), reason="mabwiser is not installed")
def test_mabwiser_learning_policies_by_name(tmp_path, capsys):
    """MABWiser's own uses, each where its algorithm is the reference's: its UCB1 (alpha = 1,
    ln of the plays so far, ties to the first arm; one pull of each arm first) conforms with ucb1
    at log_round=t-1, and its ThompsonSampling (Beta(1, 1) priors, predicting after an empty fit)
    with thompson (false alarm <= 0.05 each, Holm)."""
    status = main(["validate", "--python", "mabwiser:UCB1(alpha=1)", "--against", "ucb1",
                   "--param", "log_round=t-1", *SMALL, "--json", "--out", str(tmp_path)])
    assert status == 0 and json.loads(capsys.readouterr().out)["behaviour"] == "conforms"
    status = main(["validate", "--python", "mabwiser:ThompsonSampling", "--against", "thompson",
                   *SMALL, "--json", "--out", str(tmp_path)])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["behaviour"] == "conforms", data["first_difference"]
    one = load("mabwiser:ThompsonSampling", K=3, timeout=30).sample(TABLE, 10, 0)
    assert (load("mabwiser:ThompsonSampling", K=3, workers=2, timeout=30).sample(TABLE, 10, 0)
            == one).all()


@pytest.mark.smoke
@pytest.mark.skipif(not _importable("SMPyBandits"), reason="SMPyBandits is not installed")
def test_smpybandits_by_name_or_a_one_line_reason(tmp_path, capsys):
    status = main(["validate", "--python", "SMPyBandits.Policies:UCB", "--against", "ucb1",
                   "--param", "log_round=t-1", "--param", "tie_break=random", "--param",
                   "initial_order=random", *SMALL, "--json", "--out", str(tmp_path)])
    captured = capsys.readouterr()
    if status == 2:     # SMPyBandits 0.9.7 does not import with SciPy >= 1.15 (btdtri)
        assert captured.err.count("\n") == 1 and "install 'scipy<1.15'" in captured.err
    else:
        assert status == 0 and json.loads(captured.out)["behaviour"] == "conforms"


@pytest.mark.smoke
@pytest.mark.parametrize("name, against", [("SmpyUCB", "ucb1"), ("tiny_mab", "ucb1"),
                                           ("tiny_thompson_mab", "thompson"),
                                           ("StepUCB", "ucb1"), ("RowLeader", "ftl")])
def test_the_timing_benchmark_runs_every_protocol_the_cli_takes(name, against):
    # Before, benchmarks/validate_time.py --candidate drove the candidate's own runs with act /
    # observe only: 'StepUCB' object has no attribute 'act', after the whole validation.
    import importlib.util

    path = HERE.parents[1] / "benchmarks" / "validate_time.py"
    loaded = importlib.util.spec_from_file_location("validate_time", path)
    benchmark = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(benchmark)
    target = f"{EXAMPLES}:{name}"
    benchmark.check_candidate(target, against, None)
    wall, cpu = benchmark._own_runs_timed(target, against, None, {(20, 3): 40 * 20})
    assert wall > 0 and cpu > 0
