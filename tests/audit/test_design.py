"""Designed pairs, release horizons and the action-level loss (dpbandits.audit.design).

Kinds: exact (pairs, horizons, sample sizes worked out from their definitions), statistical
(fixed seeds; each states the rate it guards).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.audit import audit_algorithm
from dpbandits.audit.confidence import epsilon_lower_bound
from dpbandits.audit.design import (DESIGNS, action_level_loss, designed_pairs, release_horizon,
                                    samples_needed)
from dpbandits.errors import DPBanditsError
from dpbandits.reference.declarations import HybridItem
from dpbandits.reference.bandit.dp_se import epoch_length
from dpbandits.reference.neighbours import ROW


@pytest.mark.exact
@pytest.mark.parametrize("name", sorted(n for n, d in DESIGNS.items() if isinstance(d, HybridItem)))
def test_designed_pairs_are_neighbours_at_the_designed_rounds(name):
    pairs = designed_pairs(name, 2, 1.0, "paper")
    assert pairs and {p.step for p in pairs} == set(DESIGNS[name].steps)
    for p in pairs:
        assert p.T == release_horizon(name, 2) and p.K == 2
        assert ROW.distance(p.D0.X, p.D1.X) == 1
        assert np.all(p.D0.X[p.step - 1] == 1) and np.all(p.D1.X[p.step - 1] == 0)


@pytest.mark.exact
def test_no_design_means_no_pairs_and_unknown_names_are_refused():
    assert designed_pairs("ucb1") == [] and release_horizon("ucb1") is None
    with pytest.raises(DPBanditsError):
        designed_pairs("no-such-algorithm")


@pytest.mark.exact
@pytest.mark.parametrize("K", [2, 3])
def test_dp_se_horizon_reaches_its_first_release(K):
    T = release_horizon("dp-se", K, 1.0)
    R1 = int(epoch_length(1, K, 1.0, 1.0 / T))
    assert T == K * R1 + 1          # the round after the first epoch's K R_1 pulls


@pytest.mark.exact
def test_dp_se_pairs_sit_just_below_the_first_elimination_threshold():
    from dpbandits.audit.design import designed_horizon
    from dpbandits.reference.bandit.dp_se import DPSE, elimination_threshold

    DP_SE_OFFSETS = DPSE.audit_design.offsets

    pairs = designed_pairs("dp-se", 2, 1.0, deviations=True)
    T = designed_horizon("dp-se", 2, 1.0)
    assert len(designed_pairs("dp-se", 2, 1.0)) == len(DP_SE_OFFSETS)   # the reference's audit
    R1 = int(epoch_length(1, 2, 1.0, 1.0 / T))
    threshold = float(elimination_threshold(1, 2, R1, 1.0, 1.0 / T))
    assert len(pairs) == len(DP_SE_OFFSETS) + 1 and T >= 2 * R1 + 2
    for pair, offset in zip(pairs, DP_SE_OFFSETS):
        assert pair.step == 2 * R1 and pair.T == T
        arm1 = pair.D0.X[1:2 * R1:2, 1]                 # arm 1's pulls in epoch 1 (even rounds)
        gap = 1.0 - arm1.mean()                         # arm 0 pays 1 on every pull
        assert abs((threshold - gap) * R1 - offset) <= 0.5 + 1e-9
        assert pair.D0.X[pair.step - 1, 1] == 1 and pair.D1.X[pair.step - 1, 1] == 0
    on = pairs[-1]                                      # the exact gap on the threshold
    gaps = [1.0 - D.X[1:2 * R1:2, 1].mean() for D in (on.D0, on.D1)]
    assert on.step == 2 * R1 and gaps[0] <= threshold < gaps[1]   # kept on D0, eliminated on D1


@pytest.mark.exact
def test_dp_se_pairs_follow_its_parameters_and_the_given_horizon():
    from dpbandits.audit.design import designed_horizon

    T = designed_horizon("dp-se", 2, 1.0)
    assert designed_pairs("dp-se", 2, 1.0, T=T - 1) == []          # two rounds after K R_1
    assert designed_pairs("dp-se", 2, 1.0, params={"order": "random"}) == []
    beta = 0.01
    T_beta = designed_horizon("dp-se", 2, 1.0, params={"beta": beta})
    R1 = int(epoch_length(1, 2, 1.0, beta))
    assert T_beta == 2 * R1 + 2 and T_beta < T
    assert {p.step for p in designed_pairs("dp-se", 2, 1.0, params={"beta": beta},
                                           deviations=True)} == {2 * R1}


@pytest.mark.exact
@pytest.mark.parametrize("K", [2, 3])
def test_lazy_epoch_pairs_change_arm_0s_first_release_where_the_others_pay_1(K):
    from dpbandits.audit.design import designed_horizon

    pairs = designed_pairs("anytime-lazy-ucb", K, 1.0)
    assert len(pairs) == len(DESIGNS["anytime-lazy-ucb"].arm0)
    assert designed_horizon("anytime-lazy-ucb", K) == K + 6
    assert release_horizon("anytime-lazy-ucb", K) == K + 1      # round K + 1 reads round 1
    for p in pairs:
        assert (p.step, p.T, p.K) == (1, K + 6, K) and ROW.distance(p.D0.X, p.D1.X) == 1
        assert np.all(p.D0.X[0] == 1) and np.all(p.D1.X[0] == 0)
        assert np.all(p.D0.X[1:, 1:] == 1) and np.unique(p.D0.X[1:, 0]).size == 1
        assert p.description.startswith("designed: arm 0 pays")
    assert designed_pairs("anytime-lazy-ucb", K, 1.0, T=K) == []  # nothing reads the release


@pytest.mark.statistical
def test_the_designed_pairs_raise_the_anytime_lazy_ucb_bound():
    """Seed 0 at the --all budget (20 000 test runs per side): the designed pairs give 0.907
    against the claim of 1, which holds (the generic pairs gave 0.721 at this size and seed).
    A level-0.05 audit of a true claim exceeds 1 with probability at most 0.05; the bound above
    0.85 guards the design's power (docs/audit-design.md)."""
    r = audit_algorithm("anytime-lazy-ucb", samples=20_000, seed=0)
    assert r.pair["description"].startswith("designed:") and (r.pair["K"], r.pair["T"]) == (2, 8)
    assert 0.85 < r.epsilon_lower_bound <= 1.0 and r.verdict == "consistent"


