"""``python -m dpbandits.cli``: the same as the ``dpbandits`` command."""

import sys

from . import main

sys.exit(main())
