"""The linear forms of the accountant's size-T mode (docs/accountant.md#proof-at-your-size):
a sum of leaves built one leaf at a time is kept as a run of cell ids in one growing buffer
instead of a chain of sums; it must flatten to exactly the numbers the chain of sums gives
(the same cells, the same coefficients to the last bit), whatever is built from it, whichever
of its prefixes were flattened before, and when an older sum is extended again (a branch).

Kinds: exact (seeded random programs of sums, scalings, differences and flattenings, each run
on both representations; no tolerance).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.reference.forms import ZERO, Form, Leaf, Opaque, _Run, _Sum, flatten


def _chain_add(a, leaf):
    """``a + leaf`` as the chain of sums builds it (the representation a run stands for)."""
    return leaf if a is ZERO else Form.__add__(a, leaf)


def _same(run_form, tree_form) -> None:
    ids_r, coefs_r = flatten(run_form)
    ids_t, coefs_t = flatten(tree_form)
    assert ids_r.dtype == ids_t.dtype and coefs_r.dtype == coefs_t.dtype
    assert np.array_equal(ids_r, ids_t)
    assert np.array_equal(coefs_r, coefs_t, equal_nan=True)
    assert coefs_r.tobytes() == coefs_t.tobytes()


@pytest.mark.parametrize("seed", range(12))
def test_a_run_flattens_to_the_numbers_of_its_chain_of_sums(seed):
    rng = np.random.default_rng(seed)
    pool = [Leaf(int(i)) for i in rng.permutation(40)]      # a few repeated cells per sum
    runs, trees = [ZERO], [ZERO]
    for _ in range(300):
        op = rng.random()
        j = int(rng.integers(len(runs)))
        if op < 0.6:                                # extend one sum by a leaf (old ones too)
            leaf = pool[int(rng.integers(len(pool)))]
            runs.append(runs[j] + leaf)
            trees.append(_chain_add(trees[j], leaf))
        elif op < 0.75:                             # flatten one (kept on it, as at a release)
            _same(runs[j], trees[j])
        elif op < 0.9:                              # a scaled difference of two
            k = int(rng.integers(len(runs)))
            c = float(rng.choice([0.5, 1.0 / 3.0, 0.1, -2.0, 7.0]))
            runs.append(runs[j] * c - runs[k])
            trees.append(trees[j] * c - trees[k])
        else:                                       # a sum of two built forms
            k = int(rng.integers(len(runs)))
            runs.append(runs[j] + runs[k])
            trees.append(trees[j] + trees[k])
    assert any(type(r) is _Run for r in runs)
    for r, t in zip(runs, trees):
        _same(r, t)


def test_extending_an_older_sum_leaves_the_newer_ones_unchanged():
    a, b, c, d = (Leaf(i) for i in (3, 1, 4, 2))
    s2 = a + b
    s3 = s2 + c                 # appended to s2's buffer
    branch = s2 + d             # s2 is no longer the newest: a branch that shares its ids
    s4 = s3 + d
    assert np.array_equal(flatten(s2)[0], [1, 3])
    assert np.array_equal(flatten(s3)[0], [1, 3, 4])
    assert np.array_equal(flatten(branch)[0], [1, 2, 3])
    assert np.array_equal(flatten(s4)[0], [1, 2, 3, 4])
    assert np.array_equal(flatten(branch + c)[0], [1, 2, 3, 4])
    assert np.array_equal(flatten(s4 + a)[1], [1.0, 1.0, 2.0, 1.0])


def test_an_opaque_part_of_a_run_is_unbounded_in_its_cells():
    run = Leaf(5) + Leaf(2) + Leaf(5)
    ids, coefs = flatten(run)
    assert np.array_equal(ids, [2, 5]) and np.array_equal(coefs, [1.0, 2.0])
    ids, coefs = flatten(Opaque([run]) + Leaf(9))
    assert np.array_equal(ids, [2, 5, 9]) and np.array_equal(coefs, [np.inf, np.inf, 1.0])
    assert flatten(_Sum(run, run * -1.0))[0].size == 0      # a zero sum keeps no cell


def _random_forms(seed: int, shape: tuple[int, int]) -> np.ndarray:
    """An object array of forms, most of them ZERO (as the tree counters' levels are)."""
    rng = np.random.default_rng(seed)
    f = np.empty(shape, dtype=object)
    f.fill(ZERO)
    for index in np.ndindex(*shape):
        u = rng.random()
        if u < 0.25:
            f[index] = Leaf(int(rng.integers(30)))
        elif u < 0.4:
            f[index] = Leaf(int(rng.integers(30))) + Leaf(int(rng.integers(30))) + Leaf(7)
        elif u < 0.45:
            f[index] = Leaf(int(rng.integers(30))) * -2.5
    return f


@pytest.mark.parametrize("seed", range(40))
def test_the_row_sums_and_mask_products_of_forms_are_numpys(seed):
    """The quick paths of the forms' arrays give what numpy's object loops give: a row sum of
    a 2-d array that adds only its non-ZERO forms, and a product by a 0/1 mask that keeps each
    form (the same object) or puts ZERO."""
    from dpbandits.reference.formed import _sum_rows, _ufunc_forms

    rng = np.random.default_rng(1000 + seed)
    shape = (int(rng.integers(1, 7)), int(rng.integers(1, 9)))
    ours, numpys = _sum_rows(_random_forms(seed, shape)), np.add.reduce(
        _random_forms(seed, shape), axis=1)     # built twice: a sum may extend a run's buffer
    for a, b in zip(ours, numpys):
        assert (a is ZERO) == (b is ZERO) and type(a) is type(b)
        _same(a, b)
    f = _random_forms(seed, shape)
    mask = rng.random(shape) < 0.5
    product = _ufunc_forms(np.multiply, "__call__", (None, mask), {}, shape, [f, None])
    expected = np.multiply(f, mask.astype(float).astype(object))
    assert all(a is b for a, b in zip(product.flat, expected.flat))
