"""``spg stats`` on a large corpus: summaries from counts per value (memory flat, figures exact) and ``--workers``
giving the table one process gives."""

from __future__ import annotations

import json
import statistics

from hypothesis import given
from hypothesis import strategies as st

from spg.cli import main
from spg.stats import ROWS, Summary, Tally


@given(st.lists(st.integers(0, 10**6) | st.integers(0, 5), min_size=1, max_size=60))
def test_a_summary_from_counts_is_exactly_the_summary_of_the_values(values):
    from collections import Counter

    got = Summary.of_counts(Counter(values))
    median = statistics.median(values)
    assert (got.mean, got.median, got.min, got.max) == (statistics.fmean(values), median, min(values), max(values))
    assert type(got.median) is type(median)


def test_a_tally_grows_with_distinct_values_not_with_documents():
    tally = Tally()
    for _ in range(10_000):
        tally.add((20, 3, 17, 4, 900, 12_000, 1))
    assert all(len(tally.counts[k]) == 1 for k in ROWS) and tally.gold == 10_000


def test_workers_give_the_table_one_process_gives(uspto_path, capsys):
    assert main(["stats", str(uspto_path), "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main(["stats", str(uspto_path), "--json", "--workers", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == one and one["documents"] == 397


def test_bad_records_with_workers_as_without(tmp_path, capsys):
    good = '{"id": "g", "claims": ["A lamp.", "The lamp of claim 1, red."]}'
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join([good, '{"id": "a", "claims": 3}', good, "xx", *[good] * 100]) + "\n")
    for workers in ([], ["--workers", "2"]):
        assert main(["stats", str(path), *workers]) == 2
        assert "line 2 (id a): field 'claims' must be" in capsys.readouterr().err
        assert main(["stats", str(path), "--skip-bad", "--json", *workers]) == 1
        out, err = capsys.readouterr()
        assert json.loads(out)["documents"] == 102 and json.loads(out)["skipped"] == 2
        assert [line.split(": ", 1)[1].split(" ")[1:3] for line in err.splitlines()[:2]] == [["line", "2"],
                                                                                            ["line", "4:"]]
