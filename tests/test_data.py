import gzip
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from spg.data import (
    CHECKER_PERCENT,
    CHECKER_SPLITS,
    DEV_PERCENT,
    DataError,
    Record,
    checker_split,
    document_split,
    forest_from_json,
    load_records,
)
from spg.forest import Forest

CHAIR_FLAT = "1. A chair comprising a seat. 2. The chair of claim 1, wherein the seat is round. 3. A table."


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def parents(record: Record) -> dict[int, tuple[int, ...]]:
    return {c.num: c.parents for c in record.claims}


def hupd(app: str, claims: str = CHAIR_FLAT, **extra) -> dict:
    return {
        "application_number": app,
        "title": "Chair",
        "abstract": "A chair.",
        "claims": claims,
        "full_description": "A chair has a seat.",
        **extra,
    }


def test_jsonl_claim_records_use_gold_parents_not_the_wording(tmp_path):
    # claim 3's wording cites claim 1, its gold link says 2: the gold link wins.
    claims = [
        {"num": 1, "text": "1. A chair.", "parents": []},
        {"num": 2, "text": "2. The chair of claim 1.", "parents": [1]},
        {"num": 3, "text": "3. The chair of claim 1, wherein x.", "parents": [2]},
    ]
    path = write_jsonl(
        tmp_path / "p.jsonl",
        [{"id": "US1", "claims": claims, "has_gold_links": True, "description": "Chairs.", "kind": "grant"}],
    )
    (r,) = load_records(path)
    assert r.gold_links and r.id == "US1" and r.description == "Chairs."
    assert parents(r) == {1: (), 2: (1,), 3: (2,)}
    assert r.claims.by_num[2].text == "The chair of claim 1."
    assert r.source == f"{path}:1" and r.fields == {"kind": "grant"}


def test_parents_are_parsed_from_the_wording_when_has_gold_links_is_false(tmp_path):
    claims = [
        {"num": 1, "text": "1. A chair.", "parents": []},
        {"num": 2, "text": "2. The chair of claim 1.", "parents": [7]},
    ]
    (r,) = load_records(write_jsonl(tmp_path / "p.jsonl", [{"id": "X", "claims": claims, "has_gold_links": False}]))
    assert not r.gold_links and parents(r) == {1: (), 2: (1,)}


def test_claim_records_with_null_parents_are_parsed_and_not_gold(tmp_path):
    claims = [{"num": 1, "text": "1. A chair.", "parents": None}, {"num": 2, "text": "2. The chair of claim 1."}]
    (r,) = load_records(write_jsonl(tmp_path / "p.jsonl", [{"id": "X", "claims": claims}]))
    assert not r.gold_links and parents(r) == {1: (), 2: (1,)}


def test_hupd_folder_is_read_recursively_in_path_order(tmp_path):
    for split, app in (("train", "222"), ("test", "111"), ("train", "333")):
        (tmp_path / split).mkdir(exist_ok=True)
        (tmp_path / split / f"{app}.json").write_text(json.dumps(hupd(app, **{"Llama-3-8B-claim": "1. A stool."})))
    records = list(load_records(tmp_path))
    assert [r.id for r in records] == ["111", "222", "333"]  # test/ sorts before train/
    r = records[0]
    assert (r.title, r.abstract, r.description) == ("Chair", "A chair.", "A chair has a seat.")
    assert parents(r) == {1: (), 2: (1,), 3: ()}
    assert r.fields["Llama-3-8B-claim"] == "1. A stool." and r.fields["application_number"] == "111"
    assert r.source == str(tmp_path / "test" / "111.json")


def test_json_list_records_fall_back_to_the_file_stem_and_position_for_ids(tmp_path):
    path = tmp_path / "batch.json"
    path.write_text(
        json.dumps(
            [{"claims": ["A chair.", "The chair of claim 1."]}, {"patent_number": "9972749", "claims": "1. A table."}]
        )
    )
    a, b = load_records(path)
    assert (a.id, a.source) == ("batch[0]", f"{path}[0]")
    assert parents(a) == {1: (), 2: (1,)}
    assert b.id == "9972749" and len(b.claims) == 1


