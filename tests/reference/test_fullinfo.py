"""Full-information algorithms: FTL, Hedge, naive FTNL, RNM-FTNL (Hu et al.), RNM-FTNL(B, Q).

FTNL (Hu, Huang & Mehta 2021, Alg. 2-3), RNM-FTNL (journal version, Alg. 4) and
RNM-FTNL(B, Q) (Wu & Wang, Alg. 1) as tests.
Kinds: exact (schedules, zero-noise behaviour, coupled locality, exact regret worked by hand and
probability values), statistical (fixed seeds, failure probabilities stated per test).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpbandits.errors import DPBanditsError
from dpbandits.reference import (Bernoulli, Deterministic, Table, cyclic_instance,
                                 lower_bound_instance, make, rewards_from_losses, simulate, spec)
from dpbandits.reference.report_noisy_max import EpochRNM, epoch_rounds, probabilities
from dpbandits.reference.noise import ScriptedNoise

EPOCH_ALGORITHMS = ["naive-ftnl", "rnm-ftnl", "rnm-ftnl-bq"]


def run_actions(name, table, seed=0, runs=1, **kwargs):
    K = table.shape[1]
    f = spec(name, K, epsilon=kwargs.pop("epsilon", 1.0), **kwargs)
    return simulate(f, Table(table), table.shape[0], runs=runs, seed=seed, record_actions=True).actions


# --- schedule and information flow ------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("name", EPOCH_ALGORITHMS)
def test_action_constant_within_each_epoch(name):
    table = np.random.default_rng(1).random((40, 4))
    actions = run_actions(name, table, runs=20)
    for e in range(6):
        first, last = epoch_rounds(e)
        block = actions[:, first - 1:min(last, 40)]
        assert np.all(block == block[:, :1])


@pytest.mark.exact
@pytest.mark.parametrize("name", ["naive-ftnl", "rnm-ftnl"])
def test_hu_epoch_zero_plays_action_one(name):
    actions = run_actions(name, np.random.default_rng(2).random((5, 3)), runs=50)
    assert np.all(actions[:, 0] == 0)


@pytest.mark.exact
@pytest.mark.parametrize("name, scale", [("rnm-ftnl", 1.0), ("naive-ftnl", 4.0)])
def test_one_rnm_call_per_completed_epoch_with_k_draws(name, scale):
    """floor(log2(T + 1)) calls by round T, each K draws at scale 1/eps
    (paper RNM-FTNL) or K/eps (naive), on that epoch's sums only."""
    K, T = 4, 22
    rng = ScriptedNoise()
    variant = "paper" if name == "rnm-ftnl" else None
    policy = make(name, K, epsilon=1.0, rng=rng, variant=variant)
    table = np.random.default_rng(3).random((T, K))
    for t in range(1, T + 1):
        policy.observe(t, policy.act(t), table[t - 1][None, :])
    assert len(rng.calls) == math.floor(math.log2(T + 1))
    assert all(np.prod(size) == K and call_scale == scale for call_scale, size in rng.calls)


@pytest.mark.exact
@pytest.mark.parametrize("name", ["naive-ftnl", "rnm-ftnl"])
def test_zero_noise_plays_the_leader_of_the_last_epoch(name):
    """with zero noise the epoch-(s+1) action is the argmax of epoch s's sums."""
    K, T = 3, 31
    table = np.random.default_rng(4).random((T, K))
    policy = make(name, K, epsilon=1.0, rng=ScriptedNoise())
    played = []
    for t in range(1, T + 1):
        played.append(int(policy.act(t)[0]))
        policy.observe(t, policy.act(t), table[t - 1][None, :])
    for e in range(1, 5):
        first, last = epoch_rounds(e)
        prev_first, prev_last = epoch_rounds(e - 1)
        leader = int(np.argmax(table[prev_first - 1:prev_last].sum(axis=0)))
        assert set(played[first - 1:last]) == {leader}


