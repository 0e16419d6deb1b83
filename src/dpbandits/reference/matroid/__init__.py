"""Matroid bandits: matroids with independence oracles, the greedy basis oracle, the environment
that wraps a reward source of the base arms, the four algorithms of Chandak, Hu and Hegde's
experiments (DPUCB-MAT, DPTS-MAT and the non-private OMM and CTS), and the papers' datasets.

The algorithms are reached through the registry (``dpbandits.reference.make("dpucb-mat", ...)``);
this package exports the pieces they run on.
"""

from .data import MATROID_SETTINGS, chandak_synthetic, load_movielens, matroid_setting, movielens_standin
from .environment import MatroidEnvironment, RowSampler
from .greedy import basis_value, greedy, greedy_generic, optimal_basis, optimal_value, priority_order
from .matroids import Graphic, Linear, Matroid, Partition, Uniform

__all__ = [
    "Matroid", "Uniform", "Partition", "Graphic", "Linear",
    "greedy", "greedy_generic", "priority_order", "optimal_basis", "optimal_value", "basis_value",
    "MatroidEnvironment", "RowSampler",
    "MATROID_SETTINGS", "matroid_setting", "chandak_synthetic", "load_movielens", "movielens_standin",
]
