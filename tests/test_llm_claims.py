"""benchmarks/llm_claims.py: the blind readers' packet and the scorer, on a toy corpus and two sheets written by hand."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))  # the script's folder, as when it runs: its common.py
spec = importlib.util.spec_from_file_location("llm_claims", REPO / "benchmarks" / "llm_claims.py")
llm_claims = importlib.util.module_from_spec(spec)
spec.loader.exec_module(llm_claims)

LAMP = "1. A lamp comprising a base and a shade."
ITEMS = [
    # a restatement of claim 1 (lint: duplicate-claim / not-further-limiting), both readers say so
    {"id": "Lrep", "source": "gen-a", "doc": "D1", "split": "train", "claim": 2, "independent": False,
     "context": LAMP, "candidate": "2. The lamp of claim 1, wherein the lamp comprises a base and a shade."},
    # another subject (lint: preamble-mismatch), and a term without basis (lint: antecedent)
    {"id": "Lpre", "source": "gen-a", "doc": "D1", "split": "train", "claim": 3, "independent": False,
     "context": LAMP, "candidate": "3. The bicycle of claim 1, wherein the bulb is mounted to the base."},
    # clean, on another side and source
    {"id": "Lok", "source": "gen-b", "doc": "D2", "split": "test", "claim": 2, "independent": False,
     "context": LAMP, "candidate": "2. The lamp of claim 1, wherein the shade is made of glass."},
    {"id": "Lind", "source": "gen-b", "doc": "D3", "split": "test", "claim": 1, "independent": True,
     "context": "", "candidate": "1. A chair comprising a seat and four legs."},
]


def _answer(id_, repetition="no", preamble="no", antecedent=(), error_free="yes", other=""):
    return {"id": id_, "repetition": repetition, "preamble": preamble, "antecedent": list(antecedent),
            "other": other, "error_free": error_free}


SHEET_A = [_answer("Lrep", repetition="yes", error_free="no"),
           _answer("Lpre", preamble="yes", antecedent=["the bulb"], error_free="no"),
           _answer("Lok"), _answer("Lind", "n/a", "n/a")]
# B disagrees on the clean claim (a term it thinks lacks basis) and calls the repetition no repetition
SHEET_B = [_answer("Lrep", error_free="no"),
           _answer("Lpre", preamble="yes", antecedent=["The bulb"], error_free="no"),
           _answer("Lok", antecedent=["the shade"], error_free="no"), _answer("Lind", "n/a", "n/a")]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path):
    return _write(tmp_path / "items.jsonl", ITEMS)


def test_kappa_is_cohens():
    # 3 of 4 agree; each says yes twice: expected agreement 0.5, kappa (0.75 - 0.5) / 0.5
    assert llm_claims.kappa([(True, True), (True, False), (False, True), (False, False)]) == 0.0
    assert llm_claims.kappa([(True, True), (True, True), (False, True), (False, False)]) == pytest.approx(0.5)
    assert llm_claims.kappa([(True, True), (True, True)]) is None


def test_two_sheets_scored_agreement_consensus_and_lint(tmp_path, corpus, capsys):
    report = llm_claims.score(_write(tmp_path / "a.jsonl", SHEET_A), _write(tmp_path / "b.jsonl", SHEET_B), corpus)
    agreement = report["agreement"]
    assert report["items"] == 4
    assert agreement["preamble"] == {"kappa": pytest.approx(1.0), "agree": 3, "n": 3}  # "n/a" left out
    assert agreement["repetition"]["agree"] == 2 and agreement["repetition"]["kappa"] == pytest.approx(0.0)
    # error_free: A yes on Lok and Lind, B only on Lind: 3 of 4 agree, kappa (0.75 - 0.5) / 0.5
    assert agreement["error_free"] == {"kappa": pytest.approx(0.5), "agree": 3, "n": 4}
    every = report["lint"]["all:all"]
    assert every["repetition"] == [0, 0]  # no consensus repetition: B said no
    assert every["preamble"] == [1, 1]  # the bicycle, found
    assert every["error_free"] == [0, 1]  # only the chair is error-free on both sheets, and not flagged
    # "the bulb" on both sheets ("The bulb" is the same term), warned by spg; "the shade" only on B
    assert (every["terms"], every["terms_found"], every["warnings"], every["warnings_real"]) == (1, 1, 1, 1)
    assert every["warnings_either"] == 1
    assert report["lint"]["split:test"]["error_free"] == [0, 1] and "source:gen-a" in report["lint"]
    assert "preamble: kappa 1.00, agreeing 3/3" in capsys.readouterr().out


def test_a_repetition_both_readers_see_is_counted_as_found(tmp_path, corpus):
    both = [dict(row, repetition="yes") if row["id"] == "Lrep" else row for row in SHEET_B]
    every = llm_claims.score(_write(tmp_path / "a.jsonl", SHEET_A), _write(tmp_path / "b.jsonl", both),
                             corpus)["lint"]["all:all"]
    assert every["repetition"] == [1, 1]


@pytest.mark.parametrize(("row", "expected"), [
    ({"id": "Lnone"}, "\"id\" 'Lnone' is no item"),
    (_answer("Lind", repetition="maybe"), "\"repetition\" must be one of yes, no, n/a, got 'maybe'"),
    (_answer("Lok", repetition="n/a"), "\"repetition\" must be one of yes, no, got 'n/a'"),
    (dict(_answer("Lok"), antecedent="the shade"), "\"antecedent\" must be a list"),
])
def test_a_bad_answer_is_one_line_naming_the_sheet_and_item(tmp_path, corpus, capsys, row, expected):
    with pytest.raises(SystemExit) as stop:
        llm_claims.score(_write(tmp_path / "a.jsonl", [row]), _write(tmp_path / "b.jsonl", SHEET_B), corpus)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "a.jsonl answer 1" in err and expected in err, err


def test_the_packet_holds_only_what_a_blind_reader_needs(tmp_path, corpus):
    llm_claims.packet(tmp_path / "packet", corpus)
    folder = tmp_path / "packet"
    items = [json.loads(line) for line in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    template = [json.loads(line) for line in (folder / "sheet_template.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(i["id"] for i in items) == sorted(i["id"] for i in ITEMS)
    assert all(set(i) == {"id", "independent", "context", "candidate"} for i in items)  # no source, no split
    assert [t["id"] for t in template] == [i["id"] for i in items]
    assert "gen-a" not in "".join(p.read_text(encoding="utf-8") for p in folder.iterdir())
    assert {p.name for p in folder.iterdir()} == {"items.jsonl", "sheet_template.jsonl", "rubric.md", "INSTRUCTIONS.md"}


def test_a_packet_is_never_written_over_a_folder_holding_files(tmp_path, corpus, capsys):
    folder = tmp_path / "packet"
    folder.mkdir()
    (folder / "sheet.jsonl").write_text("a labeller's answers\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        llm_claims.packet(folder, corpus)
    assert exit_.value.code == 2 and "not empty" in capsys.readouterr().err
    assert [p.name for p in folder.iterdir()] == ["sheet.jsonl"]
    assert (folder / "sheet.jsonl").read_text(encoding="utf-8") == "a labeller's answers\n"


def test_a_packet_of_one_batch_holds_only_its_items(tmp_path, corpus, capsys):
    second = [dict(item, batch=2, settings={"temperature": 0.7}) for item in ITEMS[:2]] + ITEMS[2:]
    corpus = _write(tmp_path / "two_batches.jsonl", second)
    llm_claims.packet(tmp_path / "packet", corpus, batch=2)
    items = [json.loads(line) for line in (tmp_path / "packet" / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(i["id"] for i in items) == ["Lpre", "Lrep"]
    assert all(set(i) == {"id", "independent", "context", "candidate"} for i in items)  # no batch, no settings
    with pytest.raises(SystemExit) as exit_:
        llm_claims.packet(tmp_path / "packet3", corpus, batch=3)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "no item of batch 3" in err
    assert not (tmp_path / "packet3").exists()


def test_the_second_batch_asks_for_next_claims_after_the_largest_smallest_and_middle_k():
    assert llm_claims.spread([1, 2, 3, 5, 7, 9], 3) == [9, 1, 3]
    assert llm_claims.spread([2, 4], 3) == [4, 2]
    assert llm_claims.next_ks([{"num": 1, "text": "1. A lamp comprising a base."},
                               {"num": 2, "text": "2. The lamp of claim 1, wherein the base is round."},
                               {"num": 3, "text": "3. A chair comprising a seat."},
                               {"num": 4, "text": "4. The chair of claim 3, wherein the seat is soft."}]) == [1, 3]


def test_a_next_claim_is_the_first_claim_the_model_wrote_numbered_k_plus_1(tmp_path):
    claims = [{"num": 1, "text": "1. A lamp comprising a base and a shade.", "parents": []},
              {"num": 2, "text": "2. The lamp of claim 1, wherein the shade is glass.", "parents": [1]}]
    documents = {d: {"id": d, "claims": claims} for d in ("D1", "D2", "D3", "D4")}
    rows = [
        {"id": "D1", "k": 2, "raw": "The next claim is: 4. The lamp of claim 2, wherein the glass is frosted.",
         "cut_by_budget": ""},
        {"id": "D2", "k": 2, "raw": "1. The lamp of claim 1, wherein the base is round.\n2. The lamp of claim 1.",
         "cut_by_budget": ""},
        {"id": "D3", "k": 1, "raw": "", "cut_by_budget": "1. A lamp comprising a base and a shade, wherein the"},
        {"id": "D4", "k": 1, "raw": "Sure!", "cut_by_budget": ""},  # no claim at all: dropped
    ]
    items = {i["doc"]: i for i in llm_claims.next_claim_items(rows, documents)}
    assert sorted(items) == ["D1", "D2", "D3"]
    assert items["D1"]["candidate"] == "3. The lamp of claim 2, wherein the glass is frosted."
    assert items["D1"]["context"] == "1. A lamp comprising a base and a shade.\n2. The lamp of claim 1, wherein the shade is glass."
    assert items["D2"]["candidate"] == "3. The lamp of claim 1, wherein the base is round."
    assert items["D3"]["candidate"] == "2. A lamp comprising a base and a shade, wherein the" and items["D3"]["independent"]
    assert items["D3"]["context"] == "1. A lamp comprising a base and a shade."


def test_the_third_batch_asks_only_where_claims_1_to_k_hold_two_statutory_categories():
    claims = [{"num": 1, "text": "1. A lamp comprising a base."},
              {"num": 2, "text": "2. The lamp of claim 1, wherein the base is round."},
              {"num": 3, "text": "3. A chair comprising a seat."},  # a second product: no second category
              {"num": 4, "text": "4. The chair of claim 3, wherein the seat is soft."},
              {"num": 5, "text": "5. A method of lighting a room, comprising switching on a lamp."},
              {"num": 6, "text": "6. The method of claim 5, wherein the room is dark."},
              {"num": 7, "text": "7. The method of claim 6, wherein the lamp is dimmed."}]
    assert llm_claims.next_ks(claims) == [1, 3, 5, 6]
    assert llm_claims.mixed_ks(claims) == [5, 6]


def test_the_third_batch_keeps_a_whole_sets_dependent_claims_only(tmp_path):
    text = ("1. A lamp comprising a base.\n2. The lamp of claim 1, wherein the base is round.\n"
            "3. The present invention relates to lamps.\n4. The lamp of claim 2, wherein the base is glass.")
    _write(tmp_path / "smollm2_sets_third_t0.7.jsonl", [{"id": "D1", "claims_text": text}])
    items = llm_claims.mixed_items(tmp_path, {}, 3)
    assert [(i["claim"], i["batch"], i["settings"]["temperature"]) for i in items] == [(2, 3, 0.7), (4, 3, 0.7)]
    assert items[1]["context"] == "1. A lamp comprising a base.\n2. The lamp of claim 1, wherein the base is round."


def _mixed_document(id_: str) -> dict:
    claims = ["1. A lamp comprising a base.", "2. A method of lighting a room, comprising switching on a lamp.",
              "3. The method of claim 2, wherein the room is dark."]
    return {"id": id_, "description": "A lamp.", "claims": [{"num": n, "text": t} for n, t in enumerate(claims, 1)]}


def test_the_fourth_batch_takes_test_then_dev_documents_of_no_earlier_batch_only(tmp_path, monkeypatch):
    from spg.data import checker_split

    ids = {side: [f"D{n}" for n in range(200) if checker_split(f"D{n}") == side][:4] for side in ("train", "dev", "test")}
    monkeypatch.setattr(llm_claims, "uspto_rows", lambda: [_mixed_document(i) for side in ids for i in ids[side][:2]])
    monkeypatch.setattr(llm_claims, "pap2pat_rows", lambda: [_mixed_document(i) for side in ids for i in ids[side][2:]])
    earlier = [{"doc": ids["test"][0], "batch": 3}, {"doc": ids["dev"][1]}, {"doc": ids["dev"][2], "batch": 2}]
    monkeypatch.setattr(llm_claims, "ITEMS", _write(tmp_path / "items.jsonl", earlier))
    monkeypatch.setattr(llm_claims, "MIXED", {**llm_claims.MIXED, 4: llm_claims.MIXED[4]._replace(
        next_docs={"test": 9, "dev": 3})})
    chosen = llm_claims.mixed_documents(4)
    assert sorted(chosen) == ["dev", "test"]  # never train
    assert sorted(d["id"] for d in chosen["test"]) == sorted(ids["test"][1:])  # the used one left out, not last
    assert sorted(d["id"] for d in chosen["dev"]) == sorted([ids["dev"][0], ids["dev"][3]])
    assert all(d["k"] == 2 for side in chosen.values() for d in side)
    order = [checker_split(d["id"]) for d in llm_claims._side_by_side(chosen, {"test": 9, "dev": 3})]
    assert order == ["test"] * 3 + ["dev"] * 2
    # the third batch, by contrast, fills a short side with documents of an earlier batch, after the others
    monkeypatch.setattr(llm_claims, "MIXED", {**llm_claims.MIXED, 3: llm_claims.MIXED[3]._replace(
        next_docs={"dev": 3})})
    third = [d["id"] for d in llm_claims.mixed_documents(3)["dev"]]
    assert third[:2] == [i for i in third if i in (ids["dev"][0], ids["dev"][3])] and len(third) == 3


def _three_ids() -> dict[str, list[str]]:
    from spg.data import checker_split

    return {side: [f"D{n}" for n in range(200) if checker_split(f"D{n}") == side][:3] for side in ("train", "dev", "test")}


def _long_mixed_document(id_: str) -> dict:
    """Claims 1..k hold a lamp and a method from k = 2 on; every claim after 2 is a dependent one: mixed_ks 2..6."""
    claims = ["1. A lamp comprising a base.", "2. A method of lighting a room, comprising switching on a lamp."]
    claims += [f"{n}. The method of claim 2, wherein the room is {n} metres wide." for n in range(3, 8)]
    return {"id": id_, "description": "A lamp.", "claims": [{"num": n, "text": t} for n, t in enumerate(claims, 1)]}


def test_the_fifth_batch_asks_again_on_the_fourth_batchs_documents_at_other_k_only(tmp_path, monkeypatch):
    ids = _three_ids()
    monkeypatch.setattr(llm_claims, "uspto_rows", lambda: [_long_mixed_document(i) for side in ids for i in ids[side]])
    monkeypatch.setattr(llm_claims, "pap2pat_rows", lambda: [])
    monkeypatch.setattr(llm_claims, "ITEMS", _write(tmp_path / "items.jsonl", [{"doc": ids["test"][0], "batch": 3}]))
    assert llm_claims.mixed_ks(_long_mixed_document("x")["claims"]) == [2, 3, 4, 5, 6]
    fifth = llm_claims.MIXED[5]
    assert fifth.again == 4 and not any(fifth.set_docs.values())  # whole sets would be the fourth's again
    chosen = llm_claims.mixed_documents(fifth.again)
    docs = llm_claims._side_by_side(chosen, fifth.next_docs)
    fourth = llm_claims.mixed_pairs(docs, llm_claims.MIXED[4])
    pairs = llm_claims.mixed_pairs(docs, fifth)
    # the fourth batch's documents (so never train, and not the one of an earlier batch), test before dev
    assert [doc["id"] for doc, _ in fourth] == ids["test"][1:] + ids["dev"]
    assert [doc["id"] for doc, _ in pairs] == [i for i in ids["test"][1:] + ids["dev"] for _ in range(2)]
    # the fourth took the smallest k; the fifth the largest, then the middle: spread's others, never the fourth's
    assert {k for _, k in fourth} == {2} and [k for _, k in pairs] == [6, 4] * 5
    # a document with a single admissible k gives the fifth batch nothing
    assert llm_claims.mixed_pairs([{**docs[0], "claims": docs[0]["claims"][:3]}], fifth) == []


def test_the_sixth_batch_asks_again_on_the_third_batchs_documents_at_other_k_never_test(tmp_path, monkeypatch):
    from spg.data import checker_split

    ids = _three_ids()
    monkeypatch.setattr(llm_claims, "uspto_rows", lambda: [_long_mixed_document(i) for side in ids for i in ids[side]])
    monkeypatch.setattr(llm_claims, "pap2pat_rows", lambda: [])
    # a first-batch document (the third took it last), and items of later batches, which move none of its documents
    earlier = [{"doc": ids["train"][0]}, {"doc": ids["train"][1], "batch": 4}, {"doc": ids["dev"][0], "batch": 6}]
    monkeypatch.setattr(llm_claims, "ITEMS", _write(tmp_path / "items.jsonl", earlier))
    sixth = llm_claims.MIXED[6]
    assert sixth.again == 3 and not any(sixth.set_docs.values()) and not sixth.side_by_side  # no sets: the third's again
    chosen = llm_claims.mixed_documents(sixth.again)
    assert sorted(chosen) == ["dev", "train"]  # never test
    # the third's order: in proportion (26 train to 13 dev), so that a run cut short keeps both sides
    docs = llm_claims._in_proportion(chosen, sixth.next_docs)
    assert [checker_split(doc["id"]) for doc in docs] == ["train", "train", "dev", "train", "dev", "dev"]
    assert sorted(doc["id"] for doc in docs) == sorted(ids["train"] + ids["dev"])
    assert [doc["id"] for doc in chosen["train"]][-1] == ids["train"][0]  # the first batch's, last
    third = llm_claims.mixed_pairs(docs, llm_claims.MIXED[3])
    pairs = llm_claims.mixed_pairs(docs, sixth)
    order = [doc["id"] for doc, _ in third]
    assert {k for _, k in third} == {2}
    # the third batch's documents, each at the largest k, then the middle: spread's others, never the third's
    assert [doc["id"] for doc, _ in pairs] == [i for i in order for _ in range(2)]
    assert [k for _, k in pairs] == [6, 4] * 6
    assert {checker_split(doc["id"]) for doc, _ in pairs} == {"train", "dev"}
