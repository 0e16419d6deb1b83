"""The accountant against planted privacy breaks and harmless rewrites (docs/accountant.md).

Each planted class is a copy of a reference class whose methods see one changed name of their
module (the noise draw, the release, the report-noisy-max step) or one method recompiled from
the reference's source with one piece of one line rewritten (a decision rule: an elimination,
an epoch end, a lazy trigger), passed to the accountant through ``policy_class=``. A break must
move the traced bound above the claim (every one is found); a harmless rewrite must leave the
bound where it was (no false alarm). Kinds: exact (the traces are deterministic: fixed seeds,
fixed tables).
"""

from __future__ import annotations

import inspect
import linecache
import math
import textwrap
import types

import numpy as np
import pytest

from dpbandits.accountant import traced_upper
from dpbandits.reference import mechanisms, noise
from dpbandits.reference.registry import get

TOLERANCE = 1e-9


def planted(cls: type, module_globals: dict, **names) -> type:
    """A copy of ``cls`` whose methods defined in the module of ``module_globals`` see ``names``
    in place of that module's globals, and so does the shared lazy-epoch release
    (``mechanisms.release_epoch``) where the module releases through it."""
    patched = {**module_globals, **names}
    for key, value in module_globals.items():
        if value is mechanisms.release_epoch:
            patched[key] = types.FunctionType(value.__code__, {**value.__globals__, **names},
                                              value.__name__, value.__defaults__,
                                              value.__closure__)
    body: dict = {}
    for klass in cls.__mro__:
        if klass.__module__ != module_globals["__name__"]:
            continue
        for attr, value in vars(klass).items():
            if isinstance(value, types.FunctionType) and attr not in body:
                body[attr] = types.FunctionType(value.__code__, patched, value.__name__,
                                                value.__defaults__, value.__closure__)
                body[attr].__kwdefaults__ = value.__kwdefaults__
    return type(cls.__name__ + "Planted", (cls,), body)


def _module(name: str) -> dict:
    import sys
    return vars(sys.modules[get(name).__module__])


def _common(name: str) -> dict:
    import sys
    cls = get(name)
    for klass in cls.__mro__:
        if "release" in vars(sys.modules[klass.__module__]) and klass.__module__ != cls.__module__:
            return vars(sys.modules[klass.__module__])
    return _module(name)


# --- the changes -------------------------------------------------------------------------------

def halved(rng, scale, size):
    """Noise drawn at half the scale."""
    return noise.laplace(rng, np.asarray(scale) * 0.5, size)


def scaled_in_place(rng, scale, size):
    """The draw scaled by 1/2 after it was drawn (the same array object)."""
    z = noise.laplace(rng, scale, size)
    z *= 0.5
    return z


def zeroed_in_place(rng, scale, size):
    """The draw zeroed after it was drawn (the same array object)."""
    z = noise.laplace(rng, scale, size)
    z *= 0.0
    return z


_KEPT: dict = {}


def reused(rng, scale, size):
    """The first draw of each size kept and handed out again."""
    key = (id(rng), int(np.prod(size)))
    if key not in _KEPT:
        _KEPT[key] = noise.laplace(rng, scale, size)
    return _KEPT[key]


def unit_over_epsilon(rng, scale, size):
    """Harmless: Lap(1) times the scale (Lap(1)/eps for a scale 1/eps)."""
    return noise.laplace(rng, 1.0, size) * scale


def noiseless(value, z, kind="value"):
    """The statistic released with its noise multiplied by zero (a new array)."""
    return noise.release(value, np.asarray(z) * 0.0, kind)


def noise_plus_data(value, z, kind="value"):
    """Noise shifted by a tenth of the statistic: the noise moves with the data."""
    return noise.release(value, np.asarray(z) + 0.1 * np.asarray(value), kind)


def copied_noise(value, z, kind="value"):
    """Harmless: the noise copied before it is added."""
    return noise.release(value, np.array(z, copy=True), kind)


