"""``dpbandits prove`` and the accountant's door (docs/cli.md#proving-a-claim-at-your-size,
docs/accountant.md#any-k).

Kinds: exact (the accountant's bounds are deterministic: fixed seeds, exact linear forms) and
smoke (exit statuses and the printed lines).
"""

from __future__ import annotations

import pytest

from dpbandits.accountant import traced_upper
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError


def _prove(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["prove", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.exact
def test_a_proof_at_or_below_the_claim_exits_0_with_its_scope_and_time(capsys):
    status, out, _ = _prove(capsys, "anytime-lazy-ucb", "--arms", "2", "--horizon", "6")
    assert status == 0
    assert "claim 1-DP [row]: eps <= 1\n" in out
    assert "  verdict: proof at this size\n" in out
    assert ("  scope: K = 2, T = 6, every table with entries in [0, 1] (64 action sequences x 64 "
            "reward sequences, every noise draw); every T' <= T (the policy takes no T)\n") in out
    assert " s CPU\n" in out and out.endswith("the claim is proven at K = 2, T = 6\n")


@pytest.mark.exact
def test_a_bound_above_the_claim_exits_1(capsys):
    """DP-UCB with the printed hybrid-counter budget: a proof of 2 against the claimed 1."""
    status, out, _ = _prove(capsys, "dp-ucb", "--variant", "paper", "--arms", "2",
                            "--horizon", "6")
    assert status == 1 and "eps <= 2\n" in out
    assert out.endswith("the bound exceeds the claim (2 > 1)\n")


@pytest.mark.exact
def test_no_proof_at_this_size_exits_3_with_what_stopped_it(capsys):
    status, out, _ = _prove(capsys, "adap-klucb", "--arms", "2", "--horizon", "64")
    assert status == 3
    assert "  what stopped the proof: the per-arm schedule was not used: " in out
    assert out.splitlines()[-1].startswith("no proof at K = 2, T = 64: estimate")


@pytest.mark.exact
def test_no_bound_at_this_size_exits_3_on_one_line(capsys):
    status, out, _ = _prove(capsys, "adap-klucb", "--arms", "2",
                            "--horizon", "100000")
    assert status == 3 and len(out.splitlines()) == 1
    assert out.startswith("no proof at K = 2, T = 100000: no bound at this size (a trace of"), out


@pytest.mark.smoke
@pytest.mark.parametrize("argv, named", [
    (["ucb1", "--arms", "2", "--horizon", "6"], "ucb1 makes no privacy claim"),
    (["dp-ucb", "--arms", "2", "--horizon", "6", "--variant", "x"], "--variant must be one of"),
    (["anytime-lazy-ucb", "--arms", "1", "--horizon", "6"], "--arms"),
    (["anytime-lazy-ucb", "--arms", "2", "--horizon", "0"], "--horizon"),
    (["anytime-lazy-ucb", "--arms", "2", "--horizon", "6", "--epsilon", "0"], "--epsilon"),
    (["anytime-lazy-ucb", "--arms", "2", "--horizon", "6", "--param", "tie_break=x"],
     "--param tie_break"),
    (["anytime-lazy-ucb", "--horizon", "6"], "--arms"),
], ids=["no-claim", "variant", "arms", "horizon", "epsilon", "param", "arms-missing"])
def test_bad_input_is_one_line_and_status_2(capsys, argv, named):
    status, out, err = _prove(capsys, *argv)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and named in err and "Traceback" not in err


@pytest.mark.slow
def test_anytime_lazy_ucb_is_proven_at_k_5_t_2000(capsys):
    """The user's size of the issue: a proof at K = 5, T = 2000 over every table in [0, 1] and
    every noise draw, with its start fixed and every shorter horizon covered."""
    status, out, _ = _prove(capsys, "anytime-lazy-ucb", "--epsilon", "1", "--arms", "5",
                            "--horizon", "2000")
    assert status == 0 and "eps <= 1\n" in out
    assert ("scope: K = 5, T = 2000, every action sequence (its start 0 1 2 3 4 is fixed: act "
            "reads only t and its configuration in rounds 1..5), every T' <= T (the policy "
            "takes no T), every table with entries in [0, 1], every noise draw") in out


@pytest.mark.exact
@pytest.mark.parametrize("given, message", [
    (dict(T=0), "T must be an integer >= 1, got 0"),
    (dict(T=2.5), "T must be an integer >= 1, got 2.5"),
    (dict(K=0), "K must be an integer >= 2, got 0"),
    (dict(epsilon=0.0), "epsilon must lie in [1e-06, 10000]"),
    (dict(epsilon=float("nan")), "epsilon must lie in [1e-06, 10000]"),
], ids=["T=0", "T=2.5", "K=0", "epsilon=0", "epsilon=nan"])
def test_traced_upper_checks_k_t_and_epsilon_at_the_door(given, message):
    """One-line errors naming the argument, not an IndexError or a TypeError from inside."""
    arguments = {"K": 2, "T": 4, **given}
    with pytest.raises(DPBanditsError) as raised:
        traced_upper("anytime-lazy-ucb", **arguments)
    assert message in str(raised.value) and "\n" not in str(raised.value)
