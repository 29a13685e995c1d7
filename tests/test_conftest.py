"""The test suite's own contract: under the README's test command a missing optional requirement fails, never skips."""

import pytest
from conftest import requirement_missing


def test_a_missing_requirement_fails_under_the_readme_test_command(monkeypatch):
    monkeypatch.setenv("SPG_TESTS_COMPLETE", "1")
    with pytest.raises(pytest.fail.Exception, match="scripts/setup.sh provides it"):
        requirement_missing("the cpu extra")


def test_a_missing_requirement_skips_in_a_partial_install(monkeypatch):
    monkeypatch.delenv("SPG_TESTS_COMPLETE", raising=False)
    with pytest.raises(pytest.skip.Exception):
        requirement_missing("the cpu extra")