@pytest.mark.exact
@pytest.mark.parametrize("name", EPOCH_ALGORITHMS)
@pytest.mark.parametrize("changed_round", [1, 5, 9, 20])
def test_a_change_in_epoch_s_can_move_only_the_epoch_s_plus_1_action(name, changed_round):
    """coupled through the seed (noise and resampling
    draws do not depend on the data), actions outside epoch s + 1 are pathwise identical."""
    T, K = 40, 3
    table = np.random.default_rng(5).random((T, K))
    other = table.copy()
    other[changed_round - 1] = 1.0 - other[changed_round - 1]
    a = run_actions(name, table, seed=9, runs=30)
    b = run_actions(name, other, seed=9, runs=30)
    s = changed_round.bit_length() - 1
    first, last = epoch_rounds(s + 1)
    outside = np.ones(T, dtype=bool)
    outside[first - 1:last] = False
    np.testing.assert_array_equal(a[:, outside], b[:, outside])


@pytest.mark.exact
@pytest.mark.parametrize("name", EPOCH_ALGORITHMS + ["ftl", "hedge"])
def test_the_action_at_t_ignores_rows_t_and_later(name):
    """tables that agree on rows < t give the same actions up to t."""
    T, K, t = 30, 3, 17
    table = np.random.default_rng(6).random((T, K))
    other = table.copy()
    other[t - 1:] = np.random.default_rng(7).random((T - t + 1, K))
    np.testing.assert_array_equal(run_actions(name, table, seed=3, runs=10)[:, :t],
                                  run_actions(name, other, seed=3, runs=10)[:, :t])


@pytest.mark.statistical
def test_wu_wang_first_action_is_uniform():
    """I_1 uniform over K = 5; chi-square on 5000 runs, false failure <= 1e-6."""
    actions = run_actions("rnm-ftnl-bq", np.full((1, 5), 0.5), seed=11, runs=5000)
    assert stats.chisquare(np.bincount(actions[:, 0], minlength=5)).pvalue > 1e-6


# --- exact laws and the privacy counterexamples through the whole algorithm ---------------------

@pytest.mark.exact
def test_hu_counterexample_through_the_algorithm():
    """K = 5, eps = 1, X(1) = e_1 vs 1 - e_1, event 'action 1 at round 2'."""
    X = np.array([[1.0, 0, 0, 0, 0], [0.5] * 5])
    X_prime = np.array([[0.0, 1, 1, 1, 1], [0.5] * 5])
    for variant, p, q in [("paper", 0.43566, 0.07503), ("corrected", 0.30884, 0.12327)]:
        model = make("rnm-ftnl", 5, epsilon=1.0, rng=0, variant=variant).trajectory_model()
        assert model.choice_laws(X)[1, 0] == pytest.approx(p, abs=1e-5)
        assert model.choice_laws(X_prime)[1, 0] == pytest.approx(q, abs=1e-5)
    paper = make("rnm-ftnl", 5, epsilon=1.0, rng=0, variant="paper")
    assert paper.claim.status == "false" and paper.claim.proven.epsilon == 2.0


@pytest.mark.exact
def test_hu_k2_epoch_3_rare_event():
    """G = (0, 8) vs (1, 7) at epoch 3, Lap(1/eps), loss 1.7769."""
    table = np.tile([0.0, 1.0], (16, 1))
    other = table.copy()
    other[10] = [1.0, 0.0]
    model = make("rnm-ftnl", 2, epsilon=1.0, rng=0, variant="paper").trajectory_model()
    p, q = model.choice_laws(table)[4, 0], model.choice_laws(other)[4, 0]
    assert p == pytest.approx(8.3866e-4, rel=1e-4) and q == pytest.approx(4.9575e-3, rel=1e-4)
    assert math.log(q / p) == pytest.approx(1.7769, abs=1e-4)


