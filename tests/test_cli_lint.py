import io
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spg.cli import main
from spg.lint import lint, lint_lines, report_json, tree_lines
from spg.parse import parse_claims

SOUND = (
    "1. A chair comprising a seat. 2. The chair of claim 1, wherein the seat is round. "
    "3. The chair of claim 2, wherein the seat is red. 4. A table comprising a top."
)
BROKEN = (
    "1. A chair comprising a seat.\n2. The chair of claim 1, wherein the seat is round.\n3. The chair of claim 9.\n"
)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name: str, content) -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def test_lint_prints_the_forest_indented_by_depth_and_exits_0_when_sound(tmp_path, capsys):
    code, out, _ = run(capsys, "lint", write(tmp_path, "c.txt", SOUND))
    assert code == 0
    assert out.splitlines()[:4] == [
        "1 [ind] A chair comprising a seat.",
        "  2 [dep→1] The chair of claim 1, wherein the seat is round.",
        "    3 [dep→2] The chair of claim 2, wherein the seat is red.",
        "4 [ind] A table comprising a top.",
    ]
    assert "4 claims (2 independent, 2 dependent, max depth 3); 0 errors, 0 warnings, 0 info" in out


def test_lint_exits_1_and_names_the_claim_on_structural_errors(tmp_path, capsys):
    code, out, _ = run(capsys, "lint", write(tmp_path, "c.txt", BROKEN))
    assert code == 1
    assert "error: claim 3: cites claim 9, which does not exist [missing-parent]" in out
    assert "outside any tree:\n  3 [dep→9] The chair of claim 9." in out


def test_lint_warnings_alone_keep_exit_code_0(tmp_path, capsys):
    code, out, _ = run(capsys, "lint", write(tmp_path, "c.txt", "1. A chair.\n3. The chair of claim 1.\n"))
    assert code == 0 and "[missing-number]" in out


def test_lint_lists_missing_antecedent_basis_as_warnings(tmp_path, capsys):
    text = "1. A chair comprising a seat.\n2. The chair of claim 1, wherein the lever is red.\n"
    code, out, _ = run(capsys, "lint", write(tmp_path, "c.txt", text))
    assert code == 0
    line = next(x for x in out.splitlines() if x.endswith("[antecedent]"))
    assert line.startswith("warning: claim 2: 'the lever'")
    assert "0 errors, 1 warnings, 0 info" in out


def test_lint_prints_exactly_lint_lines(tmp_path, capsys):
    text = "1. A chair comprising a seat.\n2. The chair of claim 1, wherein the lever is red.\n3. The chair of claim 9.\n"
    code, out, _ = run(capsys, "lint", write(tmp_path, "c.txt", text))
    assert code == 1
    assert out.splitlines() == lint_lines(parse_claims(text))


def test_lint_shortens_long_claims_and_shows_every_cited_claim(tmp_path, capsys):
    text = "1. A chair.\n2. A table.\n3. The chair according to claim 2 or 1, " + "very " * 30 + "long.\n"
    _, out, _ = run(capsys, "lint", write(tmp_path, "c.txt", text))
    line = next(x for x in out.splitlines() if x.lstrip().startswith("3 "))
    assert line.startswith("  3 [dep→1 (cites 1, 2)] The chair according to claim 2 or 1, very")
    assert line.endswith("…") and len(line.split("] ", 1)[1]) == 70


def test_lint_json_has_claims_findings_and_summary(tmp_path, capsys):
    code, out, _ = run(
        capsys, "lint", "--json", write(tmp_path, "c.txt", BROKEN + "4. The chair of claim 1, with the lever.\n")
    )
    report = json.loads(out)
    assert code == 1 and set(report) == {"claims", "findings", "summary", "claim_count", "terms"}
    assert report["claims"][1] == {"num": 2, "parents": [1], "parent": 1, "depth": 2, "independent": False,
                                   "text": "The chair of claim 1, wherein the seat is round.",
                                   "key": report["claims"][1]["key"]}
    assert len({c["key"] for c in report["claims"]}) == 4  # claim_key (tests/test_lint_suppress.py)
    assert report["claims"][2]["depth"] is None
    assert report["findings"][0] == {
        "rule": "missing-parent", "severity": "error", "claim": 3, "start": None, "end": None, "term": None,
        "message": "cites claim 9, which does not exist",
    }
    assert {"rule": "antecedent", "claim": 4, "term": "the lever"}.items() <= report["findings"][1].items()
    assert report["summary"] == {"error": 1, "warning": 1, "info": 0, "suppressed": 0, "description_checked": False}


