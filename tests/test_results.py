import json

from spg.data import load_records
from spg.evaluate import Prediction, System, evaluate, numbered_text
from spg.results import PRECISION, Evaluation, fmt, markdown, ratio_cell


def hupd_evaluation(hupd_dcg_path) -> Evaluation:
    records = list(load_records(hupd_dcg_path))
    gold = System("gold", {r.id: Prediction(numbered_text(r.claims)) for r in records}, "test")
    empty = System("empty", {r.id: Prediction("") for r in records}, "test")
    return evaluate([gold, empty], records, bertscore=False, progress=False)


def test_an_evaluation_written_as_json_reads_back_as_the_same_evaluation(hupd_dcg_path):
    evaluation = hupd_evaluation(hupd_dcg_path)
    evaluation.not_generated = ["Zero-shot"]
    written = json.loads(json.dumps(evaluation.to_json()))  # through JSON, as spg reproduce saves it
    again = Evaluation.from_json(written)
    assert again.to_json() == written
    assert again.row("gold").valid == 1.0 and again.row("empty").valid == 0.0
    assert again.row("gold").column("R-1") == evaluation.rows[0].r1
    assert list(written) == ["rows", "documents", "always_root", "settings", "not_generated"]


def test_json_keys_are_the_column_names_the_tables_print(hupd_dcg_path):
    evaluation = hupd_evaluation(hupd_dcg_path)
    row = evaluation.table_json()["rows"][0]
    assert set(PRECISION) <= set(row) and {"DEA-pos", "DEA-pos_detail"} <= set(row)
    doc = evaluation.to_json()["documents"][0]
    assert {"R-1", "DEA-pos", "DEA-pos_counts"} <= set(doc) and "BS" not in doc  # no BERTScore computed


def test_valid_is_printed_with_one_precision_in_every_table(hupd_dcg_path):
    evaluation = hupd_evaluation(hupd_dcg_path)
    assert "| 1.000 |" in evaluation.markdown().splitlines()[2]  # the gold row ends in DEA 1.000 and valid 1.000
    assert evaluation.rows[0].cells(("valid",)) == [fmt(1.0, PRECISION["valid"])] == ["1.000"]


def test_cells_say_what_was_counted_and_a_missing_figure_is_a_dash():
    assert ratio_cell(1, 3) == "0.333 (1/3)" and ratio_cell(0, 0) == "– (0/0)"
    assert fmt(None, 2) == "–"
    assert markdown(["", "a"], [["x", "1"]]) == ["| | a |", "|---|---:|", "| x | 1 |"]