@pytest.mark.exact
def test_wu_wang_exponential_erratum_through_the_algorithm():
    """K = 2, losses (1,0),(1,0) vs (1,0),(0,1) in epoch 2, event I_4 = 1:
    probabilities e^(-2 eps)/2 vs 1/2 for Exp(1/eps); Exp(2/eps) loses exactly eps."""
    L = np.array([[0.5, 0.5], [1.0, 0.0], [1.0, 0.0], [0.5, 0.5]])
    L_prime = L.copy()
    L_prime[2] = [0.0, 1.0]
    for B in (0, 1):
        for variant, expected_loss in [("paper", 2.0), ("corrected", 1.0)]:
            model = make("rnm-ftnl-bq", 2, epsilon=1.0, rng=0, variant=variant, B=B,
                         Q="exponential").trajectory_model()
            p = model.choice_laws(rewards_from_losses(L))[2, 0]
            q = model.choice_laws(rewards_from_losses(L_prime))[2, 0]
            assert math.log(q / p) == pytest.approx(expected_loss, abs=1e-12)
    assert make("rnm-ftnl-bq", 2, epsilon=1.0, rng=0, variant="paper", Q="exponential").claim.status == "false"
    for Q in ("laplace", "gumbel"):
        assert make("rnm-ftnl-bq", 2, epsilon=1.0, rng=0, variant="paper", Q=Q).claim.status == "holds"


@pytest.mark.statistical
@pytest.mark.parametrize("name, params", [("rnm-ftnl", {"variant": "paper"}),
                                          ("naive-ftnl", {}),
                                          ("rnm-ftnl-bq", {"Q": "gumbel", "B": 0}),
                                          ("rnm-ftnl-bq", {"Q": "exponential", "B": 1})])
def test_trajectory_law_matches_simulation(name, params):
    """Exact trajectory probabilities against 20000 simulated runs on one fixed table (T = 7,
    K = 3, so at most 3^3 trajectories); chi-square, false failure <= 1e-6 (fixed seed)."""
    table = np.random.default_rng(12).random((7, 3)).round(1)
    actions = run_actions(name, table, seed=13, runs=20_000, **params)
    model = make(name, 3, epsilon=1.0, rng=0, **params).trajectory_model()
    codes = actions[:, 0] * 9 + actions[:, 1] * 3 + actions[:, 3]
    counts = np.bincount(codes, minlength=27)
    probs = np.zeros(27)
    for code in range(27):
        j0, j1, j2 = code // 9, (code // 3) % 3, code % 3
        trajectory = np.array([j0, j1, j1, j2, j2, j2, j2])
        probs[code] = math.exp(model.log_probability(table, trajectory))
    assert probs.sum() == pytest.approx(1.0, abs=1e-9)
    keep = probs > 0
    assert counts[~keep].sum() == 0
    assert stats.chisquare(counts[keep], probs[keep] * counts.sum()).pvalue > 1e-6


@pytest.mark.exact
def test_log_probability_of_a_trajectory_that_switches_inside_an_epoch_is_minus_infinity():
    model = make("rnm-ftnl", 2, epsilon=1.0, rng=0).trajectory_model()
    assert model.log_probability(np.full((3, 2), 0.5), np.array([0, 0, 1])) == -np.inf


# --- Bernoulli resampling (B = 1) -----------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("Q, expected", [("laplace", 0.944368), ("exponential", 0.801508),
                                         ("gumbel", 0.942281)])
def test_bernoulli_resampling_oracle(Q, expected):
    """mu = (0.2, 0.5) losses, T = 7, eps = 1, B = 1 (paper scales)."""
    model = make("rnm-ftnl-bq", 2, epsilon=1.0, rng=0, variant="paper", B=1, Q=Q).trajectory_model()
    assert model.deterministic_pseudo_regret(1 - np.array([0.2, 0.5]), 7) == pytest.approx(expected, abs=1e-6)
    corrected = make("rnm-ftnl-bq", 2, epsilon=1.0, rng=0, B=1, Q="exponential").trajectory_model()
    assert corrected.deterministic_pseudo_regret(1 - np.array([0.2, 0.5]), 7) == pytest.approx(0.886872, abs=1e-6)