def test_lint_json_is_printed_in_batches_as_json_dumps_prints_it(tmp_path, capsys):
    from spg.cli.lint import _print_json

    result = lint(parse_claims(BROKEN + "4. The chair of claim 1, with the lever \u2028 \u2026.\n"), terms=True)
    report = report_json(result)
    for batch in (1, 7, 65_536):  # a piece per write, pieces cut anywhere, all in one write
        _print_json(report, batch)
        assert capsys.readouterr().out == json.dumps(report, ensure_ascii=False, indent=1) + "\n"


def test_lint_json_printer_writes_any_json_value_as_json_dumps_does(capsys):
    from spg.cli.lint import _print_json

    # big containers (written item by item) inside small ones and the other way round, every kind of scalar and key
    small = {"n": None, "t": True, "f": False, "x": 1.5, "i": -3, "s": "a\u2028\"\\ \u2026", "e": [], "d": {},
             "tuple": (1, "x"), 2: "int key", 2.5: "float key", None: "null key"}
    value = {"many": [dict(small, k=k) for k in range(200)], "one": {"deep": [[k] for k in range(100)]},
             "nan": [float("nan"), float("inf")], "empty": {}, "small": small}
    _print_json(value, 3)
    assert capsys.readouterr().out == json.dumps(value, ensure_ascii=False, indent=1) + "\n"


SPANNED = (  # a finding with a place of most kinds: structure, antecedent, 112(f), repetition, description support
    "1. A stool comprising a seat, a leg, a leg and means for folding the leg.\n"
    "2. The stool of claim 1, wherein the lever is red.\n"
    "3. The stool of claims 1 and 2, wherein the seat is round.\n"
    "4. The stool of claim 3 or 1, wherein the leg is oak.\n"
    "5. The stool of claim 4 or 1, further comprising a headrest.\n"
    "6. The stool of claim 1, wherein the seat is round.\n"
)


def test_every_findings_span_slices_its_claims_json_text_to_the_flagged_words(tmp_path, capsys):
    """docs/lint.md: start/end index the claim's ``text`` in the same output."""
    claims = write(tmp_path, "c.txt", SPANNED)
    description = write(tmp_path, "d.txt", "A stool has a seat, legs and a lever.")
    _, out, _ = run(capsys, "lint", "--json", "--no-config", "--description", description, claims)
    report = json.loads(out)
    text = {c["num"]: c["text"] for c in report["claims"]}
    placed = [f for f in report["findings"] if f["start"] is not None]
    assert len({f["rule"] for f in placed}) >= 5, placed
    for f in placed:
        words = text[f["claim"]][f["start"]:f["end"]]
        assert words and words == words.strip(), f
        assert words == (f["term"] if f["term"] is not None else words), f
    cumulative = next(f for f in placed if f["rule"] == "multiple-dependency-cumulative")
    assert text[3][cumulative["start"]:cumulative["end"]] == "claims 1 and 2"
    assert text[2] == "The stool of claim 1, wherein the lever is red."  # without its number, as docs/lint.md says


@pytest.mark.parametrize(
    "content",
    [
        ["A chair comprising a seat.", "The chair of claim 1, wherein the seat is round."],
        [
            {"num": 1, "text": "A chair comprising a seat."},
            {"num": 2, "text": "The chair, with a back.", "parents": [1]},
        ],
        {"id": "X", "claims": "1. A chair comprising a seat. 2. The chair of claim 1, wherein the seat is round."},
    ],
    ids=["texts", "records-with-gold-parents", "object-with-claims"],
)
def test_lint_reads_every_json_form(tmp_path, capsys, content):
    code, out, _ = run(capsys, "lint", "--json", write(tmp_path, "c.json", content))
    assert code == 0
    assert [(c["num"], c["parents"]) for c in json.loads(out)["claims"]] == [(1, []), (2, [1])]


