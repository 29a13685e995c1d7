import json

from test_cli_lint import run, write


def jsonl(tmp_path, rows: list) -> str:
    return write(tmp_path, "d.jsonl", "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))


GOOD = {"id": "A", "claims": "1. A chair. 2. The chair of claim 1.", "description": "one two three"}


def test_stats_prints_the_markdown_table(tmp_path, capsys):
    code, out, _ = run(capsys, "stats", jsonl(tmp_path, [GOOD]))
    assert code == 0
    assert "| Claims / doc | 2.0 | 2 | 2 | 2 |" in out and "| Desc. words | 3.0 | 3 | 3 | 3 |" in out
    assert "Dependent-claim ratio: 50.0% (1 of 2 claims)" in out


def test_stats_json_and_skip_bad(tmp_path, capsys):
    path = jsonl(tmp_path, [GOOD, {"id": "B", "claims": 7}])
    code, _, err = run(capsys, "stats", path)
    assert code == 2 and "d.jsonl line 2 (id B): field 'claims'" in err
    code, out, err = run(capsys, "stats", "--skip-bad", "--json", path)
    stats = json.loads(out)
    assert code == 1 and stats["documents"] == 1 and stats["skipped"] == 1  # 1: records were skipped
    assert stats["rows"]["Dependent / doc"] == {"mean": 1.0, "median": 1, "min": 1, "max": 1}
    assert stats["dependent_ratio"] == 0.5 and "skipped 1 bad records" in err


def test_stats_exits_2_for_a_missing_data_source(tmp_path, capsys):
    code, _, err = run(capsys, "stats", str(tmp_path / "none.jsonl"))
    assert code == 2 and "none.jsonl: no such file or folder" in err


def test_stats_on_the_shared_corpus(uspto_path, capsys):
    code, out, _ = run(capsys, "stats", "--json", str(uspto_path))
    stats = json.loads(out)
    assert code == 0 and (stats["documents"], stats["gold_link_documents"]) == (397, 295)


def test_stats_exits_2_for_a_tokenizer_that_is_not_available_offline(tmp_path, capsys):
    code, out, err = run(capsys, "stats", "--tokenizer", str(tmp_path / "no-tokenizer"), jsonl(tmp_path, [GOOD]))
    assert (code, out) == (2, "") and "cannot load tokenizer" in err and "no-tokenizer" in err