def test_single_json_object_without_id_takes_the_file_stem(tmp_path):
    path = tmp_path / "US42.json"
    path.write_text(json.dumps({"claims": CHAIR_FLAT, "description": "d"}))
    (r,) = load_records(path)
    assert (r.id, r.source, r.description) == ("US42", str(path), "d")


def test_json_file_holding_one_object_per_line_is_read_as_jsonl(tmp_path):
    path = write_jsonl(tmp_path / "lines.json", [hupd("1"), hupd("2")])
    assert [r.id for r in load_records(path)] == ["1", "2"]


def test_claims_text_stands_in_for_missing_claims(tmp_path):
    (r,) = load_records(write_jsonl(tmp_path / "p.jsonl", [{"id": "X", "claims_text": CHAIR_FLAT}]))
    assert len(r.claims) == 3 and "claims_text" not in r.fields


def test_malformed_claims_field_names_file_line_id_and_field(tmp_path):
    path = write_jsonl(tmp_path / "patents.jsonl", [hupd("1"), {"id": "US123", "claims": 5}])
    with pytest.raises(DataError) as e:
        list(load_records(path))
    msg = str(e.value)
    assert str(path) in msg and "line 2" in msg and "(id US123)" in msg
    assert "field 'claims' must be a string or a list of claims" in msg and "got int" in msg


def test_invalid_json_line_names_the_line(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [hupd("1"), "", '{"id": "broken", '])
    with pytest.raises(DataError, match=r"p\.jsonl line 3: not valid JSON"):
        list(load_records(path))


@pytest.mark.parametrize(
    ("claims", "field"),
    [
        ([{"num": 1, "text": "A."}, {"num": "2", "text": "B."}], "'claims[1].num' must be an integer, got str"),
        ([{"num": 1, "text": "A."}, {"num": 2}], "'claims[1].text' must be a string, got null"),
        ([{"num": 1, "text": "A.", "parents": "1"}], "'claims[0].parents' must be a list of claim numbers"),
        (["A chair.", 7], "'claims[1]' must be a claim text like claims[0], got int"),
        ([{"num": 1, "text": "A."}, "B."], "'claims[1]' must be an object with 'num' and 'text'"),
        ([{"gold_claim": "1. A.", "A": "1. B."}], "'claims[0]' must be an object with 'num' and 'text' .or a text., got one with keys gold_claim, A"),
    ],
)
def test_malformed_claim_entries_name_the_entry_and_field(tmp_path, claims, field):
    with pytest.raises(
        DataError, match=r"p\.jsonl line 1 \(id X\): field " + field.replace("[", r"\[").replace("]", r"\]")
    ):
        list(load_records(write_jsonl(tmp_path / "p.jsonl", [{"id": "X", "claims": claims}])))


def test_gold_flag_without_parent_lists_is_an_error(tmp_path):
    claims = [{"num": 1, "text": "A.", "parents": []}, {"num": 2, "text": "B of claim 1.", "parents": None}]
    with pytest.raises(DataError, match=r"'has_gold_links' is true but 'claims\[1\]\.parents' is not a list"):
        list(load_records(write_jsonl(tmp_path / "p.jsonl", [{"id": "X", "claims": claims, "has_gold_links": True}])))


def test_missing_claims_and_wrong_text_types_are_errors(tmp_path):
    with pytest.raises(DataError, match="line 1 \\(id X\\): missing field 'claims'"):
        list(load_records(write_jsonl(tmp_path / "a.jsonl", [{"id": "X", "description": "d"}])))
    with pytest.raises(DataError, match="field 'full_description' must be a string, got list"):
        list(load_records(write_jsonl(tmp_path / "b.jsonl", [{"id": "X", "claims": "1. A.", "full_description": []}])))


