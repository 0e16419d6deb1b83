"""Each private bandit algorithm's single-part planted variants (``planted_parts``) plant what
they say: the planted policy differs from the reference in the declared attributes only, the
part it names moves and the other does not (the noise the mechanisms release, the bonus the
index adds), and its runs differ from the reference's on a fixed seed, so a declaration that
plants nothing fails.

Kind: exact (fixed seeds; the planted and the unplanted policy read the same random stream).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.reference import Bernoulli, get, make, simulate, spec
from dpbandits.validate.power import _Planted, plants

ALGORITHMS = {   # name -> (K, extra arguments, horizon at which the runs must differ)
    "anytime-lazy-ucb": (3, {}, 400),
    "lazy-dp-ts": (3, {}, 400),
    "adap-klucb": (3, {}, 400),
    "hybrid-ucb": (3, {}, 400),
    "dp-ucb": (3, {}, 400),
    "private-ucb": (3, {"T": 400}, 400),
    "dp-ucb-int": (3, {}, 400),
    "dp-se": (2, {"T": 1500, "beta": 1.0}, 1500),
}
"""DP-SE at K = 2 and beta = 1 ends its first epoch at round 710, so a schedule that doubles
R_1 is seen by T = 1500."""

PARTS = [(name, description) for name in ALGORITHMS
         for description in get(name).planted_parts]


def _build(name: str, scales=(), seed: int = 0):
    K, extra, _ = ALGORITHMS[name]
    factory = lambda runs, rng: make(name, K, epsilon=1.0, runs=runs, rng=rng, **extra)  # noqa: E731
    if scales:
        factory = _Planted(factory, (), scales)
    return factory(4, np.random.default_rng(seed))


def _scales(name: str, description: str):
    part, scales = get(name).planted_parts[description]
    return part, tuple(sorted(scales.items()))


def _released(name: str, policy) -> np.ndarray:
    """The white-box statistic after 4 K forced round-robin rounds on the all-zero table (so
    that it is the released noise alone), the same actions for every policy."""
    K = policy.K
    for t in range(1, 4 * K + 1):
        actions = np.full(policy.runs, (t - 1) % K)
        if name == "dp-ucb-int":
            policy.act(t)                 # DP-UCB-INT releases in act (l.7-l.9)
        if name == "adap-klucb":          # it checks its own episode's arm: initial pulls only
            if t > K:
                break
        policy.observe(t, actions, np.zeros(policy.runs))
    statistic = get(name).white_box_statistic
    owner = policy
    for attribute in statistic.split("."):
        owner = getattr(owner, attribute)
    return np.asarray(owner, dtype=float)


def _bonus(name: str, policy, t: int = 20) -> np.ndarray | None:
    """The part of the index that is not the released statistic, where the class exposes it."""
    if name == "hybrid-ucb":
        return policy.index(t) - policy.mu_tilde
    if name == "private-ucb":
        return np.full(1, policy.Gamma(t))
    if name == "anytime-lazy-ucb":   # l.4 without mu~_j, from the attributes act reads
        return 3.0 * np.log(t) / policy.epsilon * policy.inv_O
    return None


@pytest.mark.exact
def test_every_private_bandit_algorithm_declares_parts():
    assert {name for name, _ in PARTS} == set(ALGORITHMS)
    parts = {c.part for c in plants(get("anytime-lazy-ucb"), None, {}, 1.0)}
    assert {"bonus", "noise scale"} <= parts


@pytest.mark.exact
@pytest.mark.parametrize("name, description", PARTS)
def test_a_planted_part_changes_its_attributes_only(name, description):
    part, scales = _scales(name, description)
    plain, planted = _build(name), _build(name, scales)
    touched = {dotted.split(".")[0] for dotted, _ in scales}
    for attribute, value in vars(plain).items():
        if attribute in touched:
            continue
        other = vars(planted)[attribute]
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, other, equal_nan=True), attribute
    for dotted, factor in scales:
        *path, key = dotted.split(".")
        a, b = plain, planted
        for step in path:
            a, b = getattr(a, step), getattr(b, step)
        if isinstance(getattr(a, key), np.random.Generator):
            assert getattr(b, key)._factor == factor
        else:
            assert np.allclose(np.asarray(getattr(b, key)), factor * np.asarray(getattr(a, key)))


@pytest.mark.exact
@pytest.mark.parametrize("name, description", [p for p in PARTS if p[0] != "dp-se"])
def test_a_planted_part_moves_its_part_and_leaves_the_other(name, description):
    """The noise alone x f releases f x the same draws; the bonus alone releases the same draws
    and moves the index's bonus."""
    part, scales = _scales(name, description)
    plain, planted = _build(name), _build(name, scales)
    noise_plain, noise_planted = _released(name, plain), _released(name, planted)
    bonus_plain, bonus_planted = _bonus(name, plain), _bonus(name, planted)
    assert np.any(noise_plain != 0)
    if part == "noise scale":
        # the Laplace draws' or the trees' scale x f, or DP-UCB's budgets x 1/2 (noise x 2)
        factor = next((f for d, f in scales if d in ("rng", "trees.scale")), 2.0)
        assert np.allclose(noise_planted, factor * noise_plain)
        if bonus_plain is not None:
            assert np.allclose(bonus_planted, bonus_plain)
    else:
        assert part == "bonus"
        assert np.array_equal(noise_planted, noise_plain)
        if bonus_plain is not None:
            assert not np.allclose(bonus_planted, bonus_plain)


