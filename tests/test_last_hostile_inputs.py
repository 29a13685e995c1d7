"""The last hostile inputs of issue 33, each ending as README "Errors and exit status" says: one line and exit 2
for bad input, output that still works where the input was good."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spg.cli import main
from spg.lint import lint
from spg.parse import parse_claims

REPO = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_exit_2(result, *words):
    code, out, err = result
    assert code == 2 and len(err.splitlines()) == 1, err
    for word in words:
        assert word in err, err


def test_an_ascii_standard_output_gets_escapes_for_what_it_cannot_encode(tmp_path):
    claims = tmp_path / "c.txt"
    claims.write_text("1. A chair \u2014 with the \u00e9lan seat \U0001f600.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    for extra in ([], ["--json"]):
        done = subprocess.run([sys.executable, "-m", "spg.cli", "lint", *extra, str(claims)], capture_output=True,
                              env=env, cwd=REPO, timeout=120)
        assert done.returncode == 0 and done.stderr == b"", done.stderr
        done.stdout.decode("ascii")  # nothing but ASCII went out
        if extra:
            finding = json.loads(done.stdout)["findings"][0]
            assert finding["term"] == "the \u00e9lan seat"  # the escapes are JSON's: the same text back
        else:
            assert "A chair \\u2014 with the \\u00e9lan seat \\ud83d\\ude00." in done.stdout.decode()


def test_numbers_without_claim_text_are_empty_claims_and_an_error():
    for text in ("1.  2.  3.", "1.\n2.\n3."):
        forest = parse_claims(text)
        assert [(c.num, c.text) for c in forest.claims] == [(1, ""), (2, ""), (3, "")]
        assert [(f.rule, f.claim) for f in lint(forest).findings] == [("empty-claim", 1), ("empty-claim", 2),
                                                                       ("empty-claim", 3)]
    forest = parse_claims("1. A chair.\n2.\n3. The chair of claim 1.")
    assert [(c.num, c.text) for c in forest.claims] == [(1, "A chair."), (2, ""), (3, "The chair of claim 1.")]
    # in running text a number with nothing after it is no claim: "Nav1.9. 10. An ..." keeps claim 10 whole
    forest = parse_claims("8. A chain of Nav1.7 or Nav1.9. 10. An isolated chain.")
    assert [c.num for c in forest.claims] == [8, 10]


def test_lint_exits_1_on_empty_claims(tmp_path, capsys):
    (tmp_path / "e.txt").write_text("1.  2.  3.")
    code, out, _ = run(capsys, "lint", "--no-config", tmp_path / "e.txt")
    assert code == 1 and out.count("[empty-claim]") == 3


REPRO = """output_dir: {out}
data: {data}
stage1: {repo}/configs/repro/smollm2-stage1.yaml
generate: {repo}/configs/repro/smollm2-generate.yaml
"""


@pytest.mark.parametrize("extra, words", [
    ("decoding:\n  paper: [no_repeat_ngram_size=16]\n", ["decoding: paper", "expected a mapping", "got a list"]),
    ("decoding:\n  paper: {overrides: [a=1]}\n", ["decoding: paper: overrides", "got a list"]),
    ("decoding:\n  paper: {systems: Baseline}\nsystems:\n  - {name: Baseline, kind: stage1}\n",
     ["decoding: paper: systems", "the string 'Baseline'", "write [Baseline]"]),
    ("decoding:\n  paper: {overide: {}}\n", ["unknown keys ['overide']"]),
    ("systems:\n  - {name: Baseline, kind: stage1, overrides: \"gamma=0\"}\n",
     ["systems[0] (Baseline): overrides", "the string 'gamma=0'", "write [gamma=0]"]),
    ("systems:\n  - {name: Baseline, kind: stage1, overrides: [{gamma: 0}]}\n",
     ["systems[0] (Baseline): overrides", "key=value"]),
])
def test_a_reproduce_config_of_the_wrong_shape_is_one_line_naming_the_file_and_key(extra, words, tmp_path, capsys,
                                                                                   uspto_path):
    config = tmp_path / "r.yaml"
    config.write_text(REPRO.format(out=tmp_path / "out", data=uspto_path, repo=REPO) + extra)
    one_line_exit_2(run(capsys, "reproduce", "--config", config, "--dry-run"), str(config), *words)
    assert not (tmp_path / "out").exists()


def test_a_model_folder_without_a_model_names_the_flag_the_folder_and_what_was_expected(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    one_line_exit_2(run(capsys, "generate", "--model", empty, "--max-new-tokens", "4"), "--model", str(empty),
                    "a folder without a model", "expected a Hugging Face model folder")
    config = tmp_path / "g.yaml"
    config.write_text(f"model: {empty}\n")
    one_line_exit_2(run(capsys, "generate", "--config", config), str(config), str(empty))
    (empty / "config.json").write_text("{}")  # a config but no tokenizer: the library's message, with flag and folder
    one_line_exit_2(run(capsys, "generate", "--model", empty, "--max-new-tokens", "4"), "--model", str(empty))


def _evaluation_inputs(tmp_path, prediction="1. A chair."):
    refs, preds = tmp_path / "refs.jsonl", tmp_path / "pred.jsonl"
    refs.write_text(json.dumps({"id": "a", "claims": "1. A chair. 2. The chair of claim 1, wherein it is red."}) + "\n")
    preds.write_text(json.dumps({"id": "a", "prediction": prediction}) + "\n")
    return refs, preds


def test_evaluate_out_in_a_folder_the_system_will_not_create_is_one_line_and_exit_2(tmp_path, capsys):
    refs, preds = _evaluation_inputs(tmp_path)
    one_line_exit_2(run(capsys, "evaluate", refs, preds, "--out", "/proc/x", "--no-bertscore"), "/proc/x",
                    "cannot create this folder")


def test_an_evaluation_set_cut_short_by_a_kill_is_told_from_a_whole_one_and_written_whole_again(tmp_path, capsys,
                                                                                              monkeypatch):
    import spg.evaluate
    from spg.evaluate import report_problem

    out = tmp_path / "out"
    refs, preds = _evaluation_inputs(tmp_path)
    assert run(capsys, "evaluate", refs, preds, "--out", out, "--no-bertscore")[0] == 0
    assert report_problem(out) is None
    whole = {name: (out / name).read_bytes() for name in ("table.md", "table.json", "documents.jsonl")}

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # what the process sees of nothing: it stops here, between two files

    refs, preds = _evaluation_inputs(tmp_path, "1. A table. 2. The table of claim 1.")
    for where, problem in (("write_jsonl", "table.md not as table.json lists"),
                           ("write_json", "table.md and documents.jsonl not as table.json lists")):
        with monkeypatch.context() as patch:
            patch.setattr(spg.evaluate, where, killed)
            assert run(capsys, "evaluate", refs, preds, "--out", out, "--no-bertscore")[0] == 130
        assert report_problem(out) == problem
        assert (out / "table.json").read_bytes() == whole["table.json"]  # the old set's list, not the new
    (out / "table.json").unlink()
    assert report_problem(out) == "table.md, documents.jsonl without table.json"
    code, _, err = run(capsys, "evaluate", refs, preds, "--out", out, "--no-bertscore")
    assert code == 0 and "the evaluation there is incomplete" in err
    assert report_problem(out) is None