@pytest.mark.statistical
def test_resampling_makes_the_law_depend_on_the_means_only():
    """B = 1 on the deterministic losses (0.2, 0.5) has the regret of the
    exact oracle 0.801508 (Exp(1/eps)); 20000 runs, |z| < 5 fails with probability < 1e-6."""
    f = spec("rnm-ftnl-bq", 2, epsilon=1.0, variant="paper", B=1, Q="exponential")
    result = simulate(f, Deterministic.from_losses([0.2, 0.5]), 7, runs=20_000, seed=17)
    final = result.pseudo_regret[:, -1]
    z = (final.mean() - 0.801508) / (final.std(ddof=1) / math.sqrt(final.size))
    assert abs(z) < 5


@pytest.mark.exact
def test_resampling_0_1_tables_is_the_identity_in_law():
    table = (np.random.default_rng(8).random((15, 3)) < 0.5).astype(float)
    with_b = make("rnm-ftnl-bq", 3, epsilon=1.0, rng=0, B=1, Q="laplace").trajectory_model()
    without = make("rnm-ftnl-bq", 3, epsilon=1.0, rng=0, B=0, Q="laplace").trajectory_model()
    np.testing.assert_allclose(with_b.choice_laws(table), without.choice_laws(table), atol=1e-12)


@pytest.mark.exact
@pytest.mark.parametrize("Q, scale, expected", [("gumbel", 2, (0.40180, 0.32913, 0.26906)),
                                                ("exponential", 1, (0.49335, 0.30976, 0.19689)),
                                                ("laplace", 2, (0.40746, 0.32887, 0.26367))])
def test_lemma_1_monotonicity_oracle(Q, scale, expected):
    """Wu & Wang, Lemma 1: mu = (0.2, 0.35, 0.5), eps = 0.7, B = 1, an epoch of 4 rounds."""
    model = EpochRNM(3, np.full(3, 1 / 3), Q, scale / 0.7, resample=True)
    law = model.law_given_rows(np.broadcast_to(1 - np.array([0.2, 0.35, 0.5]), (4, 3)))
    np.testing.assert_allclose(law, expected, atol=1e-5)
    assert np.all(np.diff(law) <= 0) and np.all(law <= 1 / np.arange(1, 4))


@pytest.mark.exact
def test_monotonicity_fails_without_resampling():
    """Wu & Wang's Sec. 3.1 example, corrected (its printed P[J_1 = 2] = 0.8 at eps = infinity is 0.2): l_1 = 0.3; l_2 = 0.25 w.p. 0.8, 1 w.p. 0.2;
    epoch 1 (one round), Gumbel(2/eps). B = 0 gives 0.4556 at eps = 10, 0.7393 at eps = 100."""
    def p_second(eps, resample):
        model = EpochRNM(2, np.full(2, 0.5), "gumbel", 2 / eps, resample=resample)
        rows = [np.array([[0.7, 0.75]]), np.array([[0.7, 0.0]])]
        return 0.8 * model.law_given_rows(rows[0])[1] + 0.2 * model.law_given_rows(rows[1])[1]
    assert p_second(10, False) == pytest.approx(0.4556, abs=1e-4)
    assert p_second(100, False) == pytest.approx(0.7393, abs=1e-4)
    assert p_second(1e4, True) == pytest.approx(0.45, abs=1e-3)


# --- regret in the deterministic setting ------------------------------------------------------

