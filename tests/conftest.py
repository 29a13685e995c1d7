"""Shared fixtures: where the real data lives.

The shared corpus is read in place (``../shared/data`` beside the repo, or ``$SPG_DATA_DIR``).
A missing file is a test failure, never a skip: CI must not go green without the data.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


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
