"""``python -m spg.cli`` (and ``accelerate launch -m spg.cli``) runs the ``spg`` command."""

import sys

from spg.cli import main

sys.exit(main())
