"""dpbandits: differentially private online learning, exact reference algorithms, audits, bounds.

Subpackages: :mod:`dpbandits.reference` (algorithms, mechanisms, environments, the engine),
:mod:`dpbandits.audit` (empirical privacy audits) and :mod:`dpbandits.bounds` (regret bounds).
"""

from .errors import DPBanditsError

__version__ = "0.1.0"
__all__ = ["DPBanditsError", "__version__"]