@pytest.mark.exact
def test_samples_needed_is_where_the_expected_bound_first_exceeds_the_claim():
    assert samples_needed(0.3, 0.3 / math.e, 1.0) is None        # ratio exactly e: never
    p_big, p_small = 0.02, 0.006                                 # ln ratio 1.204
    n = samples_needed(p_big, p_small, 1.0)
    bound = epsilon_lower_bound(math.floor(n * p_big), n, math.ceil(n * p_small), n, 0.05, 1)
    assert bound > 1.0
    smaller = int(n / 1.3)
    assert epsilon_lower_bound(math.floor(smaller * p_big), smaller,
                               math.ceil(smaller * p_small), smaller, 0.05, 1) <= 1.0


@pytest.mark.statistical
def test_action_level_loss_orders_estimate_and_bound():
    """Fixed seed; the upper bound is below the sequences' true maximum loss with probability at
    most 0.05 (it is not compared with a true value here; the ordering of the lower bound under
    the upper bound holds on every sample where both cover the chosen event's sequences)."""
    pair = designed_pairs("dp-ucb", 2)[0]
    r = action_level_loss("dp-ucb", pair, epsilon=1.0, variant="corrected", n=20_000, seed=1)
    assert r.released_loss == 1.0 and r.claim == 1.0
    assert (r.n_selection, r.n) == (10_000, 10_000)         # two disjoint halves per side
    assert 0 < r.estimate <= r.upper_bound and r.sequences > 0
    assert r.lower_bound <= r.upper_bound and r.rare_mass <= r.delta
    assert "released statistics lose 1" in r.summary()


@pytest.mark.statistical
def test_the_action_level_estimate_is_measured_on_runs_it_was_not_chosen_on():
    """DP-UCB-BOUND as printed, K = 3, T = 20, the all-zero table with row 4 changed: arm 0's
    item 2, whose only release loses exactly eps = 1, so no action event loses more than the
    claim of 1. Choosing the most revealing sequence and measuring it on the same runs (the
    former behaviour) reported 1.06 and a refutation at 1.9 million runs at this seed, and a
    refutation on every seed tried (7 of 7 at 200 000 to 400 000 runs per side). Measured on
    fresh runs the chosen sequence loses 0.982 here (0.975 and 1.001 on seeds 1 and 2): the
    plug-in checks hold at this seed only. The lower bound is a level-0.05 test: it exceeds the
    claim with probability at most 0.05."""
    import dataclasses

    from dpbandits.audit.pairs import Pair
    from dpbandits.reference.environments import Table

    D0 = np.zeros((20, 3))
    D0[3] = 1
    pair = Pair(Table(D0), Table(np.zeros((20, 3))), 4, "zeros, row 4")
    r = action_level_loss("dp-ucb-bound", pair, variant="paper", n=400_000, seed=0)
    assert r.released_loss == 2.0 and r.claim == 1.0
    assert not r.refuted and r.lower_bound <= 1.0
    assert 0.9 < r.estimate < 1.0 and r.event_estimate < 1.0 and r.samples_needed is None
    assert "refutes" not in r.summary() and "at any sample size" not in r.summary()
    assert dataclasses.replace(r, lower_bound=1.2).refuted