def plus_zero(value, z, kind="value"):
    """Harmless: the statistic plus 0.0 before it is released."""
    return noise.release(np.asarray(value) + 0.0, z, kind)


def reading_argmax(rng, scores, family, scale):
    """Report-noisy-max that also reads the noisy maximum value (and adds it to the scores)."""
    from dpbandits.reference.report_noisy_max import sample_noise
    Q = sample_noise(rng, family, scale, scores.shape)
    noisy = noise.release(scores, Q, kind="argmax")
    best = noisy.max(axis=-1)
    scores += 0.0 * best[:, None]
    return np.argmax(noisy, axis=-1)


def argmax_of_copy(rng, scores, family, scale):
    """Harmless: report-noisy-max written with the noise drawn by ``noise.draw``."""
    Q = noise.draw(rng, family, scale, scores.shape)
    return np.argmax(noise.release(scores, Q, kind="argmax"), axis=-1)


def rewritten(name: str, method: str, old: str, new: str, **names) -> type:
    """A copy of ``name``'s class whose ``method`` is the reference's source with its one
    occurrence of ``old`` replaced by ``new``, compiled in the method's module (whose globals
    ``names`` replace). A rewrite that no longer matches the reference fails here, loudly."""
    cls = get(name)
    function = getattr(cls, method)
    source = textwrap.dedent(inspect.getsource(function))
    assert source.count(old) == 1, (name, method, old)
    namespace: dict = {}
    filename = f"<{name}.{method}, planted>"
    planted_source = source.replace(old, new)
    linecache.cache[filename] = (len(planted_source), None, planted_source.splitlines(True),
                                 filename)          # so that coverage can read its branches
    code = compile(planted_source, filename, "exec")
    exec(code, {**function.__globals__, **names}, namespace)
    return type(cls.__name__ + "Planted", (cls,), {method: namespace[method]})


# --- the cases ---------------------------------------------------------------------------------

LAPLACE_FAMILIES = [("anytime-lazy-ucb", {}), ("lazy-dp-ts", {}), ("hybrid-ucb", {}),
                    ("dp-ucb-int", {"v": 1.5}), ("dpucb-mat", {}), ("adap-klucb", {}),
                    ("dp-se", {})]
"""One algorithm per family that draws Laplace noise in its own module (or its family's)."""

BREAKS = [(name, params, change) for name, params in LAPLACE_FAMILIES
          for change in ("laplace=halved", "laplace=scaled_in_place", "laplace=zeroed_in_place",
                         "release=noiseless")]
BREAKS += [(name, params, change) for name, params in LAPLACE_FAMILIES[:3]
           for change in ("laplace=reused", "release=noise_plus_data")]
BREAKS += [("rnm-ftnl", {}, "noisy_argmax=reading_argmax"),
           ("naive-ftnl", {}, "noisy_argmax=reading_argmax")]

HARMLESS = [(name, params, change) for name, params in LAPLACE_FAMILIES
            for change in ("laplace=unit_over_epsilon", "release=copied_noise", "release=plus_zero")]
HARMLESS += [("rnm-ftnl", {}, "noisy_argmax=argmax_of_copy"),
             ("rnm-ftnl-bq", {"Q": "laplace"}, "noisy_argmax=argmax_of_copy")]


def _size(name: str) -> dict:
    if name == "dp-se":
        return {}                       # its declared trace setting: its first epoch ends
    if get(name).feedback in ("semi", "full"):
        return {"K": 3, "T": 8}     # 3 experts: releasing the values costs more than the argmax
    return {"K": 2, "T": 12}


def _bound(name, params, policy_class=None):
    return traced_upper(name, seeds=(0,), enumerate=False, delta=0.0, policy_class=policy_class,
                        **_size(name), **params)


def _planted(name: str, change: str) -> type:
    attr, replacement = change.split("=")
    module = _module(name) if attr in _module(name) else _common(name)
    _KEPT.clear()
    return planted(get(name), module, **{attr: globals()[replacement]})


