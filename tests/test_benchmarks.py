"""benchmarks/ as products: every script answers --help and finds the shared data through SPG_DATA_DIR
(benchmarks/common.py), never through a path written into it (docs/investigations.md)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

SCRIPTS = sorted(p for p in (REPO / "benchmarks").rglob("*.py") if p.name != "common.py")


def test_no_benchmark_writes_the_shared_data_path_into_itself():
    assert len(SCRIPTS) >= 13
    for script in SCRIPTS:
        assert "../shared" not in script.read_text(encoding="utf-8"), f"{script}: use common.shared_file"


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO / "benchmarks")))
def test_every_benchmark_answers_help(script, tmp_path):
    env = {**os.environ, "SPG_DATA_DIR": str(tmp_path)}  # --help must not need the data
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("usage:"), done.stderr[-2000:]
