"""dpbandits: differentially private online learning, exact reference algorithms, audits, bounds.

Subpackages: :mod:`dpbandits.reference` (algorithms, mechanisms, environments, the engine),
:mod:`dpbandits.audit` (empirical privacy audits) and :mod:`dpbandits.bounds` (regret bounds).
"""

from .errors import DPBanditsError
from .reference.engine import register_backend as _register_backend


def _compiled_backend():
    """The engine's ``compiled`` backend: the kernels of :mod:`dpbandits.compiled`, imported on
    the first simulation that asks for them (they load numba)."""
    from . import compiled

    return compiled


_register_backend("compiled", _compiled_backend)

__version__ = "0.1.0"
__all__ = ["DPBanditsError", "__version__"]