@pytest.mark.exact
@pytest.mark.parametrize("name, params, change", BREAKS, ids=[f"{n}:{c}" for n, _, c in BREAKS])
def test_every_planted_break_moves_the_bound_above_the_claim(name, params, change):
    honest = _bound(name, params)
    claimed = 1.0 if name != "dp-ucb-int" else honest.epsilon      # DP-UCB-INT: its own bound
    assert honest.epsilon <= claimed * (1 + TOLERANCE)
    broken = _bound(name, params, _planted(name, change))
    assert broken.epsilon > honest.epsilon * (1 + 1e-6), (name, change, broken.epsilon)


@pytest.mark.exact
@pytest.mark.parametrize("name, params, change", HARMLESS, ids=[f"{n}:{c}" for n, _, c in HARMLESS])
def test_harmless_rewrites_leave_the_bound_alone(name, params, change):
    honest = _bound(name, params)
    rewritten = _bound(name, params, _planted(name, change))
    assert rewritten.epsilon == pytest.approx(honest.epsilon, rel=1e-9)


DECISION_BREAKS = [
    ("dp-se", {}, "_end_epoch",
     "mu[run, arm] = release_epoch(self.rng, self.sums, (i[run], arm), scale,  # [l.7]\n"
     "                                 length=R[run])\n"
     "    self.mu_tilde[i[run], arm] = mu[run, arm]",
     "raw = self.sums[i[run], arm] / R[run]          # read before the release empties them\n"
     "    self.mu_tilde[i[run], arm] = release_epoch(self.rng, self.sums, (i[run], arm), scale,\n"
     "                                               length=R[run])\n"
     "    mu[run, arm] = raw"),
    ("dp-se", {}, "observe", "decision(self.pos,", "decision(self.sums.sum(axis=1),"),
    ("anytime-lazy-ucb", {}, "observe", "decision(self.N[rows, actions],",
     "decision(self.Phi[rows, actions],"),
    ("lazy-dp-ts", {}, "observe", "decision(self.N[rows, actions],",
     "decision(self.Phi[rows, actions],"),
    ("dp-ucb-int", {"v": 1.5}, "observe", "decision(self.n[rows, actions],",
     "decision(self.s[rows, actions],"),
    ("adap-klucb", {}, "observe", "np.flatnonzero(decision(self.left) == 0)",
     "np.flatnonzero(decision(self.length - self.total) == 0)"),
]
"""Decision rules rewritten to read raw data: DP-SE eliminating on the raw epoch means (the
releases still made) and ending its epoch on the raw reward sum; the lazy triggers (an epoch,
a release point, an episode) counting rewards instead of pulls. Hybrid-UCB has none: a tree
closed on anything but its leaf count overflows the tree (the policy raises), so its fill test
is kept to a harmless rewrite."""

DECISION_HARMLESS = [
    ("dp-se", {}, "_end_epoch", "(gap <= width)", "(width >= gap)"),
    ("dp-se", {}, "_end_epoch", "mu.max(axis=1, keepdims=True) - mu,",
     "-(mu - mu.max(axis=1, keepdims=True)),"),
    ("dp-se", {}, "observe", "pulls[going] == length[going]", "length[going] == pulls[going]"),
    ("anytime-lazy-ucb", {}, "observe", "pulls == np.left_shift(1, epoch + 1)",
     "np.left_shift(1, epoch + 1) == pulls"),
    ("hybrid-ucb", {}, "observe", "full = filled == leaves", "full = ~(filled != leaves)"),
]
"""The same rules written another way: a comparison turned round, a difference negated twice."""


def _ids(cases):
    return [f"{n}:{m}:{old.splitlines()[0]}" for n, _, m, old, _ in cases]


@pytest.mark.exact
@pytest.mark.parametrize("name, params, method, old, new", DECISION_BREAKS,
                         ids=_ids(DECISION_BREAKS))
def test_every_decision_on_raw_data_is_found_by_value(name, params, method, old, new):
    honest = _bound(name, params)
    broken = _bound(name, params, rewritten(name, method, old, new))
    assert math.isfinite(honest.epsilon) and math.isinf(broken.epsilon), (name, broken.epsilon)
    assert any("a decision's input that differs across runs" in f for f in broken.findings)