def test_records_without_claims_load_with_an_empty_forest_when_claims_are_not_required(tmp_path):
    path = write_jsonl(tmp_path / "docs.jsonl", [{"id": "X", "description": "A chair."},
                                                 {"id": "Y", "description": "A lamp.", "claims": "1. A lamp."}])
    x, y = load_records(path, require_claims=False)
    assert (x.id, x.description, x.claims, x.gold_links, x.fields) == ("X", "A chair.", Forest(), False, {})
    assert [c.text for c in y.claims] == ["A lamp."]  # claims present are still read


def test_non_object_in_a_json_list_names_the_record(tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps([hupd("1"), ["not", "a", "patent"]]))
    with pytest.raises(DataError, match=r"list\.json record 1: expected a JSON object \(one patent\), got list"):
        list(load_records(path))


def test_bad_paths_fail_when_load_records_is_called(tmp_path):
    with pytest.raises(DataError, match="no such file or folder"):
        load_records(tmp_path / "nope.jsonl")
    with pytest.raises(DataError, match="folder holds no"):
        load_records(tmp_path)
    (tmp_path / "claims.txt").write_text(CHAIR_FLAT)
    with pytest.raises(DataError, match="expected a folder of JSON files, a .json or a .jsonl file"):
        load_records(tmp_path / "claims.txt")


def test_skip_bad_reports_each_bad_record_and_keeps_the_good_ones(tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", [hupd("1"), "{oops", {"id": "B", "claims": 3}, hupd("2")])
    skipped: list[DataError] = []
    records = list(load_records(path, skip_bad=True, skipped=skipped))
    assert [r.id for r in records] == ["1", "2"]
    assert [("line 2" in str(e), "line 3" in str(e)) for e in skipped] == [(True, False), (False, True)]
    assert capsys.readouterr().err.count("skipped: ") == 2


def test_skip_bad_skips_an_unparseable_file_in_a_folder(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(hupd("1")))
    (tmp_path / "b.json").write_text("{ not json")
    skipped: list[DataError] = []
    assert [r.id for r in load_records(tmp_path, skip_bad=True, skipped=skipped)] == ["1"]
    assert "b.json: not valid JSON" in str(skipped[0])


def test_loading_streams_records_before_reaching_a_bad_line(tmp_path):
    it = load_records(write_jsonl(tmp_path / "p.jsonl", [hupd("1"), "{oops"]))
    assert next(it).id == "1"
    with pytest.raises(DataError):
        next(it)


def test_forest_from_json_accepts_texts_records_and_objects():
    texts = forest_from_json(["A chair.", "The chair of claim 1."], "x.json")
    records = forest_from_json([{"num": 1, "text": "A chair."}, {"num": 2, "text": "B.", "parents": [1]}], "x.json")
    obj = forest_from_json({"claims": CHAIR_FLAT}, "x.json")
    assert [c.parents for c in texts] == [c.parents for c in records] == [(), (1,)]
    assert len(obj) == 3
    with pytest.raises(DataError, match=r"^x\.json: field 'claims' must be"):
        forest_from_json(12, "x.json")


def test_real_uspto_corpus_loads_with_gold_links(uspto_path):
    records = list(load_records(uspto_path))
    assert len(records) == 397 and len({r.id for r in records}) == 397
    assert sum(r.gold_links for r in records) == 295
    raw = [json.loads(line) for line in uspto_path.read_text(encoding="utf-8").splitlines()]
    added = 0
    for r, row in zip(records, raw, strict=True):
        assert r.id == row["id"] and len(r.claims) == len(row["claims"])
        if row["has_gold_links"]:
            for claim, gold in zip(r.claims, row["claims"], strict=True):
                if claim.parents != tuple(sorted(set(gold["parents"]))):  # tags miss "any one of the preceding claims"
                    assert not gold["parents"] and claim.parents == tuple(range(1, claim.num))
                    assert re.search(r"(preceding|previous) claims", gold["text"])
                    added += 1
    assert added == 15
    assert records[0].fields["claims_text"].startswith("1. ")


def test_real_hupd_dcg_record_keeps_model_outputs(hupd_dcg_path):
    (r,) = load_records(hupd_dcg_path)
    raw = json.loads(hupd_dcg_path.read_text(encoding="utf-8"))
    assert r.id == "15561032" and not r.gold_links
    assert r.description == raw["full_description"] and r.title == raw["title"]
    assert len(r.claims) == 6 and r.claims.num_independent == 1
    outputs = [k for k in r.fields if k.endswith("-claim")]
    assert len(outputs) == 8 and r.fields["Llama-3-8B-claim"] == raw["Llama-3-8B-claim"]


def test_gzipped_jsonl_reads_like_the_plain_file(tmp_path):
    rows = [{"id": "A", "claims": CHAIR_FLAT, "description": "d"}, {"id": "B", "claims": CHAIR_FLAT}]
    plain = write_jsonl(tmp_path / "p.jsonl", rows)
    packed = tmp_path / "p.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert [(r.id, parents(r)) for r in load_records(packed)] == [(r.id, parents(r)) for r in load_records(plain)]
    assert next(iter(load_records(packed))).source == f"{packed}:1"


def test_gzipped_json_files_in_a_folder_are_read(tmp_path):
    (tmp_path / "a.json.gz").write_bytes(gzip.compress(json.dumps(hupd("7")).encode()))
    assert [r.id for r in load_records(tmp_path)] == ["7"]


def test_a_truncated_gzip_file_is_a_named_data_error(tmp_path):
    packed = tmp_path / "p.jsonl.gz"
    packed.write_bytes(gzip.compress(b'{"id": "A", "claims": "1. A chair."}\n' * 50)[:-20])
    with pytest.raises(DataError, match="p.jsonl.gz: cannot read"):
        list(load_records(packed))


def test_several_sources_are_read_in_the_order_given(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": "A1", "claims": CHAIR_FLAT}])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": "B1", "claims": CHAIR_FLAT}, {"id": "B2", "claims": CHAIR_FLAT}])
    assert [r.id for r in load_records([b, a])] == ["B1", "B2", "A1"]
    with pytest.raises(DataError, match="no such file"):
        load_records([a, tmp_path / "missing.jsonl"])
    with pytest.raises(DataError, match="one or more data paths"):
        load_records([])