def test_lint_reads_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BROKEN.encode())))
    code, out, _ = run(capsys, "lint", "-")
    assert code == 1 and "[missing-parent]" in out


def test_lint_exits_2_naming_an_unreadable_file(tmp_path, capsys):
    missing = str(tmp_path / "nope.txt")
    code, out, err = run(capsys, "lint", missing)
    assert (code, out) == (2, "") and f"{missing}: cannot read (No such file or directory)" in err


def test_lint_exits_2_on_malformed_json(tmp_path, capsys):
    code, _, err = run(capsys, "lint", write(tmp_path, "c.json", '["A chair.", '))
    assert code == 2 and "c.json: not valid JSON" in err
    code, _, err = run(capsys, "lint", write(tmp_path, "d.json", {"claims": 5}))
    assert code == 2 and "d.json: field 'claims' must be a string or a list of claims" in err


def test_lint_on_real_hupd_dcg_record(hupd_dcg_path, capsys):
    code, out, _ = run(capsys, "lint", str(hupd_dcg_path))
    assert code == 0 and "6 claims (1 independent, 5 dependent" in out


FRAGMENTS = [
    "1.",
    "2.",
    "3 .",
    "A chair",
    "the seat",
    "said lever",
    "of claim 1",
    "of claim 5",
    "claims 1 to 3",
    "any preceding claim",
    "claim 2 or 1",
    "\n",
    ", wherein",
    "comprising:",
    "(DR)",
    "a",
    "an arm",
    "12.",
]


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=300), st.lists(st.sampled_from(FRAGMENTS), max_size=40).map(" ".join)))
def test_linter_never_raises_on_arbitrary_text(text):
    forest = parse_claims(text)
    assert len(tree_lines(forest)) >= len(forest)
    json.dumps(report_json(lint(forest)))