@pytest.mark.statistical
def test_the_action_level_statement_covers_the_rarely_seen_sequences():
    """DP-UCB as printed on its designed pair at 10 000 runs per side (seed 0): most sequences
    are seen fewer than 200 times, so the bound on the well-observed ones says little; delta
    bounds the rest's probability (a 95% Clopper-Pearson bound, failing with probability at
    most 0.05 jointly with the upper bound) and the statement excludes no event: the summary
    says so, not that the claim cannot be refuted."""
    pair = designed_pairs("dp-ucb", 2, 1.0, "paper")[0]
    r = action_level_loss("dp-ucb", pair, variant="paper", n=10_000, seed=0)
    assert r.rare_mass > 0.5 and r.delta >= r.rare_mass
    assert not r.bounded_below_claim and r.refutation_runs is None
    assert "does not exclude one" in r.summary() or r.refutable


@pytest.mark.exact
@pytest.mark.parametrize("claim", [0.5, 1.0, 2.0])
def test_runs_to_refute_rare_is_where_a_never_seen_opposite_first_allows_a_refutation(claim):
    """k = p n events against none: the Clopper-Pearson bound ln(lower(k) / upper(0)) exceeds the
    claim from k = runs p on (worked here with the exact binomial bounds at p = 1e-6)."""
    from dpbandits.audit.design import _cp_lower, _cp_upper, runs_to_refute_rare

    p = 1e-6
    k = round(runs_to_refute_rare(p, claim) * p)
    n = round(k / p)

    def bound(events):
        return math.log(float(_cp_lower(events, n, 0.025)) / float(_cp_upper(0, n, 0.025)))

    assert bound(k) > claim >= bound(k - 1)
    assert runs_to_refute_rare(1e-13, claim) == pytest.approx(k / 1e-13)
    with pytest.raises(DPBanditsError):
        runs_to_refute_rare(0.0, claim)


@pytest.mark.statistical
def test_the_audit_of_a_designed_algorithm_uses_its_pairs():
    """Fixed seed; structure only (which pairs, horizon and arms the audit used)."""
    r = audit_algorithm("hybrid-ucb", variant="paper", samples=2_000, seed=0)
    assert r.pair["description"].startswith("designed:")
    assert (r.pair["K"], r.pair["T"]) == (2, release_horizon("hybrid-ucb", 2))


@pytest.mark.statistical
@pytest.mark.slow
def test_the_designed_audit_refutes_printed_dp_ucb_from_its_actions():
    """Seed 0 at the default 50 000 test runs: the bound exceeds the claim of 1 (the printed
    scales lose 2 on the released sums). A valid level-0.05 test of a false claim; guards the
    audit's power on the designed pairs (docs/audit-design.md)."""
    r = audit_algorithm("dp-ucb", variant="paper", samples=50_000, seed=0)
    assert r.verdict == "violation" and r.epsilon_lower_bound > 1.0


@pytest.mark.exact
def test_designed_audit_is_the_same_over_two_workers():
    """The designed pairs' selection samples run in parallel (one process per pair group); the
    seeds make the result identical to one process."""
    one = audit_algorithm("dp-ucb", variant="paper", samples=1_000, seed=3)
    two = audit_algorithm("dp-ucb", variant="paper", samples=1_000, seed=3, workers=2)
    assert (one.epsilon_lower_bound, one.counts, one.event, one.pair) == \
        (two.epsilon_lower_bound, two.counts, two.event, two.pair)


@pytest.mark.exact
def test_most_revealing_prefers_a_refutation_then_an_open_bound_then_the_cheapest_open_event():
    from dataclasses import replace

    from dpbandits.audit.design import ActionLevelLoss, most_revealing

    base = ActionLevelLoss("m", "p", 8, 2, 1.0, 1.0, 2.0, 1000, 1000, 0.05, 200, 0.5, 0.3, 0.7,
                           1e-3, 10, 5e-4, 1, 0.1, 0.05, 0.69, None, 0.0073, 2.5e3)
    cheaper = replace(base, pair="q", refutation_runs=1e3)
    assert most_revealing([]) is None
    assert most_revealing([base, cheaper]).pair == "q"
    open_ = replace(base, pair="o", upper_bound=1.2, refutation_probability=None,
                    refutation_runs=None)
    assert most_revealing([base, open_, cheaper]).pair == "o"
    cheap, dear = (replace(base, pair="c", samples_needed=10_000),
                   replace(base, pair="d", samples_needed=90_000))
    assert most_revealing([open_, dear, cheap]).pair == "c"
    refuted = replace(dear, pair="r", lower_bound=1.1)
    assert most_revealing([open_, refuted, cheap]).pair == "r"


