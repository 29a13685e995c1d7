import json

import pytest

from spg.cli import main
from spg.data import load_records
from spg.evaluate import (
    EvaluateError,
    Prediction,
    System,
    evaluate,
    numbered_text,
    read_prediction_file,
    scored_text,
    structure_of,
    systems_from_fields,
)
from spg.forest import Forest
from spg.linearize import cite_parents, parse_tagged
from spg.metrics import text as text_metrics
from spg.metrics.patentscore import patent_score
from spg.render import numbered

HUPD_SYSTEMS = [
    "Llama-3-70B", "Mixtral-8*22B", "Mixtral-8*7B", "Mistral-7B",
    "Llama-3-8B", "Llama-3-8B-FT", "Llama-3-8B-MFT", "GPT-4",
]  # fmt: skip

GOLD = [
    {"num": 1, "text": "A chair comprising: a seat; and a leg.", "parents": []},
    {"num": 2, "text": "The chair of claim 1, wherein the seat is round.", "parents": [1]},
    {"num": 3, "text": "A table comprising: a top; and a leg.", "parents": []},
    {"num": 4, "text": "The chair of claim 2, wherein the leg is steel.", "parents": [2]},
]
GOLD_TEXT = "\n".join(f"{c['num']}. {c['text']}" for c in GOLD)


