"""The corpus figures printed in docs/data.md are what ``spg stats`` prints today (issue 13: the page said
5,530 dependent claims while the command printed 5,532)."""

from __future__ import annotations

from conftest import REPO

from spg.data import load_records
from spg.stats import corpus_stats, to_markdown


def test_the_uspto_table_in_docs_data_md_is_what_spg_stats_prints(uspto_path):
    page = (REPO / "docs" / "data.md").read_text(encoding="utf-8")
    printed = to_markdown(corpus_stats(load_records(uspto_path)))
    assert printed in page
