"""Noise mechanisms: the Laplace mechanism (Fact B.1), the logarithmic, binary and hybrid counters of
Sec. 2 (Chan, Shi & Song), eq. (2.2) / Lemma B.2.

Kinds: exact (schedules, draws, scales, zero and scripted noise, reference tables), oracle (the
release's noise set, variance and per-item privacy loss from the draws the code records and an
independent model of the construction), property (Hypothesis: prefix sums on a grid),
statistical (Laplace moments and tail, error variance, the eq. (2.2) bound).

Model of a hybrid counter used below: its m-th insertion draws exactly one Laplace variable v_m.
At m = 2^j it is the logarithmic block (2^(j-1), 2^j] at scale 1/eps_L; otherwise, with
k = floor(log2 m) and local time tau = m - 2^k, it is the binary node of level i = lowest set bit
of tau, covering local times tau - 2^i + 1 .. tau, at scale k/eps_B. Release n = 2^k + tau adds
v_1, v_2, v_4, ..., v_(2^k) and, for each set bit l of tau, v_(2^k + (tau >> l << l)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpbandits.errors import DPBanditsError
from dpbandits.reference.mechanisms import (
    BinaryCounter,
    HybridCounter,
    LogarithmicCounter,
    binary_step,
    hybrid_budgets,
    hybrid_error_bound,
    hybrid_error_variance,
    hybrid_noise_terms,
    laplace,
    release_epoch,
)
from dpbandits.reference.noise import ScriptedNoise

SPLITS = ("chan", "paper")
N_TERMS_1_16 = [1, 2, 3, 3, 4, 4, 5, 4, 5, 5, 6, 5, 6, 6, 7, 5]          # worked by hand: one log term + set bits
VAR_PAPER_1_16 = [2, 4, 6, 6, 14, 14, 22, 8, 26, 26, 44, 26, 44, 44, 62, 10]  # property 13


def floor_log2(n: int) -> int:
    return n.bit_length() - 1


def is_power(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def release_slots(n: int) -> list[int]:
    """Insertion numbers whose draws are in release n of a hybrid counter (model above)."""
    k = floor_log2(n)
    tau = n - (1 << k)
    slots = [1 << j for j in range(k + 1)]
    slots += [(1 << k) + (tau >> l << l) for l in range(k) if tau >> l & 1]
    return slots


def draw_covers(m: int) -> range:
    """The items (1-based) whose sum the m-th insertion's draw noises (model above)."""
    if is_power(m):
        return range(m // 2 + 1, m + 1)
    k = floor_log2(m)
    tau = m - (1 << k)
    i = (tau & -tau).bit_length() - 1
    return range((1 << k) + tau - (1 << i) + 1, (1 << k) + tau + 1)


def slot_scale(m: int, eps_L: float, eps_B: float) -> float:
    return 1 / eps_L if is_power(m) else floor_log2(m) / eps_B


def call_scales(rng: ScriptedNoise) -> list[float]:
    """One scale per recorded draw, in draw order (a call's scale may be one value per row)."""
    out = []
    for scale, size in rng.calls:
        out.extend(np.broadcast_to(np.asarray(scale, dtype=float), (int(np.prod(size)),)).tolist())
    return out


def feed(counter, items) -> list[float]:
    """Insert items one at a time into a single counter; the release after each insertion."""
    releases = []
    for x in items:
        counter.insert(0, x)
        releases.append(float(counter.value[0]))
    return releases


# --- Laplace (property 1, section 3.1) ---------------------------------------------------------

@pytest.mark.statistical
def test_laplace_mean_variance_and_tail():
    """Property 1 with N = 400,000 draws at b = 1.7. Each check allows 5 standard errors (the
    variance's from Var[Y^2] = 20 b^4, the tail's binomial): under the normal approximation each
    fails with probability < 6e-7, the five together < 3e-6."""
    b, N = 1.7, 400_000
    y = laplace(np.random.default_rng(20160212), b, N)
    assert abs(y.mean()) < 5 * math.sqrt(2) * b / math.sqrt(N)
    assert abs(y.var() - 2 * b * b) < 5 * math.sqrt(20) * b * b / math.sqrt(N)
    for gamma in (0.5, 0.1, 0.01):
        freq = np.mean(np.abs(y) >= b * math.log(1 / gamma))           # Fact B.2
        assert abs(freq - gamma) < 5 * math.sqrt(gamma * (1 - gamma) / N)


@pytest.mark.exact
def test_laplace_draws_from_the_given_generator_only():
    rng = ScriptedNoise(values=[0.25, -1.5, 3.0])
    np.testing.assert_array_equal(laplace(rng, 2.0, 3), [0.25, -1.5, 3.0])
    assert rng.calls == [(2.0, 3)]
    a = laplace(np.random.default_rng(7), 1.0, 5)
    np.testing.assert_array_equal(a, laplace(np.random.default_rng(7), 1.0, 5))


@pytest.mark.exact
def test_release_epoch_adds_one_draw_per_ended_epoch_and_empties_its_sum():
    """Worked by hand: the sums of cells (0, 1) and (2, 0) plus the script's two draws, in the
    order of ``ends``; those two sums are emptied, every other cell is left alone."""
    Phi = np.array([[0.5, 3.0], [1.0, 2.0], [4.0, 0.25]])
    rng = ScriptedNoise(values=[0.125, -2.0])
    released = release_epoch(rng, Phi, (np.array([0, 2]), np.array([1, 0])), 0.5)
    np.testing.assert_array_equal(released, [3.125, 2.0])
    assert rng.calls == [(0.5, 2)]
    np.testing.assert_array_equal(Phi, [[0.5, 0.0], [1.0, 2.0], [0.0, 0.25]])
    # no ended epoch: no draw, nothing emptied
    assert release_epoch(rng, Phi, (np.array([], int), np.array([], int)), 0.5).size == 0
    assert rng.calls[-1] == (0.5, 0)
    np.testing.assert_array_equal(Phi, [[0.5, 0.0], [1.0, 2.0], [0.0, 0.25]])


@pytest.mark.exact
def test_release_epoch_of_means_and_flat_cells_is_the_arithmetic_it_replaces():
    """``length`` releases Phi / length + Lap(scale) (DP-SE's R_e, AdaP-KLUCB's n_a), with a
    scale per cell; flat indices address a 1-D sum (per run) or a flat view of a grid. Each
    value equals, bit for bit, the expression the algorithms wrote before the release was
    shared: the draws of a seeded generator, in the same order."""
    totals = np.array([7.0, 3.0, 5.0, 1.0])
    length = np.array([8.0, 3.0])
    scale = 1.0 / (0.7 * length)
    expected = totals[[0, 2]] / length + np.random.default_rng(3).laplace(0.0, scale, 2)
    released = release_epoch(np.random.default_rng(3), totals, np.array([0, 2]), scale,
                             length=length)
    np.testing.assert_array_equal(released, expected)
    np.testing.assert_array_equal(totals, [0.0, 3.0, 0.0, 1.0])
    grid = np.arange(6.0).reshape(2, 3)
    expected = (grid.reshape(-1)[[4, 1]] + np.random.default_rng(5).laplace(0.0, 2.0, 2)) / 4.0
    released = release_epoch(np.random.default_rng(5), grid.reshape(-1), np.array([4, 1]), 2.0)
    np.testing.assert_array_equal(released / 4.0, expected)
    np.testing.assert_array_equal(grid, [[0.0, 0.0, 2.0], [3.0, 0.0, 5.0]])


@pytest.mark.exact
def test_hybrid_budgets():
    assert hybrid_budgets(0.8, "chan") == (0.4, 0.4)
    assert hybrid_budgets(0.8, "paper") == (0.8, 0.8)
    with pytest.raises(DPBanditsError, match="split"):
        hybrid_budgets(1.0, "half")
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(DPBanditsError, match="epsilon"):
            hybrid_budgets(bad, "chan")


# --- Logarithmic mechanism (properties 2-4, section 3.2) --------------------------------------

@pytest.mark.exact
def test_logarithmic_counter_draws_at_powers_accumulates_and_holds_between():
    """Properties 2 and 4: one draw at counts 1, 2, 4, ... at scale 1/eps_L; L(2^k) is the prefix
    sum plus all k+1 draws so far (accumulated, never redrawn); between powers the release stays."""
    eps = 0.7
    values = np.random.default_rng(1).uniform(-2, 2, 10).tolist()
    rng = ScriptedNoise(values=values)
    counter = LogarithmicCounter(1, eps, rng)
    items = np.random.default_rng(2).random(100)
    releases = feed(counter, items)
    last = 0.0
    for n, released in enumerate(releases, start=1):
        k = floor_log2(n)
        if is_power(n):
            last = items[:n].sum() + sum(values[: k + 1])
        assert released == pytest.approx(last, abs=1e-12)
    assert rng.n_draws == floor_log2(100) + 1
    assert all(scale == pytest.approx(1 / eps) and size == 1 for scale, size in rng.calls
               if size)
    assert int(counter.count[0]) == 100


@pytest.mark.exact
def test_logarithmic_counter_with_unit_noise_counts_k_plus_one_terms():
    """Property 4 once more: with every draw equal to 1, L(2^k) - S(2^k) = k + 1 (a redraw at
    each power would give 1)."""
    counter = LogarithmicCounter(1, 1.0, ScriptedNoise(values=[1.0] * 20))
    items = np.random.default_rng(3).random(128)
    releases = feed(counter, items)
    for k in range(8):
        n = 1 << k
        assert releases[n - 1] - items[:n].sum() == pytest.approx(k + 1)


# --- Binary mechanism (properties 5-10, section 3.3) ------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("horizon, levels", [(1, 1), (7, 3), (8, 4), (100, 7)])
def test_binary_counter_one_draw_per_insertion_at_node_scale(horizon, levels):
    """Properties 5 and 10: levels = floor(log2 T) + 1, node scale levels/eps_B, one draw each."""
    eps = 0.9
    rng = ScriptedNoise()
    counter = BinaryCounter(1, eps, horizon, rng)
    assert counter.levels == levels
    assert counter.scale == pytest.approx(levels / eps)
    for tau in range(1, horizon + 1):
        counter.insert(0, 0.5)
        assert rng.n_draws == tau
    assert call_scales(rng) == pytest.approx([levels / eps] * horizon)
    with pytest.raises(DPBanditsError, match="horizon"):
        counter.insert(0, 0.5)


@pytest.mark.exact
def test_binary_counter_p_sums_and_released_nodes():
    """Properties 6-9: with unit noise the release at tau is S(tau) + popcount(tau); the p-sum
    created at tau (level i = lowest set bit) is the sum of items tau - 2^i + 1 .. tau; the lower
    p-sums are zeroed; with zero noise the release is S(tau)."""
    T = 100
    items = np.random.default_rng(4).random(T)
    ones = BinaryCounter(1, 1.0, T, ScriptedNoise(values=[1.0] * T))
    zero = BinaryCounter(1, 1.0, T, ScriptedNoise())
    for tau in range(1, T + 1):
        ones.insert(0, items[tau - 1])
        zero.insert(0, items[tau - 1])
        S = items[:tau].sum()
        assert ones.value[0] - S == pytest.approx(bin(tau).count("1"))
        assert zero.value[0] == pytest.approx(S, abs=1e-12)
        i = (tau & -tau).bit_length() - 1
        assert ones.alpha[0, i] == pytest.approx(items[tau - (1 << i): tau].sum())
        assert ones.alpha_hat[0, i] == pytest.approx(ones.alpha[0, i] + 1.0)
        assert not ones.alpha[0, :i].any() and not ones.alpha_hat[0, :i].any()


@pytest.mark.exact
def test_binary_step_rows_are_independent_counters():
    """binary_step on two rows at different local times, each with its own scale."""
    alpha = np.array([[0.25, 0.0, 0.0], [0.5, 1.0, 0.0]])     # row 0 after tau = 1; row 1 after 3
    alpha_hat = np.where(alpha != 0, alpha + 1.0, 0.0)
    rng = ScriptedNoise(values=[10.0, 20.0])
    out = binary_step(alpha, alpha_hat, np.array([2, 4]), np.array([0.5, 0.75]),
                      np.array([1.0, 3.0]), rng)
    np.testing.assert_allclose(alpha, [[0.0, 0.75, 0.0], [0.0, 0.0, 2.25]])
    np.testing.assert_allclose(alpha_hat, [[0.0, 10.75, 0.0], [0.0, 0.0, 22.25]])
    np.testing.assert_allclose(out, [10.75, 22.25])
    np.testing.assert_allclose(rng.calls[0][0], [1.0, 3.0])


# --- Hybrid mechanism (properties 11-19, section 3.4) -----------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("split", SPLITS)
def test_hybrid_one_draw_per_insertion_at_the_slot_scale(split):
    """Properties 10, 11, 17: insertion m draws once, at 1/eps_L if m = 2^j and otherwise at
    k/eps_B with k = floor(log2 m) (the binary part started at 2^k has k levels)."""
    eps = 1.3
    eps_L, eps_B = hybrid_budgets(eps, split)
    rng = ScriptedNoise()
    counter = HybridCounter(1, eps, rng, split=split)
    assert (counter.eps_L, counter.eps_B) == (eps_L, eps_B)
    for m in range(1, 131):
        counter.insert(0, 0.5)
        assert rng.n_draws == m
    expected = [slot_scale(m, eps_L, eps_B) for m in range(1, 131)]
    assert call_scales(rng) == pytest.approx(expected, rel=1e-14)


@pytest.mark.oracle
@pytest.mark.parametrize("split", SPLITS)
def test_hybrid_release_is_the_prefix_sum_plus_the_predicted_noise(split):
    """Properties 12, 14, 16: with distinct scripted draws, release n equals S(n) plus exactly the
    draws of the model's slots, N(n) of them; any other noise set would change the value."""
    N = 150
    values = np.random.default_rng(5).uniform(-3, 3, N)
    counter = HybridCounter(1, 1.0, ScriptedNoise(values=values), split=split)
    items = np.random.default_rng(6).random(N)
    releases = feed(counter, items)
    for n, released in enumerate(releases, start=1):
        slots = release_slots(n)
        assert len(set(slots)) == len(slots) == hybrid_noise_terms(n)
        expected = items[:n].sum() + sum(values[m - 1] for m in slots)
        assert released == pytest.approx(expected, abs=1e-10)


@pytest.mark.exact
def test_hybrid_noise_terms_reference_values_and_unit_noise_count():
    """N(1..16) worked by hand; with every draw equal to 1, H(n) - S(n) = N(n)."""
    assert [hybrid_noise_terms(n) for n in range(1, 17)] == N_TERMS_1_16
    N = 300
    counter = HybridCounter(1, 1.0, ScriptedNoise(values=[1.0] * N))
    items = np.random.default_rng(7).random(N)
    releases = feed(counter, items)
    for n in range(1, N + 1):
        assert releases[n - 1] - items[:n].sum() == pytest.approx(hybrid_noise_terms(n), abs=1e-9)
    with pytest.raises(DPBanditsError, match="n"):
        hybrid_noise_terms(0)


@pytest.mark.exact
def test_hybrid_item_at_a_power_of_two_enters_only_the_logarithmic_part():
    """Properties 16-17: at n = 2^k the binary state is empty (a new binary part starts); later
    the binary p-sums at the set bits of tau = n - 2^k hold items 2^k + 1 .. n, never item 2^k,
    and use only levels 0..k-1."""
    counter = HybridCounter(1, 1.0, ScriptedNoise())
    items = np.random.default_rng(8).random(200)
    for n in range(1, 201):
        counter.insert(0, items[n - 1])
        k = floor_log2(n)
        tau = n - (1 << k)
        if tau == 0:
            assert not counter.alpha.any() and not counter.alpha_hat.any()
            assert counter.log_release[0] == pytest.approx(items[:n].sum())
            continue
        bits = [l for l in range(k) if tau >> l & 1]
        assert counter.alpha[0, bits].sum() == pytest.approx(items[(1 << k): n].sum())
        assert not counter.alpha[0, k:].any()


@pytest.mark.exact
def test_hybrid_release_is_idempotent_and_draws_nothing():
    """reading the release draws no noise and changes nothing."""
    rng = ScriptedNoise(values=np.linspace(-1, 1, 11))
    counter = HybridCounter((2, 3), 1.0, rng)
    for _ in range(5):
        counter.insert((np.array([0, 1]), np.array([2, 0])), [0.5, 1.0])
    draws, first = rng.n_draws, counter.value.copy()
    for _ in range(4):
        np.testing.assert_array_equal(counter.value, first)
    assert rng.n_draws == draws == 10
    with pytest.raises(ValueError):
        counter.value[0, 0] = 1.0                  # the release is read-only


@pytest.mark.exact
@pytest.mark.parametrize("split", SPLITS)
def test_hybrid_error_variance_reference_values_and_oracle(split):
    """A table worked by hand (eps = 1; chan is 4x paper), and for n = 1..200 and
    eps = 0.6 the sum of 2 b^2 over the scales the code actually drew for release n."""
    factor = 4 if split == "chan" else 1
    assert [hybrid_error_variance(n, 1.0, split) for n in range(1, 17)] == pytest.approx(
        [factor * v for v in VAR_PAPER_1_16])
    rng = ScriptedNoise()
    counter = HybridCounter(1, 0.6, rng, split=split)
    for _ in range(200):
        counter.insert(0, 0.0)
    scales = call_scales(rng)
    for n in range(1, 201):
        oracle = sum(2 * scales[m - 1] ** 2 for m in release_slots(n))
        assert hybrid_error_variance(n, 0.6, split) == pytest.approx(oracle, rel=1e-12)


@pytest.mark.statistical
@pytest.mark.parametrize("split, eps", [("chan", 0.8), ("paper", 1.0)])
def test_hybrid_error_variance_matches_monte_carlo(split, eps):
    """Property 13 (S): 40,000 independent counters (one grid) fed random items; at each checked n
    the sample variance of H(n) - S(n) lies within 5 standard errors of the closed form, the
    standard error estimated from the sample's fourth moment. Per check the failure probability
    is < 6e-7 under the normal approximation; 7 checks per case, < 5e-6 in all."""
    M = 40_000
    data = np.random.default_rng(9)
    counter = HybridCounter(M, eps, np.random.default_rng(10 if split == "chan" else 11), split)
    sums = np.zeros(M)
    checked = {1, 3, 5, 8, 11, 15, 16}
    for n in range(1, 17):
        x = data.random(M)
        counter.insert(np.arange(M), x)
        sums += x
        if n in checked:
            err = counter.value - sums
            centred = err - err.mean()
            s2 = np.mean(centred ** 2)
            se = math.sqrt((np.mean(centred ** 4) - s2 ** 2) / M)
            assert abs(s2 - hybrid_error_variance(n, eps, split)) < 5 * se


@pytest.mark.exact
def test_error_bound_2_2_reference_values():
    """Section 3.4 / 4.2: (2.2) at eps = 1, log2: 900.0 (n = 1000, gamma = 1e-12) and 428.2
    (n = 100, gamma = 1e-8); the chan split doubles it."""
    assert hybrid_error_bound(1000, 1e-12, 1.0) == pytest.approx(900.0, abs=0.05)
    assert hybrid_error_bound(100, 1e-8, 1.0, "paper") == pytest.approx(428.2, abs=0.05)
    by_hand = math.sqrt(8) / 0.5 * math.log(4 / 0.01) * (math.log2(6) + 1)
    assert hybrid_error_bound(6, 0.01, 0.5) == pytest.approx(by_hand, rel=1e-14)
    assert hybrid_error_bound(6, 0.01, 0.5, "chan") == pytest.approx(2 * by_hand, rel=1e-14)
    for gamma in (0.0, 1.0, -0.5, float("nan")):
        with pytest.raises(DPBanditsError, match="gamma"):
            hybrid_error_bound(10, gamma, 1.0)
    with pytest.raises(DPBanditsError, match="split"):
        hybrid_error_bound(10, 0.1, 1.0, "half")
    with pytest.raises(DPBanditsError, match="epsilon"):
        hybrid_error_bound(10, 0.1, 0.0)


@pytest.mark.statistical
@pytest.mark.parametrize("split", SPLITS)
def test_error_bound_2_2_holds_with_probability_at_least_1_minus_gamma(split):
    """Property 18 (S): at (n, gamma) with ln(4/gamma) >= floor(log2 n) + 1 the error exceeds
    (2.2) (2x for chan) in at most a gamma fraction of 20,000 counters, up to 5 binomial standard
    errors: if the true rate is <= gamma, failure probability < 6e-7 per pair (normal approx.).
    The bound is loose, so the observed rate is far below gamma."""
    pairs = {3: 0.25, 7: 0.1, 15: 0.05, 16: 0.02}
    for n, gamma in pairs.items():
        assert math.log(4 / gamma) >= floor_log2(n) + 1
    M, eps = 20_000, 1.0
    counter = HybridCounter(M, eps, np.random.default_rng(12), split)
    data = np.random.default_rng(13)
    sums = np.zeros(M)
    for n in range(1, 17):
        x = data.random(M)
        counter.insert(np.arange(M), x)
        sums += x
        if n in pairs:
            gamma = pairs[n]
            rate = np.mean(np.abs(counter.value - sums) > hybrid_error_bound(n, gamma, eps, split))
            assert rate <= gamma + 5 * math.sqrt(gamma * (1 - gamma) / M)


def item_losses(split: str, eps: float, N: int) -> np.ndarray:
    """Privacy loss of items 1..N after N insertions: the sum over the draws whose noised sum
    contains the item of 1/scale, with the scales the code recorded (oracle for property 19)."""
    rng = ScriptedNoise()
    counter = HybridCounter(1, eps, rng, split=split)
    for _ in range(N):
        counter.insert(0, 0.5)
    scales = call_scales(rng)
    loss = np.zeros(N + 1)
    for m, scale in enumerate(scales, start=1):
        for i in draw_covers(m):
            loss[i] += 1 / scale
    return loss[1:]


def noised_nodes(i: int, N: int) -> int:
    """m_i: noised binary nodes containing item i = 2^k + tau after N insertions. The level-l
    dyadic block containing tau ends at local time e; it is noised (at e) only if it was
    received by then and l is the lowest set bit of e (one p-sum per insertion)."""
    k = floor_log2(i)
    tau = i - (1 << k)
    last = min((1 << k) - 1, N - (1 << k))         # local times the binary part has received
    ends = [((((tau - 1) >> l) + 1) << l, l) for l in range(k)]
    return sum(e <= last and (e & -e) == 1 << l for e, l in ends)


@pytest.mark.oracle
@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("N", [64, 77])
def test_exact_privacy_loss_of_each_item(split, N):
    """Property 19 and docs/errata.md#td-hybrid-budget: the loss of item i is eps_L at a power of 2, otherwise
    eps_L [its logarithmic block is released] + eps_B m_i / k; the maximum is eps_L + eps_B
    (eps for chan, 2 eps for paper), attained at items 2^k + 1 once 2^(k+1) is reached."""
    eps = 1.1
    eps_L, eps_B = hybrid_budgets(eps, split)
    loss = item_losses(split, eps, N)
    for i in range(1, N + 1):
        if is_power(i):
            expected = eps_L
        else:
            k = floor_log2(i)
            expected = eps_L * (N >= 2 << k) + eps_B * noised_nodes(i, N) / k
        assert loss[i - 1] == pytest.approx(expected, rel=1e-12), i
    assert loss.max() == pytest.approx(eps_L + eps_B)
    attained = set(np.flatnonzero(np.isclose(loss, eps_L + eps_B)) + 1)
    assert attained == {(1 << k) + 1 for k in range(1, 7) if (2 << k) <= N}
    assert loss.max() == pytest.approx(eps if split == "chan" else 2 * eps)


# --- Grids, zero noise, bad input (properties 3, 9, 14) ---------------------------------------

@st.composite
def grid_streams(draw):
    """A grid of 3 counters and up to 70 steps, each step feeding a random subset of them."""
    steps = draw(st.integers(1, 70))
    masks = draw(st.lists(st.lists(st.booleans(), min_size=3, max_size=3),
                          min_size=steps, max_size=steps))
    items = draw(st.lists(st.lists(st.floats(0, 1), min_size=3, max_size=3),
                          min_size=steps, max_size=steps))
    return np.array(masks, dtype=bool), np.array(items, dtype=float)


@pytest.mark.property
@given(grid_streams())
def test_zero_noise_releases_are_prefix_sums_on_a_grid(stream):
    """Properties 3, 9, 14 for any subset pattern: with zero noise the hybrid and binary counters
    release each counter's exact prefix sum after every insertion, the logarithmic counter the
    prefix sum at its last power of 2; with unit noise the hybrid adds exactly N(count)."""
    masks, items = stream
    hybrid = HybridCounter(3, 1.0, ScriptedNoise())
    binary = BinaryCounter(3, 1.0, 70, ScriptedNoise())
    logarithmic = LogarithmicCounter(3, 1.0, ScriptedNoise())
    ones = HybridCounter(3, 1.0, ScriptedNoise(values=[1.0] * 210))
    received: list[list[float]] = [[], [], []]
    for mask, x in zip(masks, items):
        where = np.flatnonzero(mask)
        for counter in (hybrid, binary, logarithmic, ones):
            counter.insert(where, x[where])
        for j in where:
            received[j].append(x[j])
        counts = [len(r) for r in received]
        np.testing.assert_array_equal(hybrid.count, counts)
        exact = np.array([math.fsum(r) for r in received])
        np.testing.assert_allclose(hybrid.value, exact, atol=1e-9)
        np.testing.assert_allclose(binary.value, exact, atol=1e-9)
        at_power = np.array([math.fsum(r[: 1 << floor_log2(len(r))]) if r else 0.0
                             for r in received])
        np.testing.assert_allclose(logarithmic.value, at_power, atol=1e-9)
        terms = np.array([hybrid_noise_terms(c) if c else 0 for c in counts])
        np.testing.assert_allclose(ones.value - exact, terms, atol=1e-9)


@pytest.mark.exact
def test_counters_refuse_bad_input():
    for make in (lambda rng: HybridCounter((2, 2), 1.0, rng),
                 lambda rng: BinaryCounter((2, 2), 1.0, 8, rng),
                 lambda rng: LogarithmicCounter((2, 2), 1.0, rng)):
        counter = make(ScriptedNoise())
        with pytest.raises(DPBanditsError, match="at most one item"):
            counter.insert(np.array([1, 1]), 0.5)
        for bad in (1.5, -0.1, float("nan")):
            with pytest.raises(DPBanditsError, match=r"\[0, 1\]"):
                counter.insert((np.array([0]), np.array([1])), bad)
        for where in (np.array([-1]), np.array([4]), (np.array([2]), np.array([0]))):
            with pytest.raises(DPBanditsError, match="where"):
                counter.insert(where, 0.5)
        assert not counter.count.any()                       # nothing was inserted
    for bad in ((), 0, (2, 0)):
        with pytest.raises(DPBanditsError, match="shape"):
            HybridCounter(bad, 1.0, ScriptedNoise())
    with pytest.raises(DPBanditsError, match="epsilon"):
        HybridCounter(2, 0.0, ScriptedNoise())
    with pytest.raises(DPBanditsError, match="split"):
        HybridCounter(2, 1.0, ScriptedNoise(), split="even")
    with pytest.raises(DPBanditsError, match="horizon"):
        BinaryCounter(2, 1.0, 0, ScriptedNoise())