@pytest.mark.exact
@pytest.mark.parametrize("name, params, method, old, new", DECISION_HARMLESS,
                         ids=_ids(DECISION_HARMLESS))
def test_decisions_rewritten_harmlessly_leave_the_bound_alone(name, params, method, old, new):
    honest = _bound(name, params)
    rewrite = _bound(name, params, rewritten(name, method, old, new))
    assert rewrite.epsilon == pytest.approx(honest.epsilon, rel=1e-9)
    assert _unplaced(rewrite.findings) == _unplaced(honest.findings)


def _unplaced(findings) -> list[str]:
    """Findings with the place of a branch left out (a rewritten method has its own file)."""
    return [f.split(": ", 1)[0] + ": " + f.rsplit("(", 1)[-1] if f.startswith("branch never ran")
            else f for f in findings]


UNSEEN_BY_ACTIONS = [DECISION_BREAKS[i] for i in (0, 1, 5)]
"""The breaks whose traces move no action and no draw: DP-SE's raw elimination, its raw-sum
epoch end and AdaP-KLUCB's raw-sum episode end. The other three make the lockstep runs draw
different sizes and are found without any check of the code."""

FOUND_BY_THE_FLOW_CHECK = {1: True, 2: True, 0: False}
"""With ``decision`` switched off, which of UNSEEN_BY_ACTIONS the information-flow check still
finds: the raw-sum epoch end and episode end compare the raw value (a predicate on a watched
array); DP-SE's raw elimination copies the raw means into an array it allocates in the same
call and compares that, which the tracer does not follow (docs/accountant.md#what-the-tracer-
cannot-see), so only the decision check finds it."""


@pytest.mark.exact
@pytest.mark.parametrize("index", [0, 1, 2], ids=_ids(UNSEEN_BY_ACTIONS))
def test_these_breaks_are_found_by_value_not_by_an_action(index):
    """With the decision check switched off (``decision`` the identity) these traces stay
    finite unless the information-flow check reads the raw value in a predicate."""
    name, params, method, old, new = UNSEEN_BY_ACTIONS[index]
    unchecked = rewritten(name, method, old, new, decision=lambda *x: x[0] if len(x) == 1 else x)
    bound = _bound(name, params, unchecked)
    if FOUND_BY_THE_FLOW_CHECK[index]:
        assert math.isinf(bound.epsilon)
        assert any("a predicate" in f and "reads an unreleased reward-derived value" in f
                   for f in bound.findings), bound.findings
    else:
        assert bound.epsilon <= _bound(name, params).epsilon * (1 + TOLERANCE)
        assert not [f for f in bound.findings if not f.startswith("branch never ran")]


@pytest.mark.exact
def test_the_suite_plants_at_least_twenty_breaks_across_every_family():
    assert len(BREAKS) >= 20 and len(HARMLESS) >= 5
    assert {n for n, _, _ in BREAKS} >= {"anytime-lazy-ucb", "hybrid-ucb", "dp-ucb-int",
                                        "dpucb-mat", "dp-se", "rnm-ftnl", "naive-ftnl"}
    assert math.isfinite(_bound("anytime-lazy-ucb", {}).epsilon)


@pytest.mark.exact
@pytest.mark.parametrize("change, expected", [("laplace=halved", 2.0),
                                              ("release=noiseless", math.inf)])
def test_a_planted_break_moves_the_proof_at_its_size(change, expected):
    """The proof path (every action sequence on every {0, 1} table, K = 2, T = 6) sees the break
    too: the schedule does not move, so the status stays a proof, and the proven bound is the
    broken algorithm's."""
    honest = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0)
    broken = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0,
                          policy_class=_planted("anytime-lazy-ucb", change))
    assert honest.proof and honest.epsilon == pytest.approx(1.0)
    assert broken.proof and broken.epsilon == pytest.approx(expected)