def test_python_dash_m_spg_cli_runs_the_spg_command():
    done = subprocess.run([sys.executable, "-m", "spg.cli", "lint", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "usage: spg lint" in done.stdout


DEFECTS = "1. A chair comprising means for rocking.\n2. The chair of claim 1.\n3. The chair of claims 1 and 2.\n"


def test_lint_ignore_removes_rules_counts_them_and_decides_the_exit_code(tmp_path, capsys):
    path = write(tmp_path, "c.txt", DEFECTS)
    code, out, _ = run(capsys, "lint", "--no-config", path)
    assert code == 1 and "[multiple-dependency-cumulative]" in out
    code, out, _ = run(capsys, "lint", "--ignore", "multiple-dependency-cumulative,means-plus-function", path)
    assert code == 0 and "[multiple-dependency-cumulative]" not in out and out.rstrip().endswith(", 2 suppressed")


def test_lint_finds_the_suppression_file_beside_the_claims_unless_told_not_to(tmp_path, capsys):
    (tmp_path / ".spg-lint.yaml").write_text("ignore: [multiple-dependency-cumulative]\n")
    path = write(tmp_path, "c.txt", DEFECTS)
    assert run(capsys, "lint", path)[0] == 0
    assert run(capsys, "lint", "--no-config", path)[0] == 1
    other = tmp_path / "elsewhere.yaml"
    other.write_text("ignore: [means-plus-function]\n")
    code, out, _ = run(capsys, "lint", "--config", str(other), path)
    assert code == 1 and "[means-plus-function]" not in out


def test_lint_exits_2_on_an_unknown_rule_or_a_bad_suppression_file(tmp_path, capsys):
    path = write(tmp_path, "c.txt", DEFECTS)
    code, _, err = run(capsys, "lint", "--ignore", "antecedant", path)
    assert code == 2 and "--ignore: unknown rule 'antecedant'" in err and err.count("\n") == 1
    bad = write(tmp_path, "bad.yaml", "ignore: [")
    code, _, err = run(capsys, "lint", "--config", bad, path)
    assert code == 2 and "bad.yaml" in err and "not valid YAML" in err


def test_lint_checks_description_support_from_a_file_or_the_record(tmp_path, capsys):
    claims = "1. A chair comprising a seat and a headrest.\n"
    desc = write(tmp_path, "d.txt", "A chair has a seat.")
    code, out, _ = run(capsys, "lint", "--description", desc, write(tmp_path, "c.txt", claims))
    assert code == 0 and "'headrest'" in out and "[description-support]" in out
    record = write(tmp_path, "r.json", {"id": "R", "claims": claims, "description": "A chair has a seat."})
    assert "[description-support]" in run(capsys, "lint", record)[1]
    assert "[description-support]" not in run(capsys, "lint", write(tmp_path, "c2.txt", claims))[1]


def test_lint_html_writes_a_report_and_never_overwrites_without_force(tmp_path, capsys):
    path, report = write(tmp_path, "c.txt", DEFECTS), tmp_path / "r.html"
    code, out, _ = run(capsys, "lint", "--html", str(report), path)
    assert code == 1 and report.read_text().startswith("<!DOCTYPE html>") and "3 claims" in out
    report.write_text("mine")
    code, _, err = run(capsys, "lint", "--html", str(report), path)
    assert code == 2 and "already exists; use --force" in err and report.read_text() == "mine"
    assert run(capsys, "lint", "--html", str(report), "--force", path)[0] == 1
    assert "multiple-dependency-cumulative" in report.read_text()


def test_lint_with_stdin_closed_is_one_line_and_exit_2():
    closed = subprocess.run([sys.executable, "-m", "spg.cli", "lint", "-"], preexec_fn=lambda: os.close(0),
                            capture_output=True, text=True)
    assert closed.returncode == 2 and closed.stderr.count("\n") == 1 and "standard input is closed" in closed.stderr
    empty = subprocess.run([sys.executable, "-m", "spg.cli", "lint", "-"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
    assert empty.returncode == 1 and "[empty]" in empty.stdout  # an empty claim set is a finding, not bad input


def test_lint_reads_claim_text_that_opens_with_a_bracket(tmp_path, capsys):
    code, _, err = run(capsys, "lint", write(tmp_path, "c.txt", "[Claim 1] A widget. [Claim 2] The widget of claim 1."))
    assert code != 2 and err == ""


def test_lint_html_never_writes_over_its_own_input_even_with_force(tmp_path, capsys):
    path = write(tmp_path, "c.txt", DEFECTS)
    code, _, err = run(capsys, "lint", "--html", path, "--force", path)
    assert code == 2 and "is one of the input files" in err
    assert (tmp_path / "c.txt").read_text() == DEFECTS


def test_lint_field_lints_another_field_of_a_record(tmp_path, capsys):
    record = {"id": "r1", "claims": "1. A cup comprising a wall.",
              "system-claim": "1. A cup comprising a wall. 2. The cup of claim 1, wherein the wall is thick. "
                              "3. The cup of claim 1, wherein the wall is thick."}
    path = write(tmp_path, "r.json", record)
    code, out, _ = run(capsys, "lint", path, "--field", "system-claim")
    assert code == 0 and "claim 3: repeats claim 2" in out and "[duplicate-claim]" in out
    code, out, _ = run(capsys, "lint", path)
    assert "duplicate-claim" not in out


def test_lint_field_names_the_fields_that_hold_claims_when_it_is_missing(tmp_path, capsys):
    path = write(tmp_path, "r.json", {"id": "r1", "title": "Cup", "claims": "1. A cup.", "gpt-claim": "1. A mug."})
    code, _, err = run(capsys, "lint", path, "--field", "llama-claim")
    assert code == 2 and "no field 'llama-claim'; expected one of its fields: claims, gpt-claim" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "lint", write(tmp_path, "c.txt", "1. A cup."), "--field", "claims")
    assert code == 2 and "--field needs JSON" in err
