"""The audit: confidence bounds, positive and negative controls, calibration, results, CLI.

Kinds: exact (confidence bounds against statsmodels, exact certificates, pair checks, JSON),
statistical (controls and calibration; fixed seeds; each docstring states what could make the
test fail and how likely that is).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from dpbandits.audit import (AuditResult, CounterMechanism, Pair, ToyThreshold, audit,
                             audit_algorithm, clopper_pearson_lower, clopper_pearson_upper,
                             epsilon_estimate, epsilon_lower_bound, event_audit, exact_audit,
                             known_pairs, max_attainable_bound, stream_pairs)
from dpbandits.audit.mechanism import Mechanism, RegistryMechanism
from dpbandits.audit.pairs import candidate_pairs
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError
from dpbandits.audit.against import could_not_test
from dpbandits.reference import ALGORITHMS, Table, get, make
from dpbandits.reference.privacy import Guarantee

ALPHA = 1e-3   # negative controls: a correct mechanism is flagged with probability <= ALPHA


# --- confidence bounds --------------------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("k, n", [(0, 50), (1, 50), (17, 50), (49, 50), (50, 50), (300, 10_000)])
def test_clopper_pearson_matches_statsmodels(k, n):
    a = 0.025
    low, high = proportion_confint(k, n, alpha=2 * a, method="beta")
    assert clopper_pearson_lower(k, n, a) == pytest.approx(low, abs=1e-12)
    assert clopper_pearson_upper(k, n, a) == pytest.approx(high, abs=1e-12)


@pytest.mark.exact
def test_epsilon_bound_formula_and_corrections():
    k0, n0, k1, n1 = 900, 2000, 300, 2000
    a = 0.05 / 2
    expected = math.log(stats.beta.ppf(a, k0, n0 - k0 + 1) / stats.beta.ppf(1 - a, k1 + 1, n1 - k1))
    assert epsilon_lower_bound(k0, n0, k1, n1, 0.05) == pytest.approx(expected)
    assert epsilon_lower_bound(k0, n0, k1, n1, 0.05, m=10) < expected       # Bonferroni
    with_delta = epsilon_lower_bound(k0, n0, k1, n1, 0.05, delta=0.1)
    assert with_delta == pytest.approx(math.log((stats.beta.ppf(a, k0, n0 - k0 + 1) - 0.1)
                                                / stats.beta.ppf(1 - a, k1 + 1, n1 - k1)))
    assert epsilon_lower_bound(10, 100, 9, 100) == 0.0
    assert epsilon_estimate(900, 2000, 300, 2000) == pytest.approx(math.log(3))
    assert epsilon_estimate(5, 10, 0, 10) == math.inf
    # recipes section 3: the bound can never exceed about ln(N / ln(2 / alpha))
    assert max_attainable_bound(10_000) == pytest.approx(math.log(10_000 / math.log(2 / 0.05)), abs=0.1)
    with pytest.raises(DPBanditsError, match="alpha"):
        epsilon_lower_bound(1, 2, 1, 2, alpha=1.5)


# --- pairs --------------------------------------------------------------------------------------

@pytest.mark.exact
def test_pairs_are_neighbours():
    for pair in candidate_pairs(3, 10, boundaries=[3, 7]) + known_pairs("rnm-ftnl", 5, 4):
        assert np.sum(np.any(pair.D0.X != pair.D1.X, axis=1)) == 1
        assert np.any(pair.D0.X[pair.step - 1] != pair.D1.X[pair.step - 1])
    X = np.full((4, 2), 0.5)
    Y = X.copy()
    Y[:2] = 1.0
    with pytest.raises(DPBanditsError, match="one row"):
        Pair(Table(X), Table(Y), 1, "two rows")


# --- positive controls: broken claims must be flagged ------------------------------------------

@pytest.mark.statistical
@pytest.mark.parametrize("name, variant, params, exact", [
    ("rnm-ftnl", "paper", {}, 1.759),
    ("rnm-ftnl-bq", "paper", {"Q": "exponential", "B": 0}, 2.0),
    ("rnm-ftnl-bq", "paper", {"Q": "exponential", "B": 1}, 2.0),
])
def test_report_noisy_max_paper_variants_are_flagged(name, variant, params, exact):
    """FTNL with Lap(1/eps) and RNM with Exp(1/eps) at eps = 1. Fixed seed; the signal is large
    (true loss >= 1.76 against a claim of 1, detected with 20000 runs per side at alpha = 1e-3)."""
    result = audit_algorithm(name, epsilon=1.0, variant=variant, params=params, T=8,
                             samples=20_000, alpha=ALPHA, seed=1)
    assert result.verdict == "violation"
    assert 1.0 < result.epsilon_lower_bound <= result.exact_epsilon + 1e-9
    assert result.certificate == pytest.approx(result.exact_epsilon, abs=1e-9)
    assert result.exact_epsilon >= exact - 1e-3


@pytest.mark.statistical
@pytest.mark.parametrize("variant", ["halved", "reused", "no-noise"])
def test_broken_toys_are_flagged(variant):
    """Noise scale halved (true loss 1.49), noise reused and no noise (infinite loss); fixed seed,
    alpha = 1e-3, 20000 runs per side."""
    result = audit(ToyThreshold(variant, 1.0), samples=20_000, alpha=ALPHA, seed=2, T=6)
    assert result.verdict == "violation"


@pytest.mark.statistical
def test_hybrid_counter_with_the_printed_budget_is_flagged_white_box():
    """Tossou and Dimitrakakis's hybrid counter with eps_L = eps_B = eps is 2 eps-DP; its releases
    are audited directly (white box). Fixed seed, alpha = 0.01, 50000 runs per side."""
    result = audit(CounterMechanism("hybrid", 1.0, "paper"), stream_pairs(8), samples=50_000,
                   alpha=0.01, seed=3)
    assert result.verdict == "violation"


@pytest.mark.slow
@pytest.mark.statistical
def test_dp_ucb_int_literal_reading_is_flagged():
    """docs/errata.md#td-int-loop: the printed loop (fresh noise every step at a release point) breaks the
    pure branch of Theorem 3.4, 2.535 at eps = 0.5, v = 1.5, T = 20 (true loss of the worked
    event 4.46, probability about 4e-4). Fixed seed, 5e5 runs per side, alpha = 0.05."""
    result = audit_algorithm("dp-ucb-int", epsilon=0.5, variant="paper", params={"v": 1.5}, T=20,
                             samples=500_000, alpha=0.05, seed=0)
    assert result.claimed_epsilon == pytest.approx(2.535, abs=1e-3)
    assert result.verdict == "violation"


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["dpucb-mat", "dpts-mat"])
def test_matroid_round_zero_observation_is_flagged(name):
    """docs/errata.md#chh-round0: the printed initialisation reads all L base arms with noise scaled for K.
    On the default rank-1 matroid over 3 arms, tables differing in row 0 expose it. Fixed seed,
    20000 runs per side, alpha = 1e-3."""
    result = audit_algorithm(name, epsilon=1.0, variant="paper", samples=20_000, alpha=ALPHA, seed=6)
    assert result.verdict == "violation"
    assert result.pair["step"] == 0


# --- negative controls: true claims must not be flagged ---------------------------------------

def _holding_cases():
    cases = []
    for name in ALGORITHMS:
        try:
            cls = get(name)
        except ImportError:
            continue
        for v in cls.variants:
            policy = make(name, 3, epsilon=1.0, rng=0, variant=v.name, T=16)
            claim = getattr(policy, "pure_claim", lambda T: policy.claim)(16)
            if claim.status == "holds":
                cases.append(pytest.param(name, v.name, id=f"{name}[{v.name}]"))
    return cases


@pytest.mark.statistical
@pytest.mark.parametrize("name, variant", _holding_cases())
def test_algorithms_whose_claim_holds_are_not_flagged(name, variant):
    """A level-alpha test: a true claim is flagged with probability <= alpha = 1e-3 (fixed seed)."""
    result = audit_algorithm(name, epsilon=1.0, variant=variant, samples=10_000, alpha=ALPHA, seed=4)
    assert result.verdict == "consistent"


@pytest.mark.statistical
@pytest.mark.parametrize("mechanism", [ToyThreshold("correct", 1.0),
                                       CounterMechanism("hybrid", 1.0, "chan")],
                         ids=["toy-threshold-correct", "counter-hybrid-chan"])
def test_correct_toys_and_counters_are_not_flagged(mechanism):
    """alpha = 1e-3 per case, fixed seed."""
    pairs = stream_pairs(8) if isinstance(mechanism, CounterMechanism) else None
    assert audit(mechanism, pairs, samples=20_000, alpha=ALPHA, seed=5, T=6).verdict == "consistent"


@pytest.mark.statistical
def test_calibration_repeated_audits_flag_at_most_alpha():
    """Audits of a mechanism whose true epsilon equals its claim (the correct toy, claim set to its
    exact loss ln(2 e^(1/2) - 1)) must exceed the claim in at most a fraction alpha = 0.05 of
    repetitions. 60 independent audits, one-sided binomial test of "flag rate <= 0.05" at level
    1e-3 (a correct audit fails this test with probability <= 1e-3; it fails at 10 or more flags).
    What it guards: a false-alarm rate of 0.2 (4 alpha) fails it with probability 0.79, a rate of
    0.15 (3 alpha) with probability 0.41."""
    toy = ToyThreshold("correct", 1.0)
    toy.claimed = Guarantee(toy.true_epsilon)
    pair = candidate_pairs(2, 4)[0]
    flags = sum(event_audit(toy, [pair], n_selection=2000, n_test=4000, alpha=0.05,
                            seed=100 + i).verdict == "violation" for i in range(60))
    assert stats.binomtest(flags, 60, 0.05, alternative="greater").pvalue > 1e-3, flags


@pytest.mark.exact
def test_an_output_no_score_can_separate_is_reported_as_not_testable():
    """Real-valued outputs that never vary: neither score can be fitted on any pair, the audit
    tests the empty event (0 of n on both tables) and says it could not test, bound 0."""
    class Constant(Mechanism):
        K, label, claimed = 2, "constant", Guarantee(1.0)

        def sample(self, table, n, seed):
            return np.full((n, 3), 0.5)

    pair = candidate_pairs(2, 3)[0]
    result = event_audit(Constant(), [pair], n_selection=200, n_test=300, seed=0)
    assert result.epsilon_lower_bound == 0.0 and result.verdict == "consistent"
    assert "no score could be fitted" in result.event
    assert could_not_test(result) == "the event never occurred in 300 + 300 test runs on either " \
                                     "table: the outputs gave no evidence either way"


# --- exact audits, results and the command line ------------------------------------------------

@pytest.mark.exact
def test_exact_audit_certificate_on_the_spec_pair():
    mechanism = RegistryMechanism("rnm-ftnl", 5, 1.0, "paper", T=2)
    result = exact_audit(mechanism, known_pairs("rnm-ftnl", 5, 2), n=2000, seed=0)
    assert result.exact_epsilon == pytest.approx(1.759, abs=1e-3)
    assert result.certificate == pytest.approx(1.759, abs=1e-3)
    assert result.verdict == "violation" and result.delta_lower_bound > 0


@pytest.mark.exact
def test_result_json_and_verdicts():
    result = audit_algorithm("rnm-ftnl-bq", epsilon=1.0, variant="corrected", T=4, samples=2000,
                             alpha=0.05, seed=0)
    data = json.loads(result.to_json())
    assert data["verdict"] == result.verdict == "consistent"
    assert data["confidence"] == pytest.approx(0.95)
    assert data["pair"]["T"] == 4 and data["n_test"] == 2000
    assert data["exact_epsilon"] == pytest.approx(1.0, abs=1e-9)
    assert isinstance(result, AuditResult) and 0 < result.closeness <= 1.0 + 1e-9
    with pytest.raises(Exception):
        result.epsilon_lower_bound = 5.0     # frozen


@pytest.mark.smoke
def test_cli_audit(capsys):
    assert main(["audit", "ftnl", "--variant", "paper", "--epsilon", "1", "--samples", "5000",
                 "--horizon", "4", "--no-progress"]) == 1     # exit status 1: a violation
    assert "VIOLATION" in capsys.readouterr().out
    assert main(["audit", "rnm-ftnl-bq", "--samples", "2000", "--horizon", "4", "--json",
                 "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "consistent"


@pytest.mark.exact
@pytest.mark.parametrize("argv, message", [
    (["audit", "no-such-algorithm"], "unknown algorithm"),
    (["audit"], "exactly one"),
    (["audit", "ucb1", "--all"], "exactly one"),
    (["audit", "--command", "prog"], "--claim-epsilon"),
    (["audit", "rnm-ftnl", "--epsilon", "0"], "epsilon"),
    (["audit", "rnm-ftnl", "--samples", "5"], "samples"),
])
def test_cli_audit_bad_input(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