@pytest.mark.exact
def test_dp_se_schedule_alone_doubles_the_first_epoch():
    _, scales = _scales("dp-se", next(iter(get("dp-se").planted_parts)))
    plain, planted = _build("dp-se"), _build("dp-se", scales)
    assert np.array_equal(planted.R, 2 * plain.R)
    assert planted.noise_scale == plain.noise_scale and planted.epsilon == plain.epsilon


@pytest.mark.exact
@pytest.mark.parametrize("name, description", PARTS)
def test_a_planted_part_changes_the_runs_on_a_fixed_seed(name, description):
    K, extra, T = ALGORITHMS[name]
    _, scales = _scales(name, description)
    means = np.linspace(0.8, 0.2, K)
    plain = spec(name, K, epsilon=1.0, T=T, **{k: v for k, v in extra.items() if k != "T"})
    runs = {}
    for label, factory in (("plain", plain), ("planted", _Planted(plain, (), scales))):
        runs[label] = simulate(factory, Bernoulli(means), T, runs=20, seed=3,
                               record_actions=True, backend="reference").actions
    assert not np.array_equal(runs["plain"], runs["planted"])



PLANTED_CHANGES = {   # name -> (parts its planted_changes declare, epsilon, horizon of the runs)
    "ucb1": ({"confidence radius"}, None, 400),
    "thompson": ({"prior", "posterior draw"}, None, 400),
    "anytime-lazy-ucb": ({"confidence radius"}, 1.0, 400),
    "dp-ucb": ({"confidence radius"}, 1.0, 400),
    "dp-ucb-bound": ({"confidence radius"}, 4.0, 2000),
    "dp-ucb-int": ({"confidence radius"}, 1.0, 400),
    "hybrid-ucb": ({"confidence radius"}, 1.0, 400),
    "private-ucb": ({"confidence radius"}, 1.0, 400),
    "adap-klucb": ({"confidence radius"}, 4.0, 2000),
    "lazy-dp-ts": ({"prior", "posterior draw"}, 1.0, 400),
}
"""Every algorithm with a confidence radius plants one, and each Thompson sampling plants its
prior and its posterior draw; DP-UCB-BOUND's and AdaP-KLUCB's bonuses dominate their indices
for longer, so their radius shows later (at epsilon = 4, by T = 2000)."""

CHANGES = [(name, description) for name in PLANTED_CHANGES
           for description in get(name).planted_changes]


@pytest.mark.exact
@pytest.mark.parametrize("name", PLANTED_CHANGES)
def test_every_confidence_radius_and_thompson_part_has_a_planted_variant(name):
    parts, epsilon, _ = PLANTED_CHANGES[name]
    declared = {c.part for c in plants(get(name), None, {}, epsilon) if c.attributes}
    assert declared == parts


@pytest.mark.exact
@pytest.mark.parametrize("name, description", CHANGES)
def test_a_planted_change_changes_the_runs_and_the_kernel_refuses_it(name, description):
    from dpbandits import compiled

    _, epsilon, T = PLANTED_CHANGES[name]
    attributes = tuple(get(name).planted_changes[description].items())
    source = Bernoulli(np.array([0.8, 0.5, 0.2]))
    plain = spec(name, 3, **({} if epsilon is None else {"epsilon": epsilon}),
                 **({"T": T} if get(name).needs_horizon else {}))
    runs = {label: simulate(factory, source, T, runs=10, seed=3, record_actions=True,
                            backend="reference").actions
            for label, factory in (("plain", plain), ("planted", _Planted(plain, attributes)))}
    assert not np.array_equal(runs["plain"], runs["planted"])
    assert compiled.unsupported(plain(1, np.random.default_rng(0)), source) is None
    refused = compiled.unsupported(_Planted(plain, attributes)(1, np.random.default_rng(0)), source)
    assert refused is not None and "planted variant" in refused and attributes[0][0] in refused