def test_document_split_is_a_rule_on_the_id_alone():
    ids = [f"US{n}" for n in range(4000)]
    dev = [i for i in ids if document_split(i) == "dev"]
    assert abs(len(dev) / len(ids) - DEV_PERCENT / 100) < 0.01
    assert [document_split(i) for i in reversed(ids)] == [document_split(i) for i in ids][::-1]


def test_train_and_dev_splits_partition_the_records(tmp_path):
    rows = [{"id": f"D{i}", "claims": CHAIR_FLAT} for i in range(300)]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    train = [r.id for r in load_records(path, split="train")]
    dev = [r.id for r in load_records(path, split="dev")]
    assert sorted(train + dev) == sorted(r["id"] for r in rows) and not set(train) & set(dev)
    assert dev and all(document_split(i) == "dev" for i in dev)
    with pytest.raises(DataError, match="split must be one of"):
        load_records(path, split="test")


def test_real_corpora_split_into_about_a_hundred_dev_documents(uspto_path, pap2pat_path):
    dev = list(load_records([uspto_path, pap2pat_path], split="dev"))
    assert 80 <= len(dev) <= 120
    assert len({r.id for r in dev}) == len(dev)


def test_checker_split_is_a_rule_on_the_id_alone_with_every_side_of_the_shared_corpora(uspto_path):
    ids = [json.loads(line)["id"] for line in uspto_path.read_text(encoding="utf-8").splitlines()]
    sides = Counter(checker_split(i) for i in ids)
    assert set(sides) == set(CHECKER_SPLITS)
    for side, percent in CHECKER_PERCENT.items():  # 397 documents: each side within 8 points of its share
        assert abs(100 * sides[side] / len(ids) - percent) < 8, sides
    assert [checker_split(i) for i in reversed(ids)] == [checker_split(i) for i in ids][::-1]
    assert checker_split("US7156074B2") == checker_split("US7156074B2")
