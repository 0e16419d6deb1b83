"""DP-UCB-INT: Alg. 3, Lemma 3.1, Theorem 3.4, Corollaries 3.1-3.2, Lemma B.1 and the docs/errata.md#td-int-loop counterexample.

Kinds: exact (start, release schedule, draws, scales, frozen index, reference values of the
accountant and corollaries, claims, bad input), oracle (a step-by-step model of Algorithm 3;
Theorem 3.4 against mpmath; the exact likelihood of the docs/errata.md#td-int-loop event), property (Lemma B.1
intervals, monotonicity, the chain accountant <= Theorem 3.4 <= Corollary 3.1), statistical
(the docs/errata.md#td-int-loop event on the policy's own actions, regret sanity).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, make, simulate, spec
from dpbandits.reference.bandit.dp_ucb_int import (
    DPUCBInt,
    accountant,
    composition,
    corollary_3_1,
    input_epsilon,
    lemma_3_1,
    noise_scale,
    release_points,
    theorem_3_4,
)
from dpbandits.reference.noise import ScriptedNoise

from .helpers import assert_anytime

DELTA = math.exp(-10)            # the experiments' delta' (Sec. 4)
EPS_1 = input_epsilon(1.0, 1.1, DELTA)      # input eps for eps' = 1 (Cor. 3.2)
EPS_01 = input_epsilon(0.1, 1.1, DELTA)     # ... for eps' = 0.1
RTOL = 1e-12


def model_run(variant: str, interval: str, bonus: str, K: int = 3, epsilon: float = 0.3,
              v: float = 1.3, T: int = 250, seed: int = 0):
    """Drive the policy with distinct scripted noise beside an independent model of Alg. 3.

    The model keeps its own sums and counts, decides which arms are released in each round
    (count at a release point; once per point under ``corrected``, every round under
    ``paper``), consumes the scripted values in arm order and computes x_hat and the action.
    Every round the policy's draws, scales, x_hat and action must match. Returns the policy, the
    model's draws per round and the actions.
    """
    points = set(release_points(epsilon, v, T, interval).tolist())
    f0 = min(points)
    table = Bernoulli(np.linspace(0.8, 0.3, K)).table(T, np.random.default_rng(seed))
    values = np.random.default_rng(seed + 1).uniform(-0.5, 0.5, K * T).tolist()
    rng = ScriptedNoise(seed=seed + 2, values=values)
    policy = DPUCBInt(K, epsilon=epsilon, v=v, rng=rng, variant=variant, interval=interval,
                      bonus=bonus)
    s, n = np.zeros(K), np.zeros(K, int)
    mean_hat, x_hat = np.zeros(K), np.zeros(K)
    last = np.zeros(K, int)
    script = list(values)
    draws_per_round, actions = [], []
    for t in range(1, T + 1):
        draws_before, calls_before = rng.n_draws, len(rng.calls)
        a = policy.act(t)
        if t <= K * f0:
            expected = (t - 1) % K
            due = []
        else:
            due = [j for j in range(K)
                   if n[j] in points and (variant == "paper" or last[j] != n[j])]
            for j in due:
                mean_hat[j] = s[j] / n[j] + script.pop(0)
                x_hat[j] = mean_hat[j] + math.sqrt(2 * math.log(t) / n[j])
                last[j] = n[j]
            index = x_hat if bonus == "frozen" else mean_hat + np.sqrt(2 * math.log(t) / n)
            expected = int(np.argmax(index))
            np.testing.assert_allclose(policy.mean_hat[0], mean_hat, rtol=RTOL, atol=1e-14)
            np.testing.assert_allclose(policy.x_hat[0], x_hat, rtol=RTOL, atol=1e-14)
        assert int(a[0]) == expected
        assert rng.n_draws - draws_before == len(due)
        scales = np.concatenate([np.ravel(scale) for scale, _ in rng.calls[calls_before:]] or [[]])
        np.testing.assert_allclose(scales, [n[j] ** (v / 2 - 1) for j in due], rtol=RTOL)
        policy.observe(t, a, table[t - 1, a])
        s[expected] += table[t - 1, expected]
        n[expected] += 1
        draws_per_round.append(len(due))
        actions.append(expected)
    np.testing.assert_array_equal(policy.n[0], n)
    np.testing.assert_allclose(policy.s[0], s, rtol=RTOL)
    return policy, np.array(draws_per_round), np.array(actions)


# --- the algorithm -------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("variant", ["corrected", "paper"])
@pytest.mark.parametrize("interval", ["constant", "x", "y"])
@pytest.mark.parametrize("bonus", ["frozen", "fresh"])
def test_policy_matches_a_step_by_step_model_of_algorithm_3(variant, interval, bonus):
    """Items 27-29 at once: round-robin start of K f_0 steps, sums include it (docs/errata.md#td-int-init),
    releases at the rule's points with one draw each at scale n^(v/2-1), x_hat = s/n + Lap +
    sqrt(2 ln t / n), argmax with lowest-index ties; R-C recomputes the bonus every round."""
    policy, draws, _ = model_run(variant, interval, bonus)
    assert draws.sum() == policy.releases.sum()


@pytest.mark.exact
def test_round_robin_start_and_zero_noise_release_is_the_mean_of_all_rewards():
    """Item 27: steps 1..Kf play ((t-1) mod K) + 1; at t = Kf + 1 every arm has n = f and, with
    zero noise, x_hat = mean of its f rewards (including the start) + sqrt(2 ln t / f)."""
    K, eps = 3, 0.3                       # f = ceil(1/0.3) = 4
    rng = ScriptedNoise(seed=1)
    policy = DPUCBInt(K, epsilon=eps, rng=rng)
    table = np.random.default_rng(2).random((13, K))
    for t in range(1, 13):
        a = policy.act(t)
        assert int(a[0]) == (t - 1) % K
        policy.observe(t, a, table[t - 1, a])
    assert policy.f0 == 4 and (policy.n == 4).all() and rng.n_draws == 0
    policy.act(13)
    assert rng.n_draws == K
    means = np.array([table[j:12:K, j].mean() for j in range(K)])
    np.testing.assert_allclose(policy.mean_hat[0], means, rtol=RTOL)
    np.testing.assert_allclose(policy.x_hat[0], means + math.sqrt(2 * math.log(13) / 4), rtol=RTOL)


@pytest.mark.exact
@pytest.mark.parametrize("interval", ["constant", "x", "y"])
def test_laplace_draws_equal_release_points_reached_in_every_run(interval):
    """Item 28: after the index computation at step t > K f_0, the number of Laplace draws is
    sum_a #{release points <= n_a} (sum_a floor(n_a / f) for the constant rule), in every run
    of a batch; a round in which no count reaches a new point draws nothing."""
    K, eps, v, T, runs = 3, 0.2, 1.2, 300, 5
    points = release_points(eps, v, T, interval)
    rng = ScriptedNoise(seed=3, values=np.random.default_rng(4).uniform(-1, 1, 10 * T * runs))
    policy = DPUCBInt(K, epsilon=eps, v=v, runs=runs, rng=rng, interval=interval)
    rewards = np.random.default_rng(5).random((T, runs))
    for t in range(1, T + 1):
        a = policy.act(t)
        if t > K * policy.f0:
            reached = np.searchsorted(points, policy.n, side="right")
            np.testing.assert_array_equal(policy.releases, reached)
            assert rng.n_draws == reached.sum()
            if interval == "constant":
                np.testing.assert_array_equal(policy.releases, policy.n // 5)
        policy.observe(t, a, rewards[t - 1])
    assert len({tuple(row) for row in policy.n}) > 1       # the runs took different paths


@pytest.mark.exact
def test_noise_scale_does_not_depend_on_epsilon():
    """(docs/errata.md#td-int-noise-scale): inputs eps = 0.3 and 0.26 both give f = 4; with the same rewards and
    script they draw at the same scales n^(v/2-1) and take the same actions."""
    table = Bernoulli([0.7, 0.5, 0.4]).table(200, np.random.default_rng(6))
    values = np.random.default_rng(7).uniform(-1, 1, 600).tolist()
    runs = []
    for eps in (0.3, 0.26):
        rng = ScriptedNoise(seed=8, values=values)
        policy = DPUCBInt(3, epsilon=eps, v=1.4, rng=rng)
        actions = []
        for t in range(1, 201):
            a = policy.act(t)
            policy.observe(t, a, table[t - 1, a])
            actions.append(int(a[0]))
        scales = np.concatenate([np.ravel(scale) for scale, _ in rng.calls])
        runs.append((actions, scales))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert set(np.round(runs[0][1] ** (1 / (1.4 / 2 - 1)), 9)) <= set(range(4, 201, 4))
    np.testing.assert_allclose(noise_scale([1, 4, 16], 1.4), [1, 4 ** -0.3, 16 ** -0.3])
    np.testing.assert_allclose(lemma_3_1([1, 4, 16], 1.4), 1 / np.array([1, 4, 16])
                               / noise_scale([1, 4, 16], 1.4))


@pytest.mark.exact
@pytest.mark.parametrize("interval", ["constant", "x"])
def test_corrected_pulls_come_in_whole_intervals(interval):
    """Item 30: x_hat is frozen between releases, so after the start an arm is left only when
    its count has just reached a release point; for the constant rule the actions after the
    start are constant on consecutive blocks of f rounds (the last block may be truncated)."""
    K, eps, v, T, runs = 3, 0.2, 1.1, 403, 20
    points = set(release_points(eps, v, T, interval).tolist())
    result = simulate(spec("dp-ucb-int", K, epsilon=eps, v=v, interval=interval),
                      Bernoulli([0.6, 0.5, 0.45]), T, runs=runs, seed=9, record_actions=True)
    f0 = min(points)
    switches = 0
    for actions in result.actions:
        counts = np.zeros(K, int)
        for t in range(1, T + 1):
            a = actions[t - 1]
            if t > K * f0 + 1 and a != actions[t - 2]:
                assert counts[actions[t - 2]] in points
                switches += 1
            counts[a] += 1
        if interval == "constant":
            blocks = actions[K * f0:]
            full = blocks[: len(blocks) // 5 * 5].reshape(-1, 5)
            assert (full == full[:, :1]).all()
            assert (blocks[len(blocks) // 5 * 5:] == blocks[-1]).all()
    assert switches > 0


@pytest.mark.exact
def test_paper_variant_redraws_an_unpulled_arms_mean_every_round():
    """docs/errata.md#td-int-loop (literal reading): while an arm's count sits at a multiple of f it is released
    afresh in every round, so its x_hat changes although its data do not."""
    policy, draws, _ = model_run("paper", "constant", "frozen", K=2, epsilon=0.5, T=60)
    assert draws.sum() > (policy.n // 2).sum()     # more draws than release points reached
    corrected, corrected_draws, _ = model_run("corrected", "constant", "frozen", K=2,
                                              epsilon=0.5, T=60)
    assert corrected_draws.sum() == corrected.releases.sum()
    pending = corrected.n // 2 - corrected.releases   # a point reached in the last round
    assert 0 <= pending.min() <= pending.max() <= 1


@pytest.mark.exact
@pytest.mark.parametrize("variant", ["corrected", "paper"])
def test_act_twice_in_a_round_draws_once(variant):
    rng = ScriptedNoise(seed=10, values=np.random.default_rng(11).uniform(-1, 1, 500))
    policy = DPUCBInt(2, epsilon=0.5, rng=rng, variant=variant)
    table = np.random.default_rng(12).random((40, 2))
    for t in range(1, 41):
        a = policy.act(t)
        draws = rng.n_draws
        np.testing.assert_array_equal(policy.act(t), a)
        assert rng.n_draws == draws
        policy.observe(t, a, table[t - 1, a])


@pytest.mark.exact
def test_anytime_prefixes_agree():
    assert_anytime("dp-ucb-int", Bernoulli([0.6, 0.5, 0.4]).table(300, np.random.default_rng(13)),
                   120, epsilon=0.5)


@pytest.mark.statistical
def test_experiment_setting_learns_the_best_arm():
    """Sec. 4, 2 arms (0.9, 0.6), input eps for eps' = 1 (f = 253), T = 5000:
    the round-robin start costs 506 rounds, after which noise of scale n^(-0.45) <= 0.083 is far
    below the gap. Measured at this seed: mean share of the best arm 0.93 over 100 runs, standard
    deviation 0.035 across runs (least share 0.70). The test asks for > 0.8, over 30 standard
    errors below: failure probability < 1e-3 by Chebyshev, far below 1e-9 by the normal
    approximation."""
    result = simulate(spec("dp-ucb-int", 2, epsilon=EPS_1), Bernoulli([0.9, 0.6]), 5000,
                      runs=100, seed=14)
    assert result.pulls[:, 0].mean() / 5000 > 0.8


# --- Lemma B.1, Theorem 3.4 and the corollaries ----------------------------------------------


@pytest.mark.exact
def test_corollary_3_2_reference_values_and_round_trip():
    """Item 33 and section 4.9: eps(eps'=1) = 0.0039643169, eps(eps'=0.1) = 4.6317312e-5 at
    v = 1.1, delta' = e^-10; f = 253 and 21591; Corollary 3.1's second term returns eps'."""
    assert EPS_1 == pytest.approx(0.0039643169, abs=5e-11)
    assert EPS_01 == pytest.approx(4.6317312e-5, abs=5e-13)
    assert math.ceil(1 / EPS_1) == 253 and math.ceil(1 / EPS_01) == 21591
    for target, eps in ((1.0, EPS_1), (0.1, EPS_01)):
        assert corollary_3_1(eps, 1.1, DELTA).advanced == pytest.approx(target, abs=1e-12)
        z = float(mpmath.zeta(1.1))
        printed = (math.sqrt((10 + 4 * target) / (8 * z)) - math.sqrt(10 / (8 * z))) ** 2
        assert eps == pytest.approx(printed, rel=1e-9)


@pytest.mark.exact
def test_lemma_b1_first_intervals():
    """Item 31, section 4.10: (f_0..f_3) for v = 1.1."""
    expected = {
        (EPS_1, "x"): [124, 200, 221, 231], (EPS_1, "y"): [46, 131, 177, 200],
        (EPS_01, "x"): [9834, 16943, 18826, 19649], (EPS_01, "y"): [1751, 9063, 14052, 16495],
    }
    for (eps, rule), lengths in expected.items():
        points = release_points(eps, 1.1, 70000, rule)
        assert list(np.diff(np.r_[0, points])[:4]) == lengths
    np.testing.assert_array_equal(release_points(0.3, 1.2, 17), [4, 8, 12, 16])


@settings(deadline=None)
@given(eps=st.floats(1e-3, 2.0), v=st.floats(1.01, 1.5), rule=st.sampled_from(["x", "y"]),
       n_max=st.integers(1, 3000))
@pytest.mark.property
def test_lemma_b1_intervals_never_exceed_ceil_one_over_eps(eps, v, rule, n_max):
    """Item 31: every f_n <= ceil(1/eps), and each release point is the first count at which
    its block meets the threshold."""
    points = release_points(eps, v, n_max, rule)
    lengths = np.diff(np.r_[0, points])
    assert (lengths >= 1).all() and (lengths <= math.ceil(1 / eps)).all()
    exponent = v / 2 if rule == "x" else v
    start = 0
    for w in points[:20]:
        block = np.arange(start + 1, w + 1, dtype=float) ** -exponent
        sums = np.cumsum(block)
        meets = sums >= block / eps
        assert meets[-1] and not meets[:-1].any()
        start = w


@pytest.mark.exact
def test_accountant_reference_values_against_corollary_3_1():
    """Item 32, sections 4.7 and 4.10: eps = eps(eps'=1), v = 1.1, delta' = e^-10, releases up
    to n_a = 1e5. Constant f = 253: C = 1.482 <= 1.562, D = 0.4925 <= 1.000. x-rule (397
    releases): C = 1.5555, D = 0.5823, both within. y-rule (400 releases): D = 0.7951 <= 1 but
    C = 1.676 > 1.562 (docs/errata.md#td-y-rule)."""
    cor = corollary_3_1(EPS_1, 1.1, DELTA, 10 ** 5)
    assert cor.basic == pytest.approx(1.5617, abs=5e-5)
    assert cor.advanced == pytest.approx(1.0, abs=1e-12)
    cases = {"constant": (395, 1.4824, 0.4925), "x": (397, 1.5555, 0.5823),
             "y": (400, 1.6761, 0.7951)}
    for rule, (count, C, D) in cases.items():
        assert release_points(EPS_1, 1.1, 10 ** 5, rule).size == count
        bound = accountant(EPS_1, 1.1, DELTA, count, rule)
        assert bound.basic == pytest.approx(C, abs=1e-4)
        assert bound.advanced == pytest.approx(D, abs=1e-4)
        assert bound.advanced <= cor.advanced
        assert (bound.basic <= cor.basic) == (rule != "y")
        assert bound.epsilon == bound.advanced
        assert bound.guarantee().delta == DELTA
    assert accountant(EPS_1, 1.1, DELTA, 395).basic == pytest.approx(
        sum((253 * k) ** -0.55 for k in range(1, 396)), rel=RTOL)


@pytest.mark.exact
def test_composition_by_hand():
    """One release at n = 4, v = 1.5: C = 4^-0.75, D = C (e^C - 1) + sqrt(2 ln(1/delta) C^2)."""
    c = 4 ** -0.75
    bound = composition([4], 1.5, 0.01)
    assert bound.basic == pytest.approx(c, rel=RTOL)
    assert bound.advanced == pytest.approx(c * math.expm1(c) + math.sqrt(2 * math.log(100)) * c,
                                           rel=RTOL)
    assert bound.guarantee().delta == 0.0          # C < D: the pure branch is the stronger
    assert composition([], 1.5, 0.01).epsilon == 0.0
    repeated = composition([2, 2, 2], 1.5, 0.5)
    assert repeated.basic == pytest.approx(3 * 2 ** -0.75, rel=RTOL)


@pytest.mark.oracle
def test_theorem_3_4_against_mpmath():
    """Theorem 3.4 (corrected form, docs/errata.md#td-thm34-typos) against 30-digit sums; Corollary 3.1's zeta too.
    Section 6, docs/errata.md#td-int-loop values: eps = 0.5, v = 1.5 gives a pure branch 2.535 at t = 20 and 3.857
    at t = 60."""
    eps, v, delta, t = 0.37, 1.27, 1e-6, 1500
    with mpmath.workdps(30):
        g = [mpmath.mpf(n) ** (-v / 2) for n in range(1, t + 1)]
        log_term = mpmath.log(1 / mpmath.mpf(delta))
        basic = eps * mpmath.fsum(g)
        advanced = (eps * mpmath.fsum(x * mpmath.expm1(x) for x in g)
                    + mpmath.sqrt(2 * eps * log_term * mpmath.fsum(x * x for x in g)))
        z = mpmath.zeta(v)
        zeta_term = 2 * eps * z + mpmath.sqrt(2 * eps * z * log_term)
    bound = theorem_3_4(eps, v, delta, t)
    assert bound.basic == pytest.approx(float(basic), rel=1e-13)
    assert bound.advanced == pytest.approx(float(advanced), rel=1e-13)
    cor = corollary_3_1(eps, v, delta, t)
    assert cor.advanced == pytest.approx(float(zeta_term), rel=1e-13)
    assert cor.basic == pytest.approx(eps * (t ** (1 - v / 2) - v / 2) / (1 - v / 2), rel=RTOL)
    assert theorem_3_4(0.5, 1.5, DELTA, 20).basic == pytest.approx(2.535, abs=5e-4)
    assert theorem_3_4(0.5, 1.5, DELTA, 60).basic == pytest.approx(3.857, abs=5e-4)
    assert corollary_3_1(eps, v, delta).basic == math.inf


@settings(deadline=None)
@given(eps=st.floats(1e-3, 1.0), v=st.floats(1.01, 1.5), delta=st.floats(1e-12, 1.0),
       t=st.integers(1, 4000), rule=st.sampled_from(["constant", "x", "y"]))
@pytest.mark.property
def test_accountant_below_theorem_3_4_below_corollary_3_1(eps, v, delta, t, rule):
    """Item 32 in general: for releases at n_a <= t the exact accountant is at most Theorem 3.4,
    which is at most Corollary 3.1, branch by branch; the y-rule only in the advanced branch."""
    exact = accountant(eps, v, delta, release_points(eps, v, t, rule).size, rule)
    theorem = theorem_3_4(eps, v, delta, t)
    corollary = corollary_3_1(eps, v, delta, t)
    tol = 1 + 1e-12
    assert exact.advanced <= theorem.advanced * tol + 1e-15
    if rule != "y":
        assert exact.basic <= theorem.basic * tol
    assert theorem.basic <= corollary.basic * tol
    assert theorem.advanced <= corollary.advanced * tol


@settings(deadline=None)
@given(e1=st.floats(1e-4, 1.0), e2=st.floats(1e-4, 1.0), t1=st.integers(1, 3000),
       t2=st.integers(1, 3000), v=st.floats(1.01, 1.5), delta=st.floats(1e-12, 0.99))
@pytest.mark.property
def test_privacy_bounds_are_monotone_in_epsilon_and_t(e1, e2, t1, t2, v, delta):
    """Item 36: Theorem 3.4 and Corollary 3.1 are non-decreasing in the input eps and in t."""
    (e1, e2), (t1, t2) = sorted((e1, e2)), sorted((t1, t2))
    for bound in (theorem_3_4, corollary_3_1):
        low, high = bound(e1, v, delta, t1), bound(e2, v, delta, t2)
        assert low.basic <= high.basic * (1 + 1e-12)
        assert low.advanced <= high.advanced * (1 + 1e-12)


# --- the claims -------------------------------------------------------------------------------


@pytest.mark.exact
def test_claims_of_both_variants():
    """The claim is Corollary 3.1's t-free branch at (eps', delta'): with the Corollary 3.2
    input it is exactly (1, e^-10). It holds under R-B and is unproven for the printed loop."""
    corrected = DPUCBInt(2, epsilon=EPS_1, rng=0)
    assert corrected.variant == "corrected" and DPUCBInt.default_variant == "corrected"
    claim = corrected.claim
    assert claim.status == "holds" and claim.proven == claim.claimed
    assert claim.claimed.epsilon == pytest.approx(1.0, abs=1e-12)
    assert claim.claimed.delta == DELTA
    paper = DPUCBInt(2, epsilon=EPS_1, rng=0, variant="paper").claim
    assert paper.status == "unproven" and paper.proven is None
    assert paper.claimed == claim.claimed
    for interval in ("x", "y"):
        assert DPUCBInt(2, epsilon=EPS_1, rng=0, interval=interval).claim.status == "holds"
    assert DPUCBInt(2, epsilon=0.2, v=1.3, delta=1e-3, rng=0).claim.claimed.epsilon == \
        pytest.approx(corollary_3_1(0.2, 1.3, 1e-3).advanced, rel=RTOL)


@pytest.mark.exact
def test_pure_claims_per_rule_and_variant():
    """Theorem 3.4's pure branch at t: holds for constant f and the x-rule, unproven for the
    y-rule at t = 1e5 (C = 1.676 > eps sum n^(-v/2)), false for the printed loop (docs/errata.md#td-int-loop)."""
    t = 10 ** 5
    claimed = theorem_3_4(EPS_1, 1.1, DELTA, t).basic
    for interval, status in (("constant", "holds"), ("x", "holds"), ("y", "unproven")):
        pure = DPUCBInt(2, epsilon=EPS_1, rng=0, interval=interval).pure_claim(t)
        assert pure.status == status
        assert pure.claimed.epsilon == pytest.approx(claimed, rel=RTOL) and pure.claimed.delta == 0
        assert pure.proven.epsilon == pytest.approx(
            composition(release_points(EPS_1, 1.1, t, interval), 1.1, DELTA).basic, rel=RTOL)
    small = DPUCBInt(2, epsilon=0.5, v=1.5, rng=0).pure_claim(20)
    assert small.claimed.epsilon == pytest.approx(2.535, abs=5e-4)
    assert small.proven.epsilon == pytest.approx(sum((2 * k) ** -0.75 for k in range(1, 11)))
    assert DPUCBInt(2, epsilon=0.5, v=1.5, rng=0, variant="paper").pure_claim(20).status == "false"


# --- docs/errata.md#td-int-loop: the printed loop breaks the pure branch ----------------------------

V_FLAG = 1.5
B2 = 2 ** (V_FLAG / 2 - 1)               # arm 2's noise scale at count 2


def laplace_cdf(x: float, b: float) -> float:
    return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)


def log_prob_arm_2_idle(w: int, m2: float, variant: str) -> float:
    """ln Pr(E_w), E_w = "arm 2 not pulled in rounds 5..w", K = 2, eps = 0.5 (f = 2), v = 1.5,
    arm 1's rewards all 1 and arm 2's mean at count 2 equal to m2, by numerical integration.

    On E_w arm 1 is released at rounds r = 5, 7, 9, ... with count r - 3 and frozen for two
    rounds: A_r = 1 + L + sqrt(2 ln r / (r - 3)). Printed loop: arm 2 (count 2) is released in
    every round s with fresh noise: m2 + L_s + sqrt(ln s); given A_r the rounds are independent.
    R-B: arm 2 is released once, at round 5, and frozen.
    """
    blocks = [(r, [s for s in (r, r + 1) if s <= w]) for r in range(5, w + 1, 2)]
    if variant == "paper":
        total = 0.0
        for r, rounds in blocks:
            b1 = (r - 3) ** (V_FLAG / 2 - 1)
            base = 1 + math.sqrt(2 * math.log(r) / (r - 3))

            def integrand(l, b1=b1, base=base, rounds=rounds):
                arm_2_below = (laplace_cdf(base + l - m2 - math.sqrt(math.log(s)), B2)
                               for s in rounds)
                return math.exp(-abs(l) / b1) / (2 * b1) * math.prod(arm_2_below)

            kinks = sorted({0.0, *(m2 + math.sqrt(math.log(s)) - base for s in rounds)})
            value, _ = integrate.quad(integrand, -60 * b1, 60 * b1, points=kinks, epsabs=0,
                                      epsrel=1e-11, limit=400)
            total += math.log(value)
        return total

    def integrand(l):
        arm_2 = m2 + l + math.sqrt(math.log(5))
        stays = 1.0
        for r, _ in blocks:
            b1 = (r - 3) ** (V_FLAG / 2 - 1)
            stays *= 1 - laplace_cdf(arm_2 - 1 - math.sqrt(2 * math.log(r) / (r - 3)), b1)
        return math.exp(-abs(l) / B2) / (2 * B2) * stays

    value, _ = integrate.quad(integrand, -60 * B2, 60 * B2, points=[0.0], epsabs=0,
                              epsrel=1e-11, limit=400)
    return math.log(value)


@pytest.mark.oracle
def test_flag_14_exact_likelihood_ratios():
    """(docs/errata.md#td-int-loop): ln Pr_D(E_w)/Pr_D'(E_w) = 0.165, 0.976, 2.358, 4.462
    at w = 5, 9, 14, 20 under the printed loop, above the pure claim 2.535 at t = 20; under R-B
    it stays below the one release's loss 2^(-3/4) = 0.595 (Lemma 3.1 at n = 2)."""
    ratios = {w: log_prob_arm_2_idle(w, 0.0, "paper") - log_prob_arm_2_idle(w, 0.5, "paper")
              for w in (5, 9, 14, 20)}
    for w, expected in zip(ratios, (0.165, 0.976, 2.358, 4.462)):
        assert ratios[w] == pytest.approx(expected, abs=5e-4)
    assert log_prob_arm_2_idle(20, 0.0, "paper") == pytest.approx(-7.76, abs=5e-3)
    pure = DPUCBInt(2, epsilon=0.5, v=V_FLAG, rng=0).pure_claim(20).claimed.epsilon
    assert ratios[20] > pure
    bound = float(lemma_3_1(2, V_FLAG))
    assert bound == pytest.approx(2 ** -0.75)
    for w in (5, 9, 14, 20, 40):
        ratio = log_prob_arm_2_idle(w, 0.0, "corrected") - log_prob_arm_2_idle(w, 0.5, "corrected")
        assert 0 < ratio <= bound


@pytest.mark.statistical
@pytest.mark.parametrize("variant", ["paper", "corrected"])
def test_flag_14_event_on_the_policys_actions_matches_the_exact_likelihood(variant):
    """The policy's own actions on the tables D (arm 2's first reward 0) and D' (it is 1), 2e5
    runs each: ln of the empirical Pr(E_9) on each table lies within 5 binomial standard
    errors (delta method) of the exact value; per table a false failure has probability
    < 1e-6 (normal approximation, counts above 1e4)."""
    w, runs = 9, 200_000
    for table_id, m2 in enumerate((0.0, 0.5)):
        table = np.zeros((w, 2))
        table[:, 0] = 1.0
        table[1, 1] = 2 * m2                # arm 2's first reward is round 2's
        policy = DPUCBInt(2, epsilon=0.5, v=V_FLAG, runs=runs, rng=100 + table_id,
                          variant=variant)
        idle = np.ones(runs, bool)
        for t in range(1, w + 1):
            a = policy.act(t)
            if t >= 5:
                idle &= a == 0
            policy.observe(t, a, table[t - 1, a])
        p_hat = idle.mean()
        exact = log_prob_arm_2_idle(w, m2, variant)
        se = math.sqrt((1 - p_hat) / (runs * p_hat))
        assert abs(math.log(p_hat) - exact) < 5 * se


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.exact
def test_bad_input_is_refused():
    for bad in (1.0, 0.9, 1.6, float("nan"), "a"):
        with pytest.raises(DPBanditsError, match="v must"):
            DPUCBInt(2, epsilon=0.5, v=bad, rng=0)
    for bad in (0.0, -0.1, 1.5, float("nan")):
        with pytest.raises(DPBanditsError, match="delta"):
            DPUCBInt(2, epsilon=0.5, delta=bad, rng=0)
    with pytest.raises(DPBanditsError, match="interval"):
        DPUCBInt(2, epsilon=0.5, interval="z", rng=0)
    with pytest.raises(DPBanditsError, match="bonus"):
        DPUCBInt(2, epsilon=0.5, bonus="grow", rng=0)
    with pytest.raises(DPBanditsError, match="variant"):
        DPUCBInt(2, epsilon=0.5, variant="R-B", rng=0)
    with pytest.raises(DPBanditsError, match="epsilon"):
        release_points(0.0, 1.1, 10)
    with pytest.raises(DPBanditsError, match="n_max"):
        release_points(0.5, 1.1, -1)
    with pytest.raises(DPBanditsError, match="t must"):
        theorem_3_4(0.5, 1.1, 0.1, 0)
    with pytest.raises(DPBanditsError, match="t must"):
        corollary_3_1(0.5, 1.1, 0.1, 2.5)
    with pytest.raises(DPBanditsError, match="target_epsilon"):
        input_epsilon(0.0, 1.1, 0.1)
    with pytest.raises(DPBanditsError, match="counts"):
        composition([0, 2], 1.1, 0.1)
    with pytest.raises(DPBanditsError, match="releases"):
        accountant(0.5, 1.1, 0.1, -2)
    with pytest.raises(DPBanditsError, match="unknown parameter"):
        make("dp-ucb-int", 2, epsilon=0.5, rng=0, f=3)
    policy = make("dp-ucb-int", 3, epsilon=0.5, rng=0, interval="y", v=1.2, delta=1e-6,
                  bonus="fresh")
    assert (policy.interval, policy.v, policy.delta, policy.bonus) == ("y", 1.2, 1e-6, "fresh")
    with pytest.raises(DPBanditsError, match=r"\[0, 1\]"):
        policy.observe(1, policy.act(1), np.array([1.5]))


@pytest.mark.exact
def test_input_epsilon_above_one_gives_one_release_per_pull():
    """Deviation 5: eps > 1 gives f = 1; the claim still holds and Theorem 3.4's pure branch
    is attained with equality by releasing at every count."""
    policy = DPUCBInt(2, epsilon=3.0, rng=0)
    assert policy.f0 == 1
    np.testing.assert_array_equal(release_points(3.0, 1.1, 5, "x"), [1, 2, 3, 4, 5])
    assert policy.pure_claim(50).status == "holds"


@pytest.mark.exact
@pytest.mark.parametrize("interval", ["constant", "x", "y"])
def test_a_copied_policy_continues_its_release_points_as_the_original(interval):
    """The accountant's enumeration copies a policy where its action sequences branch
    (``copy.deepcopy``; its schedule is a Python generator, which cannot be copied): the copy
    made after some points were taken extends them exactly as the original does, and a run
    from the copy draws and acts as the original does from the same state."""
    import copy

    policy = make("dp-ucb-int", 2, epsilon=0.5, rng=np.random.default_rng(3), interval=interval)
    table = (np.random.default_rng(4).random((60, 2)) < 0.5).astype(float)
    for t in range(1, 31):
        a = policy.act(t)
        policy.observe(t, a, table[t - 1, a])
    taken = policy._schedule.points.size
    twin = copy.deepcopy(policy)
    assert twin._schedule is not policy._schedule and taken > 0
    assert np.array_equal(twin._schedule.points, policy._schedule.points)
    assert np.array_equal(twin._schedule.covering(4 * taken), policy._schedule.covering(4 * taken))
    for t in range(31, 61):
        a, b = policy.act(t), twin.act(t)
        assert np.array_equal(a, b)
        policy.observe(t, a, table[t - 1, a])
        twin.observe(t, b, table[t - 1, b])
    assert np.array_equal(twin.mean_hat, policy.mean_hat)