DETERMINISTIC_ORACLE = {  # (losses, T) -> regret for Lap2, Exp1, Exp2, Gumbel2
    ((0.0, 1.0), 3): (1.258163, 0.867879, 1.106531, 1.255081),
    ((0.0, 0.5, 1.0), 7): (2.627140, 1.648343, 2.378907, 2.694733),
    ((0.0, 0.5, 1.0), 10): (3.244007, 1.775458, 2.820479, 3.331917),
}
NOISE_COLUMNS = [("laplace", "paper"), ("exponential", "paper"), ("exponential", "corrected"),
                 ("gumbel", "paper")]


@pytest.mark.exact
@pytest.mark.parametrize("key", list(DETERMINISTIC_ORACLE))
def test_deterministic_regret_oracle(key):
    losses, T = key
    for (Q, variant), expected in zip(NOISE_COLUMNS, DETERMINISTIC_ORACLE[key]):
        model = make("rnm-ftnl-bq", len(losses), epsilon=1.0, rng=0, variant=variant, B=0,
                     Q=Q).trajectory_model()
        assert model.deterministic_pseudo_regret(1 - np.array(losses), T) == pytest.approx(expected, abs=1e-6)


@pytest.mark.exact
@pytest.mark.parametrize("Q, variant, expected", [("gumbel", "paper", 11.44), ("exponential", "corrected", 9.36),
                                                  ("exponential", "paper", 4.49), ("laplace", "paper", 11.13)])
def test_theorem_3_and_4_sandwich_row(Q, variant, expected):
    """Row K = 8, eps = 1, T = 2^16: the exact regret, between the lower bound
    (0.31, closed form) and the upper bound 1 + 4 (1 + ln 2) log2 K / eps = 21.32."""
    means = 1 - np.array([0.0, 0.05, 0.05, 1, 1, 1, 1, 1])
    model = make("rnm-ftnl-bq", 8, epsilon=1.0, rng=0, variant=variant, B=0, Q=Q).trajectory_model()
    regret = model.deterministic_pseudo_regret(means, 2 ** 16)
    assert regret == pytest.approx(expected, abs=0.006)
    assert 0.31 < regret < 1 + 4 * (1 + math.log(2)) * 3


@pytest.mark.statistical
def test_simulated_regret_matches_the_exact_deterministic_regret():
    """(0, 0.5, 1) losses, T = 10, Gumbel(2/eps), B = 0: 20000 runs vs 3.331917; |z| < 5 fails with
    probability < 1e-6 (fixed seed)."""
    f = spec("rnm-ftnl-bq", 3, epsilon=1.0, B=0, Q="gumbel")
    final = simulate(f, "wu-wang-deterministic", 10, runs=20_000, seed=23).pseudo_regret[:, -1]
    z = (final.mean() - 3.331917) / (final.std(ddof=1) / math.sqrt(final.size))
    assert abs(z) < 5


# --- baselines --------------------------------------------------------------------------------

@pytest.mark.exact
def test_ftl_follows_the_cumulative_leader():
    table = np.random.default_rng(9).random((25, 4))
    actions = run_actions("ftl", table)[0]
    assert actions[0] == 0
    for t in range(2, 26):
        assert actions[t - 1] == np.argmax(table[:t - 1].sum(axis=0))


@pytest.mark.exact
def test_hedge_learning_rate_and_law():
    policy = make("hedge", 4, rng=0)
    assert policy.learning_rate(10) == pytest.approx(math.sqrt(8 * math.log(4) / 10))
    assert make("hedge", 4, rng=0, eta=0.3).learning_rate(10) == 0.3
    with pytest.raises(DPBanditsError, match="eta"):
        make("hedge", 4, rng=0, eta=-1.0)


