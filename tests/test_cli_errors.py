"""Issue 13, the command line: one error contract for every command (README, "Errors and exit status").

Bad input or usage exits 2 with one line naming the file, the line or record, the field and what was expected,
no traceback unless ``spg --debug``; arguments are checked before any model loads (``load_generator`` and
``score_documents`` are replaced by functions that fail the test if they are reached).
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest
from conftest import REPO, requirement_missing
from hypothesis import given, settings
from hypothesis import strategies as st

from spg.cli import build_parser, main

GOLD = [{"num": 1, "text": "A chair comprising a seat."}, {"num": 2, "text": "The chair of claim 1.", "parents": [1]}]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bad_input(capsys, *argv: str) -> str:
    """Run a command that must refuse its input: exit 2 and exactly one line on stderr, which is returned."""
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.fixture()
def references(tmp_path):
    path = tmp_path / "refs.jsonl"
    path.write_text("".join(json.dumps({"id": f"doc{i}", "description": "A chair.", "claims": GOLD}) + "\n"
                            for i in range(2)))
    return path


@pytest.fixture()
def no_model(monkeypatch):
    """Loading a model fails the test: generate must refuse bad settings before it gets that far."""

    def refuse(*args, **kwargs):
        raise AssertionError("a model was loaded before the arguments were checked")

    monkeypatch.setattr("spg.generation.generator.load_generator", refuse)


@pytest.fixture()
def no_scoring(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a system was scored before the arguments were checked")

    monkeypatch.setattr("spg.evaluate.score_documents", refuse)


# ---------------------------------------------------------------- the contract itself


def test_an_internal_error_is_one_line_with_exit_3_and_debug_shows_the_traceback(monkeypatch, tmp_path, capsys):
    def crash(forest):
        raise KeyError(4)

    monkeypatch.setattr("spg.cli.lint.report_lines", crash)
    path = tmp_path / "c.txt"
    path.write_text("1. A chair.")
    code, _, err = run(capsys, "lint", str(path))
    assert code == 3 and err.count("\n") == 1 and "internal error (KeyError: 4)" in err and "--debug" in err
    with pytest.raises(KeyError):
        main(["--debug", "lint", str(path)])


def test_debug_shows_the_traceback_of_bad_input_too(tmp_path):
    from spg.data import DataError

    with pytest.raises(DataError, match="cannot read"):
        main(["--debug", "lint", str(tmp_path / "missing.txt")])


@pytest.mark.parametrize("argv", [[], ["lint"], ["lint", "a", "b"], ["evaluate"], ["generate", "--max-new-tokens", "x"],
                                  ["train"], ["train", "stage3"], ["dea", "refs"], ["reproduce"], ["stats", "--bogus"],
                                  ["frobnicate"]], ids=" ".join)
def test_usage_errors_are_one_line_with_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.splitlines()) == 1 and "usage:" not in err, err
    assert err.startswith("spg") and "--help" in err


def test_control_characters_of_claim_texts_are_printed_escaped(tmp_path, capsys):
    path = tmp_path / "c.txt"
    path.write_text("1. A \x1b[31mred\x1b[0m widget\x07.\n2. The widget of claim 1, \u202eevil\x9b.\n")
    code, out, _ = run(capsys, "lint", str(path))
    assert code == 0 and "\\u001b[31mred" in out and "\\u0007" in out and "\\u202e" in out and "\\u009b" in out
    assert not any(0 < ord(ch) < 32 and ch != "\n" or 0x7F <= ord(ch) < 0xA0 for ch in out)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_escaped_json_is_still_json_with_the_same_text(text):
    from spg.cli import escaped

    assert json.loads(escaped(json.dumps([text], ensure_ascii=False))) == [text]


def test_escaped_writes_exactly_the_control_characters_as_escapes():
    # every character up to the isolates, each alone and all in one text (escaped searches instead of translating)
    from spg.errors import _CONTROLS, escaped

    every = "".join(map(chr, range(0x2070)))
    want = "".join(f"\\u{ord(ch):04x}" if ord(ch) in _CONTROLS else ch for ch in every)
    assert escaped(every) == want and "".join(map(escaped, every)) == want
    assert escaped("\t\n…]\\^-") == "\t\n…]\\^-"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_generate_output_in_a_folder_that_cannot_be_made_is_refused_before_a_model_loads(no_model, capsys):
    # As root every permission test passes on /proc; only making the folder tells (it used to exit 3 after decoding).
    err = bad_input(capsys, "generate", "--output", "/proc/spg-no-such-folder/out.jsonl")
    assert "/proc" in err and "spg-no-such-folder" in err


EVIL_ID = "evil\u001b[2J\nline\u202e"
EVIL_ID_SHOWN = "evil\\u001b[2J\\u000aline\\u202e"


def test_a_skipped_records_line_escapes_its_id(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": EVIL_ID, "claims": 5}) + "\n" + json.dumps({"id": "ok", "claims": "1. A chair."})
                    + "\n")
    code, _, err = run(capsys, "stats", "--skip-bad", str(path))
    assert code == 1 and f"(id {EVIL_ID_SHOWN})" in err and len(err.splitlines()) == 2
    assert "\x1b" not in err and "\u202e" not in err


def test_a_skipped_documents_line_of_generate_escapes_its_id(tiny_model, tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": EVIL_ID, "description": " "}) + "\n"
                    + json.dumps({"id": "ok", "description": "A chair."}) + "\n")
    code, _, err = run(capsys, "generate", "--model", str(tiny_model), "--input", str(path), "--max-new-tokens", "2",
                       "--no-progress")
    assert code == 1 and f"skipped {EVIL_ID_SHOWN}: empty description\n" in err
    assert "\x1b" not in err and "\u202e" not in err


def test_an_error_line_escapes_control_characters_too(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"claims": [{"num": "\x1b[2J", "text": "x"}]}))
    err = bad_input(capsys, "lint", str(path))
    assert "\x1b" not in err


def test_standard_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "c.txt"
    path.write_text("1. A widget.\n2. The widget of claim 1.\n")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "spg.cli", "lint", str(path)], stdout=full, stderr=subprocess.PIPE,
                              text=True, cwd=REPO)
    assert done.returncode == 2 and done.stderr.splitlines() == [
        "spg lint: cannot write the output (No space left on device); expected a writable standard output"]


def test_library_warnings_are_held_back_until_the_command_succeeded(monkeypatch, tmp_path, capsys):
    import warnings

    from spg.data import DataError

    path = tmp_path / "c.txt"
    path.write_text("1. A chair.")

    def warn_then_fail(result):
        warnings.warn("some library advice", UserWarning, stacklevel=1)
        raise DataError("c.txt: bad")

    monkeypatch.setattr("spg.cli.lint.report_lines", warn_then_fail)
    assert bad_input(capsys, "lint", str(path)) == "spg lint: c.txt: bad\n"

    def warn_then_succeed(result):
        warnings.warn("some library advice", UserWarning, stacklevel=1)
        return ["1 [ind] A chair."]

    monkeypatch.setattr("spg.cli.lint.report_lines", warn_then_succeed)
    code, out, err = run(capsys, "lint", str(path))
    assert code == 0 and err == "spg lint: warning: some library advice\n"


def test_every_option_of_every_command_has_help():
    def parsers(parser: argparse.ArgumentParser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from parsers(sub)

    undocumented = [
        f"{p.prog} {a.option_strings or a.dest}"
        for p in parsers(build_parser())
        for a in p._actions
        if not a.help and not isinstance(a, argparse._SubParsersAction)
    ]
    assert undocumented == []


def test_train_help_is_plain_text(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert "stage1|stage2" in out and "``" not in out


# ---------------------------------------------------------------- lint and stats


def test_lint_refuses_bytes_on_stdin_that_are_not_utf8(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"1. A chair.\n2. The \xff\xfe chair of claim 1.")))
    assert "<stdin> line 2: byte 0xff is not UTF-8" in bad_input(capsys, "lint", "-")


def test_lint_reads_json_and_text_that_start_with_a_byte_order_mark(tmp_path, capsys):
    (tmp_path / "c.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(GOLD).encode())
    (tmp_path / "c.txt").write_bytes(b"\xef\xbb\xbf1. A chair.\n2. The chair of claim 1.")
    for name in ("c.json", "c.txt"):
        code, out, _ = run(capsys, "lint", "--json", str(tmp_path / name))
        assert code == 0 and [c["parents"] for c in json.loads(out)["claims"]] == [[], [1]], name
    code, out, _ = run(capsys, "lint", str(tmp_path / "c.txt"))
    assert out.startswith("1 [ind] A chair.")


def test_lint_names_an_unterminated_json_string_once(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text('["A chair.", "The chair')
    err = bad_input(capsys, "lint", str(path))
    assert "not valid JSON (Unterminated string starting at: line 1, column 14)" in err and "at at" not in err


@pytest.mark.parametrize("command", ["lint", "stats"])
def test_json_nested_too_deeply_is_bad_input(command, tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000)
    assert "deep.json: JSON nested too deeply" in bad_input(capsys, command, str(path))


def test_stats_on_a_source_without_records_is_bad_input(tmp_path, capsys):
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    assert "empty.jsonl: no patent records to count" in bad_input(capsys, "stats", str(path))


# ---------------------------------------------------------------- every reader of JSON input (spg.errors.parse_json)

BIG = "9" * 5000
SURROGATE = '"The chair of claim 1, \\ud800 red."'
RECORD = '{"id": "doc0", "description": "A chair.", "claims": [{"num": 1, "text": "A chair."}, {"num": 2, "text": TEXT}]}'
HOSTILE = {
    "a 5,000-digit integer": ('{"id": "doc0", "claims": "1. A chair.", "n": ' + BIG + "}", "4300 digits"),
    "a lone surrogate": (RECORD.replace("TEXT", SURROGATE), "field 'claims[1].text' holds a lone surrogate"),
}


def _readers(tmp_path, references, line: str) -> dict[str, list[str]]:
    """The argv of each command whose input holds ``line`` as its second JSONL record (or its only JSON value)."""
    (tmp_path / "bad.jsonl").write_text(references.read_text().splitlines()[0] + "\n" + line + "\n")
    (tmp_path / "bad.json").write_text(line)
    return {
        "lint": ["lint", str(tmp_path / "bad.json")],
        "stats": ["stats", str(tmp_path / "bad.jsonl")],
        "evaluate references": ["evaluate", str(tmp_path / "bad.jsonl"), str(references), "--no-bertscore"],
        "evaluate predictions": ["evaluate", str(references), str(tmp_path / "bad.jsonl"), "--no-bertscore"],
        "generate input": ["generate", "--input", str(tmp_path / "bad.jsonl"), "--no-progress"],
    }


@pytest.mark.parametrize("case", HOSTILE, ids=HOSTILE)
def test_every_json_reader_refuses_hostile_values_in_one_line(case, references, tmp_path, capsys, no_model,
                                                              no_scoring):
    line, expected = HOSTILE[case]
    for name, argv in _readers(tmp_path, references, line).items():
        err = bad_input(capsys, *argv)
        assert expected in err, (name, err)
        assert name == "lint" or "bad.jsonl line 2" in err, (name, err)


def test_every_input_reader_accepts_a_byte_order_mark(references, tmp_path, capsys):
    from spg.data import documents, load_records
    from spg.evaluate import read_prediction_file

    rows = [{**json.loads(x), "prediction": "1. A chair."} for x in references.read_text().splitlines()]
    bom, as_json = tmp_path / "bom.jsonl", tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + "".join(json.dumps(row) + "\n" for row in rows).encode())
    as_json.write_bytes(b"\xef\xbb\xbf" + json.dumps(rows).encode())
    for source in (bom, as_json):
        assert [r.id for r in load_records(source)] == ["doc0", "doc1"]
        assert [d.id for d in documents([str(source)], False, [], None)] == ["doc0", "doc1"]
        assert sorted(read_prediction_file(source).predictions) == ["doc0", "doc1"]
    code, _, err = run(capsys, "stats", str(bom))
    assert code == 0, err


def test_bad_utf8_in_jsonl_is_reported_by_line_not_byte(references, tmp_path, capsys):
    path = tmp_path / "refs.jsonl"
    path.write_bytes(references.read_bytes() + b'{"id": "doc9", "claims": "1. A \xff chair."}\n')
    assert "refs.jsonl line 3: byte 0xff is not UTF-8" in bad_input(capsys, "stats", str(path))


# ---------------------------------------------------------------- evaluate


def predictions(tmp_path, rows: list, name: str = "p.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_evaluate_refuses_predictions_that_are_not_utf8(references, tmp_path, capsys, no_scoring):
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"id": "doc0", "prediction": "1. A chair."}\n{"id": "doc1", "prediction": "\xe9"}\n')
    assert "p.jsonl line 2: byte 0xe9 is not UTF-8" in bad_input(capsys, "evaluate", str(references), str(path))


def test_evaluate_names_a_folder_given_as_predictions(references, tmp_path, capsys, no_scoring):
    assert "is a folder" in bad_input(capsys, "evaluate", str(references), str(tmp_path), "--no-bertscore")


def test_evaluate_reads_a_pretty_printed_json_prediction(references, tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"id": "doc0", "prediction": "1. A chair comprising a seat."}, indent=2))
    code, out, _ = run(capsys, "evaluate", str(references), str(path), "--no-bertscore", "--no-progress")
    assert code == 0 and "| p | 2 | 1 | 0 |" in out


def test_evaluate_with_no_matching_id_is_bad_input_not_a_table_of_zeros(references, tmp_path, capsys, no_scoring):
    path = predictions(tmp_path, [{"id": "other", "prediction": "1. A chair."}])
    err = bad_input(capsys, "evaluate", str(references), path, "--no-bertscore")
    assert "p.jsonl: no prediction id matches a reference id (prediction ids: other; reference ids: doc0" in err


def test_evaluate_refuses_a_reference_id_used_twice(tmp_path, capsys, no_scoring):
    refs = predictions(tmp_path, [{"id": "a", "claims": GOLD}, {"id": "a ", "claims": GOLD}], "refs.jsonl")
    preds = predictions(tmp_path, [{"id": "a", "prediction": "1. A chair."}])
    assert "refs.jsonl:2 (id a): the id of" in bad_input(capsys, "evaluate", refs, preds, "--no-bertscore")


def test_evaluate_strips_prediction_ids_as_it_strips_reference_ids(references, tmp_path, capsys):
    path = predictions(tmp_path, [{"id": " doc0 ", "prediction": "1. A chair comprising a seat."}])
    code, out, _ = run(capsys, "evaluate", str(references), path, "--no-bertscore", "--no-progress")
    assert code == 0 and "| p | 2 | 1 | 0 |" in out


def test_evaluate_refuses_predictions_nested_too_deeply(references, tmp_path, capsys, no_scoring):
    path = tmp_path / "p.jsonl"
    path.write_text("[" * 100000 + "\n")
    assert "p.jsonl" in bad_input(capsys, "evaluate", str(references), str(path), "--no-bertscore")


def test_evaluate_refuses_a_bertscore_model_that_is_not_there_before_scoring(references, tmp_path, capsys, no_scoring):
    path = predictions(tmp_path, [{"id": "doc0", "prediction": "1. A chair."}])
    err = bad_input(capsys, "evaluate", str(references), path, "--bertscore-model", str(tmp_path / "no-model"))
    assert "--bertscore-model" in err and "no-model" in err


# ---------------------------------------------------------------- generate


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--max-new-tokens", "0"], "max_new_tokens (--max-new-tokens) must be at least 1, got 0"),
        (["--max-new-tokens", "-5"], "max_new_tokens (--max-new-tokens) must be at least 1, got -5"),
        (["--temperature", "0"], "temperature (--temperature) must be above 0 when sampling (--greedy does not sample), got 0.0"),
        (["--temperature", "-1"], "temperature (--temperature) must be above 0 when sampling (--greedy does not sample), got -1.0"),
        (["--batch-size", "0"], "batch_size (--batch-size) must be at least 1, got 0"),
        (["--limit", "-1"], "--limit must be at least 1, got -1"),
        (["--max-new-tokens", "1"], "max_new_tokens (--max-new-tokens) must be at least 4 for constrained decoding"),
        (["--max-prompt-tokens", "0"], "max_prompt_tokens (--max-prompt-tokens) must be at least 2, got 0"),
    ],
)
def test_generate_refuses_settings_out_of_range_before_a_model_loads(flags, named, capsys, no_model):
    assert named in bad_input(capsys, "generate", "--no-progress", *flags)


@pytest.mark.parametrize(
    ("yaml", "named"),
    [
        ("temperature: [0.1\nbatch_size: 2\n", "gen.yaml line 2, column 11: not valid YAML"),
        ("temperature: hot\n", "gen.yaml: temperature: 'hot' is not a valid float"),
        ("batch_size: 0\n", "gen.yaml: batch_size must be at least 1, got 0"),
        ("max_new_tokens: 8\nmin_new_tokens: 8\n",
         "gen.yaml: min_new_tokens must be below max_new_tokens (8) for constrained decoding, got 8"),
    ],
)
def test_generate_refuses_a_bad_config_file_in_one_line(yaml, named, tmp_path, capsys, no_model):
    config = tmp_path / "gen.yaml"
    config.write_text(yaml)
    assert named in bad_input(capsys, "generate", "--config", str(config), "--no-progress")


def test_generate_refuses_an_input_whose_every_description_is_empty_before_a_model_loads(tmp_path, capsys, no_model):
    records = tmp_path / "empty.jsonl"
    records.write_text('{"id": "a", "description": "  "}\n{"id": "b", "description": ""}\n')
    err = bad_input(capsys, "generate", "--input", str(records), "--no-progress")
    assert f"{records}: every description is empty" in err


def test_generate_refuses_a_folder_as_output(tmp_path, capsys, no_model):
    assert "is a folder" in bad_input(capsys, "generate", "--output", str(tmp_path), "--no-progress")


def test_generate_refuses_a_records_file_as_output_and_leaves_it_alone(tmp_path, capsys, no_model):
    records = tmp_path / "records.jsonl"
    text = json.dumps({"id": "r1", "description": "A chair.", "claims": "1. A chair."}) + "\n"
    records.write_text(text)
    assert "records.jsonl line 1: not spg result output" in bad_input(capsys, "generate", "--output", str(records))
    assert records.read_text() == text


def test_generate_refuses_a_users_half_written_notes_file_and_leaves_it_alone(tmp_path, capsys, no_model):
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"id": "idea", "text": "half')
    assert "notes.jsonl line 1: not spg result output" in bad_input(capsys, "generate", "--output", str(notes))
    assert notes.read_text() == '{"id": "idea", "text": "half' and len(list(tmp_path.iterdir())) == 1


# ---------------------------------------------------------------- where results go (spg.files)


def test_evaluate_out_refuses_a_users_table_before_scoring_and_leaves_it_alone(references, tmp_path, capsys,
                                                                               no_scoring):
    out = tmp_path / "out"
    out.mkdir()
    (out / "table.md").write_text("# my table\n")
    err = bad_input(capsys, "evaluate", str(references), str(references), "--no-bertscore", "--out", str(out))
    assert "table.md: not spg evaluation output" in err
    assert (out / "table.md").read_text() == "# my table\n" and len(list(out.iterdir())) == 1


def test_evaluate_out_never_writes_through_a_symbolic_link(references, tmp_path, capsys, no_scoring):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere.jsonl"
    out.mkdir()
    elsewhere.write_text("precious\n")
    (out / "documents.jsonl").symlink_to(elsewhere)
    err = bad_input(capsys, "evaluate", str(references), str(references), "--no-bertscore", "--out", str(out))
    assert "documents.jsonl: is a symbolic link" in err and elsewhere.read_text() == "precious\n"


def test_evaluate_out_naming_a_file_is_refused_before_scoring(references, tmp_path, capsys, no_scoring):
    out = tmp_path / "out.txt"
    out.write_text("x")
    assert "is not a folder" in bad_input(capsys, "evaluate", str(references), str(references), "--no-bertscore",
                                          "--out", str(out))


def test_evaluate_out_rerun_keeps_the_previous_report(references, tmp_path, capsys):
    out = tmp_path / "out"
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"id": f"doc{i}", "prediction": "1. A chair."}) + "\n" for i in (0, 1)))
    args = ["evaluate", str(references), str(predictions), "--no-bertscore", "--no-progress", "--out", str(out)]
    assert main(args) == 0
    predictions.write_text(json.dumps({"id": "doc0", "prediction": "1. A stool."}) + "\n")
    assert main(args) == 0
    assert "kept the previous version as table.md.~1~" in capsys.readouterr().err
    assert {"table.md.~1~", "table.json.~1~", "documents.jsonl.~1~"} <= {p.name for p in out.iterdir()}


def test_pairs_refuses_a_records_file_as_pairs_before_a_model_loads(references, tmp_path, capsys):
    before = references.read_bytes()
    err = bad_input(capsys, "pairs", f"model={tmp_path / 'no-model'}", f"data={references}", f"pairs={references}")
    assert "line 1: not spg pairs output" in err and references.read_bytes() == before


def test_dea_out_naming_a_file_is_refused_before_a_model_loads(references, tmp_path, capsys):
    out = tmp_path / "out.txt"
    out.write_text("x")
    err = bad_input(capsys, "dea", str(references), "--model", str(tmp_path / "no-model"), "--out", str(out))
    assert "is not a folder" in err


def test_reproduce_refuses_a_users_config_copy_or_report_before_any_job(references, tmp_path, capsys):
    import yaml

    out = tmp_path / "out"
    out.mkdir()
    recipe = tmp_path / "repro.yaml"
    recipe.write_text(yaml.safe_dump({"output_dir": str(out), "data": str(references), "report": str(tmp_path / "r.md"),
                                      "systems": [{"name": "Zero-shot", "kind": "zero-shot"}]}))
    (tmp_path / "r.md").write_text("my report\n")
    assert "r.md: not spg reproduce output" in bad_input(capsys, "reproduce", "--config", str(recipe))
    (out / "config.yaml").write_text("mine: 1\n")
    assert "config.yaml: not spg reproduce output" in bad_input(capsys, "reproduce", "--config", str(recipe))
    assert (tmp_path / "r.md").read_text() == "my report\n" and (out / "config.yaml").read_text() == "mine: 1\n"
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from tiny import tiny_llama, tiny_tokenizer

    path = tmp_path_factory.mktemp("tiny")
    tiny_llama().save_pretrained(path)
    tiny_tokenizer().save_pretrained(path)
    return path


def test_generate_refuses_a_prompt_budget_shorter_than_the_chat_template_before_a_model_loads(
    tiny_model, no_model, capsys
):
    err = bad_input(capsys, "generate", "--model", str(tiny_model), "--max-prompt-tokens", "20", "--no-progress")
    assert "max_prompt_tokens (--max-prompt-tokens) 20 leaves no room for the description" in err


def test_reproduce_dry_run_refuses_a_prompt_budget_a_zero_shot_models_template_leaves_no_room_in(
    tiny_model, references, tmp_path, capsys
):
    import yaml

    (tmp_path / "generate.yaml").write_text("max_prompt_tokens: 20\n")
    recipe = tmp_path / "repro.yaml"
    recipe.write_text(yaml.safe_dump({
        "output_dir": str(tmp_path / "out"), "data": str(references), "generate": str(tmp_path / "generate.yaml"),
        "systems": [{"name": "Zero-shot", "kind": "zero-shot", "model": str(tiny_model)}]}))
    err = bad_input(capsys, "reproduce", "--config", str(recipe), "--dry-run")
    assert "decoding paper: max_prompt_tokens 20 leaves no room for the description" in err


@pytest.mark.parametrize("model", ["tiny", "spg-smollm2", "smollm2"])
def test_the_prompt_frame_counted_before_loading_is_the_loaded_tokenizers(model, tiny_model):
    from transformers import AutoTokenizer

    from spg.generation.prompts import ZERO_SHOT_INSTRUCTION, frame_before_loading
    from spg.model.config import INSTRUCTION, embedded_folder
    from spg.model.prompt import prompt_frame

    name = str(tiny_model) if model == "tiny" else model
    folder = {"tiny": tiny_model, "spg-smollm2": REPO / "spg/pretrained/spg-smollm2/stage1"}.get(model)
    if folder is None:
        if not embedded_folder().is_dir():
            requirement_missing("the converted embedded model (scripts/setup.sh converts it)")
        folder = embedded_folder()
    instruction = INSTRUCTION if model == "spg-smollm2" else ZERO_SHOT_INSTRUCTION
    assert frame_before_loading(name) == prompt_frame(AutoTokenizer.from_pretrained(folder), instruction)


def test_generate_checks_the_prompt_budget_after_loading_where_the_tokenizer_could_not_be_read_before(
    tiny_model, monkeypatch, capsys
):
    monkeypatch.setattr("spg.generation.prompts.frame_before_loading", lambda *a, **k: None)
    err = bad_input(capsys, "generate", "--model", str(tiny_model), "--max-prompt-tokens", "20", "--no-progress")
    assert "max_prompt_tokens 20 leaves no room for the description" in err


def test_generate_without_progress_shows_no_loading_bar(tiny_model, tmp_path, capsys):
    description = tmp_path / "d.txt"
    description.write_text("A chair with a seat.")
    code, _, err = run(capsys, "generate", "--model", str(tiny_model), "--input", str(description),
                       "--max-new-tokens", "2", "--no-progress")
    assert code == 0 and "Loading weights" not in err and "it/s" not in err


# ---------------------------------------------------------------- train


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--config", "no-such.yaml"], "no-such.yaml: cannot read config (No such file or directory)"),
        (["--config", "configs/cpu/smollm2-stage1.yaml", "max_steps=abc"], "'abc' is not a valid int"),
        (["--config", "configs/cpu/smollm2-stage1.yaml"], "train_file is not set"),
        (["--config", "configs/cpu/smollm2-stage1.yaml", "train_file=no-such.jsonl"], "no-such.jsonl: no such file"),
        (["--config", "configs/cpu/smollm2-stage1.yaml", "train_file=x.jsonl", "pointer_query=middle"],
         "pointer_query must be one of open, close, got 'middle'"),
        (["--config", "configs/cpu/smollm2-stage1.yaml", "train_file=x.jsonl", "aux_state_norm=layer"],
         "aux_state_norm must be one of none, rms, got 'layer'"),
    ],
)
def test_train_stage1_refuses_a_bad_config_before_a_model_loads(args, named, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.setattr("spg.train.stage1.train", lambda *a, **k: pytest.fail("training started"))
    assert named in bad_input(capsys, "train", "stage1", *args)


def test_train_stage1_refuses_bf16_without_a_gpu_that_has_it(capsys, monkeypatch, uspto_path):
    monkeypatch.chdir(REPO)
    monkeypatch.setattr("transformers.utils.is_torch_bf16_gpu_available", lambda: False)
    monkeypatch.setattr("spg.train.stage1.train", lambda *a, **k: pytest.fail("training started"))
    args = ["--config", "configs/cpu/smollm2-stage1.yaml", f"train_file={uspto_path}", "bf16=true"]
    assert "bf16 is true but this machine has no GPU with bfloat16" in bad_input(capsys, "train", "stage1", *args)
