"""Where benchmarks find the shared data: ``$SPG_DATA_DIR`` or ``../shared/data`` beside the repo."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_file(relative: str) -> Path:
    path = Path(os.environ.get("SPG_DATA_DIR", REPO.parent / "shared" / "data")) / relative
    if not path.is_file():
        sys.exit(f"error: shared data file missing: {path} (set SPG_DATA_DIR)")
    return path
