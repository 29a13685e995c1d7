"""Shared fixtures: where the real data lives; how many threads the tests' models use.

The shared corpus is read in place (``../shared/data`` beside the repo, or ``$SPG_DATA_DIR``).
A missing file is a test failure, never a skip: CI must not go green without the data.

Tiny random models (tests/tiny.py: 32-wide matrices) run on one thread: a second OpenMP thread only adds
synchronisation, and on a busy machine its spin-waits dominate (a 30-token tiny ``generate`` took 13 s on two
threads while other jobs shared the two cores, 0.36 s on one). Set here, before torch is imported, so launched
processes inherit it. The real-model tests (marked ``slow``) get every core back, unless ``OMP_NUM_THREADS`` was set
by whoever ran pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_THREADS_GIVEN = "OMP_NUM_THREADS" in os.environ
os.environ.setdefault("OMP_NUM_THREADS", "1")


def real_model_threads() -> str:
    """``OMP_NUM_THREADS`` for what runs the real model (a test, or a process one starts): this worker's share of the
    cores (pytest-xdist runs the suite in several processes: scripts/test.sh), unless whoever ran pytest set it."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    return os.environ["OMP_NUM_THREADS"] if _THREADS_GIVEN else str(max(1, (os.cpu_count() or 1) // workers))


@pytest.fixture(autouse=True)
def _every_core_for_real_models(request):
    if _THREADS_GIVEN or request.node.get_closest_marker("slow") is None:
        yield
        return
    import torch

    cores = real_model_threads()
    os.environ["OMP_NUM_THREADS"] = cores
    torch.set_num_threads(int(cores))
    try:
        yield
    finally:
        os.environ["OMP_NUM_THREADS"] = "1"
        torch.set_num_threads(1)


def requirement_missing(what: str, module_level: bool = False) -> None:
    """Skip a test whose optional requirement (an extra, the converted embedded model) is missing, unless the README's
    test command runs it (``SPG_TESTS_COMPLETE``, set by scripts/test.sh after setup installed everything): there a
    missing requirement is a failure, so CI cannot go green without running the test."""
    if os.environ.get("SPG_TESTS_COMPLETE"):
        pytest.fail(f"{what} is missing, though scripts/setup.sh provides it", pytrace=False)
    pytest.skip(f"{what} is missing", allow_module_level=module_level)


def shared_data_dir() -> Path:
    return Path(os.environ.get("SPG_DATA_DIR", REPO.parent / "shared" / "data"))


def shared_file(relative: str) -> Path:
    path = shared_data_dir() / relative
    if not path.is_file():
        pytest.fail(f"shared data file missing: {path} (set SPG_DATA_DIR to the folder holding uspto/, pap2pat/, hupd-dcg/, patclaimeval/)")
    return path


@pytest.fixture(scope="session")
def uspto_path() -> Path:
    return shared_file("uspto/patents.jsonl")


@pytest.fixture(scope="session")
def pap2pat_path() -> Path:
    return shared_file("pap2pat/patents.jsonl.gz")


@pytest.fixture(scope="session")
def hupd_dcg_path() -> Path:
    return shared_file("hupd-dcg/sample_outputs.json")


@pytest.fixture(scope="session")
def patclaimeval_path() -> Path:
    return shared_file("patclaimeval/quality_test.json")


def cli_in_a_fresh_process(argvs: list[list[str]], before: str = "", env: dict[str, str] | None = None) -> list:
    """(exit status, stderr, whether torch was imported) of ``spg.cli.main`` on each argument list, run one after
    another in one new Python process (after the statements ``before``): what a user's command line meets before
    anything is loaded, which the test process, with torch long imported, cannot show."""
    script = f"""
import contextlib, io, json, sys
{before}
from spg.cli import main
out = []
for argv in {argvs!r}:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    out.append((code, err.getvalue(), "torch" in sys.modules))
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