@pytest.mark.statistical
def test_hedge_regret_below_its_bound():
    """Mean pseudo-regret over 200 runs stays below 2 sqrt(T/2 ln K) + sqrt(ln K / 8) (Cesa-Bianchi
    and Lugosi Thm 2.3, a bound on the expectation); the 99.9% upper confidence limit of the mean
    is compared, so a false failure needs the mean to exceed its bound, probability <= 1e-3."""
    T, K = 2000, 5
    result = simulate(spec("hedge", K), Bernoulli([0.6, 0.5, 0.5, 0.4, 0.3]), T, runs=200, seed=4)
    final = result.pseudo_regret[:, -1]
    lower = final.mean() - 3.1 * final.std(ddof=1) / math.sqrt(final.size)
    assert lower <= 2 * math.sqrt(T / 2 * math.log(K)) + math.sqrt(math.log(K) / 8)


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["rnm-ftnl", "rnm-ftnl-bq", "naive-ftnl", "ftl"])
def test_regret_respects_the_theorem_12_lower_bound(name):
    """on P_1 with K = 10, Delta = 0.1, eps = 1 and T above the
    theorem's threshold, the mean regret of 100 runs exceeds 0.0098 ln K / eps."""
    source = lower_bound_instance(10, 0.1)
    T = math.ceil(max(math.log(10) / (16 * 0.01), math.log(10) / (10 * 0.1)))
    f = spec(name, 10, epsilon=1.0)
    assert simulate(f, source, T, runs=100, seed=5).pseudo_regret[:, -1].mean() >= 0.0098 * math.log(10)


# --- instances --------------------------------------------------------------------------------

@pytest.mark.exact
def test_cyclic_instance_matches_the_spec_example():
    """Wu & Wang, Thm 3, K = 6: mu^(1) = (0, D, 1, 1, 1, D), mu^(2) = (D, 0, D, 1, 1, 1) as losses."""
    D = 0.05
    np.testing.assert_allclose(1 - cyclic_instance(6, D, 1).means, [0, D, 1, 1, 1, D])
    np.testing.assert_allclose(1 - cyclic_instance(6, D, 2).means, [D, 0, D, 1, 1, 1])
    np.testing.assert_allclose(1 - cyclic_instance(6, D, 6).means, [D, 1, 1, 1, D, 0])
    with pytest.raises(DPBanditsError, match="K"):
        cyclic_instance(5, D)
    with pytest.raises(DPBanditsError, match="Delta"):
        cyclic_instance(6, 0.0)


@pytest.mark.exact
def test_lower_bound_instances_are_delta_apart_in_total_variation():
    """TV(P_i, P_j) = Delta, by enumeration of {0,1}^K for K = 4."""
    K, D = 4, 0.15
    outcomes = np.array(np.meshgrid(*[[0, 1]] * K, indexing="ij")).reshape(K, -1).T
    def law(j):
        mu = lower_bound_instance(K, D, j).means
        return np.prod(np.where(outcomes == 1, mu, 1 - mu), axis=1)
    for i, j in [(1, 2), (1, 4), (2, 3)]:
        assert 0.5 * np.abs(law(i) - law(j)).sum() == pytest.approx(D, abs=1e-12)
    with pytest.raises(DPBanditsError, match="Delta"):
        lower_bound_instance(4, 0.3)


@pytest.mark.exact
def test_loss_tables_convert_explicitly():
    L = np.array([[0.2, 1.0], [0.0, 0.5]])
    np.testing.assert_allclose(rewards_from_losses(L), [[0.8, 0.0], [1.0, 0.5]])
    with pytest.raises(DPBanditsError, match="loss table"):
        rewards_from_losses(np.array([[0.2, 1.5]]))
    np.testing.assert_allclose(Deterministic.from_losses([0.1, 0.4]).means, [0.9, 0.6])


@pytest.mark.exact
def test_wu_wang_bad_parameters():
    with pytest.raises(DPBanditsError, match="B must be"):
        make("rnm-ftnl-bq", 2, epsilon=1.0, rng=0, B=2)
    with pytest.raises(DPBanditsError, match="noise"):
        make("rnm-ftnl-bq", 2, epsilon=1.0, rng=0, Q="cauchy")