@pytest.mark.exact
def test_lazy_dp_ts_pairs_change_its_first_unclipped_epochs():
    from dpbandits.audit.design import designed_horizon

    pairs = designed_pairs("lazy-dp-ts", 2, 1.0)
    assert {p.step for p in pairs} == set(DESIGNS["lazy-dp-ts"].steps)
    assert designed_horizon("lazy-dp-ts", 2) == 96 and release_horizon("lazy-dp-ts", 2) == 3
    for p in pairs:
        assert p.T == 96 and ROW.distance(p.D0.X, p.D1.X) == 1
        assert np.all(p.D0.X[p.step - 1] == 1) and np.all(p.D1.X[p.step - 1] == 0)
        others = np.delete(np.arange(96), p.step - 1)
        assert np.all(p.D0.X[others, 0] == 0) and np.all(p.D0.X[:, 1] == 1)


@pytest.mark.exact
def test_adap_klucb_pairs_are_the_all_zero_table_with_one_row_of_ones():
    pairs = designed_pairs("adap-klucb", 2, 1.0)
    assert {p.step for p in pairs} == set(DESIGNS["adap-klucb"].steps)
    for p in pairs:
        assert (p.T, p.K) == (64, 2) and p.D0.X.sum() == 2 and p.D1.X.sum() == 0
        assert np.all(p.D0.X[p.step - 1] == 1)


@pytest.mark.exact
@pytest.mark.parametrize("K", [2, 3])
def test_private_ucb_pair_changes_arm_0s_leaf_1_on_the_all_zero_table(K):
    from dpbandits.audit.design import DESIGNED_ARMS, designed_horizon

    assert DESIGNED_ARMS["private-ucb"] == 2 and DESIGNS["private-ucb"].steps == (1,)
    assert designed_horizon("private-ucb", K) == 6 * K and release_horizon("private-ucb", K) == K + 1
    (p,) = designed_pairs("private-ucb", K, 1.0)
    assert (p.step, p.T, p.K) == (1, 6 * K, K) and ROW.distance(p.D0.X, p.D1.X) == 1
    assert p.D0.X.sum() == K and np.all(p.D0.X[0] == 1) and p.D1.X.sum() == 0
    assert designed_pairs("private-ucb", K, 1.0, T=K + 1) == []   # no tie reads leaf 1


@pytest.mark.exact
def test_private_ucb_index_at_equal_counts_is_the_difference_of_the_noisy_sums():
    """The design's premise: at equal pull counts n, Gamma_t / n and sqrt(2 ln t / n) cancel,
    so the index difference is (r_0 - r_1) / n exactly; at unequal counts (1 vs 2 pulls) the
    relaxation's Gamma_t / 2 outweighs the noise in all but a few runs (0.07% at round 4 over
    400 000 runs; this seed's 2000 runs, fixed, are checked at 99%)."""
    from dpbandits.reference import make

    policy = make("private-ucb", K=2, epsilon=1.0, rng=3, T=12, runs=2000)
    for t in (1, 2):
        policy.observe(t, policy.act(t), np.zeros(2000))
    index = policy.index(3)
    r = policy.trees.value
    assert np.allclose(index[:, 0] - index[:, 1], r[:, 0] - r[:, 1])
    a = policy.act(3)
    policy.observe(3, a, np.zeros(2000))
    assert np.mean(policy.act(4) == 1 - a) > 0.99        # the arm with one pull is played


@pytest.mark.statistical
def test_the_designed_pair_gives_private_ucb_a_positive_bound():
    """Seed 0 at the --all budget (20 000 test runs per side): the designed pair gives 0.101
    (the generic pairs at K = 3, T = 16 gave 0.000). Private-UCB is eps/K = 0.5-DP at K = 2, so a
    level-0.05 audit exceeds 0.5 with probability at most 0.05; the bound above 0.05 guards the
    design's power (over seeds 0 to 9 it ranged from 0.044 to 0.157, docs/audit-design.md)."""
    r = audit_algorithm("private-ucb", samples=20_000, seed=0)
    assert r.pair["description"].startswith("designed:") and (r.pair["K"], r.pair["T"]) == (2, 12)
    assert 0.05 < r.epsilon_lower_bound <= 0.5 and r.verdict == "consistent"