@pytest.fixture()
def references(tmp_path):
    path = tmp_path / "refs.jsonl"
    rows = [{"id": f"doc{i}", "description": "A chair.", "claims": GOLD, "has_gold_links": True} for i in range(3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_hupd_dcg_sample_scores_all_eight_real_systems_in_one_table(hupd_dcg_path, tmp_path):
    out = tmp_path / "out"
    argv = [str(hupd_dcg_path), "--all-fields", "--no-bertscore", "--no-progress", "--out", str(out)]
    assert main(["evaluate", *argv]) == 0
    rows = json.loads((out / "table.json").read_text())["rows"]
    assert [r["system"] for r in rows] == HUPD_SYSTEMS
    for row in rows:
        assert (row["n"], row["missing"], row["empty"]) == (1, 0, 0)
        assert 0 < row["BLEU"] < 100 and 0 < row["R-1"] < 100 and 0 < row["PS"] <= 100
        assert row["BLEU-hf"] == pytest.approx(row["BLEU"])  # one reference, no zero-match order
        assert row["DEA_detail"]["counts"]["all"][1] == 5  # the gold set has 5 dependent claims
    # Llama-3-8B-FT falls into a repetition loop (claims 7-20 are one sentence): the only invalid output.
    assert [r["system"] for r in rows if r["valid"] == 0] == ["Llama-3-8B-FT"]
    docs = [json.loads(line) for line in (out / "documents.jsonl").read_text().splitlines()]
    assert len(docs) == 8 and any("repeats" in r for r in docs[5]["reasons"])
    assert "| GPT-4 |" in (out / "table.md").read_text()


def test_reference_scored_against_itself_is_perfect(hupd_dcg_path):
    records = list(load_records(hupd_dcg_path))
    gold = System("gold", {r.id: Prediction(numbered_text(r.claims)) for r in records}, "test")
    row = evaluate([gold], records, bertscore=False, progress=False).rows[0]
    assert row.bleu == pytest.approx(100.0) and row.r1 == pytest.approx(100.0)
    assert row.dea == 1.0 and row.valid == 1.0 and row.cc == pytest.approx(1.5)


def test_missing_empty_and_unmatched_predictions_are_counted_not_dropped(references, tmp_path):
    preds = write_jsonl(
        tmp_path / "sys.jsonl",
        [
            {"id": "doc0", "prediction": GOLD_TEXT},
            {"id": "doc1", "prediction": "  "},
            {"id": "other", "prediction": "x"},
        ],
    )
    report = evaluate([read_prediction_file(preds)], list(load_records(references)), bertscore=False, progress=False)
    row = report.rows[0]
    assert (row.n, row.missing, row.empty, row.unmatched) == (3, 1, 1, 1)
    assert row.valid == pytest.approx(1 / 3)  # missing and empty predictions are invalid, not skipped
    assert row.dea_detail["counts"]["all"] == (2, 6)
    assert [d.status for d in report.documents] == ["ok", "empty", "missing"]
    assert "other" in report.markdown()


def test_generation_output_schema_uses_pointer_parents_for_dea(references, tmp_path):
    # Eq. 1 order of the gold forest: 1, 2, 4 (tree 1), then 3 — so the tagged output numbers claim 4 as 3.
    raw = (
        "<ind>A chair comprising: a seat; and a leg.</ind><dep>The chair of claim 1, wherein the seat is round.</dep>"
        "<dep>The chair of claim 1, wherein the leg is steel.</dep><sep><ind>A table comprising: a top; and a leg.</ind><eot>"
    )
    pointer = [None, 0, 1, None]  # the pointer picks claim 2 for the third claim; its text says claim 1
    prediction = Prediction(text="rendered", raw=raw, pointer=pointer)
    gold = next(iter(load_records(references))).claims
    structure = structure_of(gold, prediction)
    assert structure.dea.counts["all"] == (2, 2)  # pointer parents against the renumbered gold
    assert (structure.agreement.hits, structure.agreement.total) == (1, 2)
    assert structure.validity.valid
    row = {"id": "doc0", "raw": raw, "claims_text": GOLD_TEXT, "pointer_parents": pointer}
    system = read_prediction_file(write_jsonl(tmp_path / "gen.jsonl", [row]))
    assert system.predictions["doc0"] == Prediction(GOLD_TEXT, raw, pointer)


def test_tagged_prediction_text_is_scored_as_numbered_claims(references):
    tagged = "<ind>A chair comprising: a seat; and a leg.</ind><eot>"
    records = list(load_records(references))[:1]
    system = System("tagged", {"doc0": Prediction(tagged)}, "test")
    doc = evaluate([system], records, bertscore=False, progress=False).documents[0]
    assert doc.valid and doc.cc == pytest.approx(1.5 * 1 / 4)


def test_bad_prediction_line_names_file_line_and_expectation(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "prediction": "1. A x."}\n{"id": "b"}\n')
    with pytest.raises(EvaluateError, match=r"bad.jsonl line 2 \(id b\): expected the claim set in one of the fields"):
        read_prediction_file(path)
    path.write_text("{not json\n")
    with pytest.raises(EvaluateError, match="bad.jsonl line 1: not valid JSON"):
        read_prediction_file(path)
    path.write_text('{"id": "a", "prediction": "x"}\n{"id": "a", "prediction": "y"}\n')
    with pytest.raises(EvaluateError, match="line 2: id 'a' appears twice"):
        read_prediction_file(path)


def test_unknown_field_lists_the_model_output_fields_present(hupd_dcg_path):
    records = list(load_records(hupd_dcg_path))
    with pytest.raises(EvaluateError, match="no record has the field 'GPT-5-claim'.*GPT-4-claim"):
        systems_from_fields(records, ["GPT-5-claim"], str(hupd_dcg_path))


def test_cli_reports_bad_input_with_exit_code_two(references, tmp_path, capsys):
    missing = tmp_path / "nope.jsonl"
    assert main(["evaluate", str(references), str(missing), "--no-bertscore"]) == 2
    assert "nope.jsonl: no such predictions file" in capsys.readouterr().err


def test_empty_gold_set_yields_no_dea_rather_than_a_perfect_one():
    structure = structure_of(Forest(), Prediction("1. A chair comprising a seat."))
    assert structure.dea.overall is None and structure.dea_positional.overall is None


@pytest.mark.slow
def test_cli_bertscore_column_on_real_outputs(hupd_dcg_path, capsys):
    argv = ["evaluate", str(hupd_dcg_path), "--field", "GPT-4-claim", "--field", "Llama-3-8B-claim", "--no-progress"]
    assert main(argv) == 0
    table = capsys.readouterr().out
    gpt4 = next(line for line in table.splitlines() if line.startswith("| GPT-4 |"))
    bs = float(gpt4.split("|")[8])
    assert 50 < bs < 100
    assert "BS: BERTScore F1 ×100 with all-MiniLM-L6-v2 (inputs truncated to 510 tokens)" in table


def test_plain_generation_output_is_scored_on_the_models_own_words(tmp_path):
    raw = "1. A chair comprising: a seat; and a leg.\n2. The chair of claim 1, wherein the seat is round.<|eot_id|>"
    row = {"id": "doc0", "raw": raw, "claims_text": "re-rendered", "pointer_parents": None}
    prediction = read_prediction_file(write_jsonl(tmp_path / "zs.jsonl", [row])).predictions["doc0"]
    assert prediction.text == raw
    assert scored_text(prediction.text).endswith("the seat is round.")  # model tokens are not claim text


# A tagged output whose dependent claims name no parent in their text; the pointer picks the gold parents.
UNREFERENCED = (
    "<ind>A chair comprising: a seat; and a leg.</ind><dep>The chair, wherein the seat is round.</dep>"
    "<dep>The chair, wherein the leg is steel.</dep><sep><ind>A table comprising: a top; and a leg.</ind><eot>"
)
UNREFERENCED_POINTER = [None, 0, 1, None]  # = the gold forest in Eq. 1 order (1, 2, 4, 3)


def test_scored_text_removes_tags_and_numbers_claims_without_rewriting_them():
    assert scored_text(UNREFERENCED) == (
        "1. A chair comprising: a seat; and a leg.\n2. The chair, wherein the seat is round.\n"
        "3. The chair, wherein the leg is steel.\n4. A table comprising: a top; and a leg."
    )
    # A claim the token budget left open is kept; text after <eot> and chat-model tokens are not claim text.
    assert scored_text("<ind>A chair.</ind><dep>The chair of claim 1, wherein") == (
        "1. A chair.\n2. The chair of claim 1, wherein"
    )
    assert scored_text("<ind>A chair.</ind><eot><|eot_id|>junk") == "1. A chair."
    assert scored_text("1. A chair.<|im_end|>") == "1. A chair."


def test_text_metrics_score_the_generated_text_not_the_pointer_rendering(references, tmp_path):
    rendered = numbered(cite_parents(parse_tagged(UNREFERENCED, UNREFERENCED_POINTER).forest))  # spg generate's
    assert "according to claim 1" in rendered  # the pointer's parents were written into the text
    row = {"id": "doc0", "raw": UNREFERENCED, "claims_text": rendered, "pointer_parents": UNREFERENCED_POINTER}
    system = read_prediction_file(write_jsonl(tmp_path / "spg.jsonl", [row]))
    report = evaluate([system], list(load_records(references))[:1], bertscore=False, progress=False)
    doc = report.documents[0]
    as_written = patent_score(scored_text(UNREFERENCED), GOLD_TEXT)
    as_rendered = patent_score(rendered, GOLD_TEXT)
    assert (doc.sp, doc.ps) == (as_written.struct, as_written.normalized)
    # the figures docs/evaluation.md quotes: the rewritten references would add α_dep and resolve "The chair"
    assert (as_written.struct, as_written.normalized) == pytest.approx((0.7, 67.51), abs=0.005)
    assert (as_rendered.struct, as_rendered.normalized) == pytest.approx((0.9, 85.65), abs=0.005)
    assert doc.sentence_bleu == text_metrics.sentence_bleu(scored_text(UNREFERENCED), GOLD_TEXT)
    assert doc.dea == 1.0  # the pointer's parents still decide DEA


def test_report_gives_aligned_and_positional_dea_the_aligned_fraction_and_the_always_root_row(references, tmp_path):
    # Claim 1, an extra claim, then the gold claims 2-4 with their references renumbered: every edge is right.
    extra = (
        "1. A chair comprising: a seat; and a leg.\n2. A lamp comprising: a bulb.\n"
        "3. The chair of claim 1, wherein the seat is round.\n4. A table comprising: a top; and a leg.\n"
        "5. The chair of claim 3, wherein the leg is steel."
    )
    system = System("extra", {"doc0": Prediction(extra)}, "test")
    report = evaluate([system], list(load_records(references))[:1], bertscore=False, progress=False)
    row, doc = report.rows[0], report.documents[0]
    assert row.dea_detail["counts"]["all"] == (2, 2) and row.dea == doc.dea == 1.0
    assert row.dea_pos_detail["counts"]["all"] == (0, 2) and row.dea_pos == doc.dea_pos == 0.0
    assert row.aligned_detail == {"value": 1.0, "aligned": 4, "total": 4} and doc.aligned == 1.0
    assert report.always_root["counts"]["all"] == (1, 2)  # claim 4 depends on claim 2, not on the root
    table = report.markdown()
    assert "| extra | 1.000 (2/2) |" in table and "| always root (reference) | 0.500 (1/2) |" in table


def test_patentscore_option_selects_the_reading_and_the_report_names_it(references, tmp_path, capsys):
    preds = write_jsonl(tmp_path / "sys.jsonl", [{"id": "doc0", "prediction": GOLD_TEXT}])
    argv = ["evaluate", str(references), str(preds), "--no-bertscore", "--no-progress", "--json"]
    scores = {}
    for reading in ("calibrated", "appendix"):
        assert main([*argv, "--patentscore", reading]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["settings"]["patentscore"] == reading
        scores[reading] = report["rows"][0]
        expected = patent_score(GOLD_TEXT, GOLD_TEXT, reading)
        # one document predicted, two missing (scored zero): the means are a third of the document's scores
        assert (scores[reading]["SP"], scores[reading]["AC"]) == pytest.approx((expected.struct / 3, expected.ante / 3))
    assert scores["calibrated"]["SP"] != scores["appendix"]["SP"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["patentscore"] == "calibrated"  # the default
