"""``spg renumber`` (spg.renumber, spg.cli.renumber): a stable order with no forward reference, every numbered
citation rewritten, text and Word documents, a new file only; and the web app's Renumber endpoint."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from conftest import requirement_missing

sys.path.insert(0, str(Path(__file__).parent))
from docx_files import claims_document  # noqa: E402

from spg.cli import main  # noqa: E402
from spg.docx import read_docx  # noqa: E402
from spg.errors import InputError  # noqa: E402
from spg.parse import parse_claims  # noqa: E402
from spg.renumber import citation_edits, new_numbers, renumber_docx, renumber_text  # noqa: E402

GRINDER = ("1. A grinder comprising a burr defining a grinding gap.\n"
           "2. The grinder of claim 3, further comprising a cup below the grinding gap.\n"
           "3. The grinder of claim 1, further comprising a timer.\n"
           "4. The grinder of claim 2 or 3, wherein the burr is steel.\n")


def test_a_claim_citing_a_later_one_moves_after_it_and_every_citation_follows():
    assert renumber_text(parse_claims(GRINDER)) == (
        "1. A grinder comprising a burr defining a grinding gap.\n"
        "2. The grinder of claim 1, further comprising a timer.\n"
        "3. The grinder of claim 2, further comprising a cup below the grinding gap.\n"
        "4. The grinder of claim 3 or 2, wherein the burr is steel.\n"
    )


def test_the_order_is_stable_and_numbers_close_gaps():
    # no forward reference: the order stays, only the gap (claims 1, 5, 7) closes
    forest = parse_claims("1. A cup.\n5. The cup of claim 1, being red.\n7. A lid.\n")
    assert new_numbers(forest) == {1: 1, 5: 2, 7: 3}
    # the earliest placeable claim goes first: claim 2 waits for 5, claims 3 and 4 keep their places
    forest = parse_claims("1. A cup.\n2. The cup of claim 5.\n3. A lid.\n4. The lid of claim 3.\n5. The cup of claim 1.\n")
    assert new_numbers(forest) == {1: 1, 3: 2, 4: 3, 5: 4, 2: 5}


@pytest.mark.parametrize(("phrase", "expected"), [
    ("The cup of any of claims 2 to 4, wherein", "The cup of any of claims 2, 3 or 5, wherein"),
    ("The cup of claims 2-4, wherein", "The cup of claims 2, 3 and 5, wherein"),
    ("The cup of claim 5 or claim 2, wherein", "The cup of claim 4 or claim 5, wherein"),
    ("The cup of claims 3, 4 and 5, wherein", "The cup of claims 2, 3 and 4, wherein"),
])
def test_citations_are_rewritten_and_a_broken_range_becomes_a_list(phrase, expected):
    numbers = {1: 1, 2: 5, 3: 2, 4: 3, 5: 4, 6: 6}
    edits = citation_edits(phrase, 6, numbers)
    out, at = "", 0
    for start, end, new in edits:
        out, at = out + phrase[at:start] + new, end
    assert out + phrase[at:] == expected


def test_a_range_still_consecutive_keeps_its_wording():
    numbers = {1: 1, 2: 3, 3: 2, 4: 4}
    assert citation_edits("The cup of any of claims 1-3, wherein", 4, numbers) == []


@pytest.mark.parametrize(("claims", "named"), [
    ("1. A cup.\n2. The cup of claim 3.\n3. The cup of claim 2.\n", "claim 2: its citations go round (2 → 3 → 2)"),
    ("1. A cup.\n2. The cup of claim 2.\n", "claim 2: its citations go round (2 → 2)"),
    ("1. A cup.\n2. The cup of claim 9.\n", "claim 2: cites claim 9, which does not exist"),
    ("1. A cup.\n2. The cup of claim 1.\n2. The cup of claim 1, red.\n", "claim 2: the number is used twice"),
])
def test_no_order_to_write_names_the_claim(claims, named):
    with pytest.raises(InputError, match=named.replace("(", r"\(").replace(")", r"\)")):
        new_numbers(parse_claims(claims))


def test_a_long_ring_is_named_in_one_short_line():
    text = "1. A cup.\n" + "".join(f"{k}. The cup of claim {k + 1}.\n" for k in range(2, 2000)) + "2000. The cup of claim 2.\n"
    with pytest.raises(InputError) as error:
        new_numbers(parse_claims(text))
    assert str(error.value).startswith("claim 2: its citations go round (2 → 3 → 4 → 5 → … → 1999 → 2000 → 2)")


def _bold_citation_document() -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph("What is claimed is:")
    document.add_paragraph("1. A grinder comprising:")
    document.add_paragraph("a burr; and")
    document.add_paragraph("a motor.")
    second = document.add_paragraph("2. The grinder of ")
    second.add_run("claim 3").bold = True
    second.add_run(", further comprising a cup.")
    document.add_paragraph("3. The grinder of claim 1, further comprising a timer.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_word_document_keeps_its_runs_and_paragraphs_and_only_the_numbers_change():
    import docx

    data = _bold_citation_document()
    out = renumber_docx(data, "g.docx")
    assert read_docx(out, "out").claims_text.splitlines() == [
        "1. A grinder comprising: a burr; and a motor.",
        "2. The grinder of claim 1, further comprising a timer.",
        "3. The grinder of claim 2, further comprising a cup.",
    ]
    before, after = docx.Document(io.BytesIO(data)), docx.Document(io.BytesIO(out))
    assert len(after.paragraphs) == len(before.paragraphs)
    moved = after.paragraphs[-1]  # the old claim 2, now last
    assert [(r.text, r.bold) for r in moved.runs] == [("3. The grinder of ", None), ("claim 2", True),
                                                      (", further comprising a cup.", None)]
    assert [p.text for p in after.paragraphs[1:4]] == ["1. A grinder comprising:", "a burr; and", "a motor."]


@pytest.mark.parametrize("layout", ["auto", "tracked", "after-description"])
def test_word_layouts_renumber(layout):
    claims = [(1, "A grinder comprising: a burr; and a motor."), (2, "The grinder of claim 3, further comprising a cup."),
              (3, "The grinder of claim 1, further comprising a timer.")]
    out = renumber_docx(claims_document(claims, layout), "g.docx")
    assert read_docx(out, "out").claims_text.splitlines()[1:] == [
        "2. The grinder of claim 1, further comprising a timer.",
        "3. The grinder of claim 2, further comprising a cup.",
    ]


def test_claims_in_a_table_are_not_moved_but_named():
    claims = [(1, "A grinder."), (2, "The grinder of claim 3, with a cup."), (3, "The grinder of claim 1.")]
    with pytest.raises(InputError, match=r"g.docx: claim \d is inside a table"):
        renumber_docx(claims_document(claims, "table"), "g.docx")


# ---------------------------------------------------------------- the command

def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_writes_a_new_text_file_and_never_the_input(tmp_path, capsys):
    source = tmp_path / "claims.txt"
    source.write_text(GRINDER, encoding="utf-8")
    out = tmp_path / "renumbered.txt"
    code, _, err = run(capsys, "renumber", str(source), str(out))
    assert code == 0 and "wrote" in err
    assert out.read_text(encoding="utf-8").splitlines()[1] == "2. The grinder of claim 1, further comprising a timer."
    assert source.read_text(encoding="utf-8") == GRINDER
    code, _, err = run(capsys, "renumber", str(source), str(source), "--force")
    assert code == 2 and err.count("\n") == 1 and "is the input" in err
    code, _, err = run(capsys, "renumber", str(source), str(out))  # an existing file: only with --force
    assert code == 2 and "already exists; use --force" in err
    assert source.read_text(encoding="utf-8") == GRINDER


def test_cli_a_cycle_exits_2_with_one_line_naming_the_claim(tmp_path, capsys):
    source = tmp_path / "claims.txt"
    source.write_text("1. A cup.\n2. The cup of claim 3.\n3. The cup of claim 2.\n", encoding="utf-8")
    code, out, err = run(capsys, "renumber", str(source), str(tmp_path / "out.txt"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "claim 2: its citations go round" in err
    assert not (tmp_path / "out.txt").exists()


def test_cli_an_empty_input_is_bad_input_and_nothing_is_written(tmp_path, capsys):
    source = tmp_path / "empty.txt"
    source.write_text("\n", encoding="utf-8")
    code, _, err = run(capsys, "renumber", str(source), str(tmp_path / "out.txt"))
    assert code == 2 and "no claims to renumber" in err and not (tmp_path / "out.txt").exists()


def test_cli_renumbers_a_word_document_into_a_marked_copy(tmp_path, capsys):
    source = tmp_path / "claims.docx"
    source.write_bytes(_bold_citation_document())
    out = tmp_path / "renumbered.docx"
    assert run(capsys, "renumber", str(source), str(out))[0] == 0
    assert read_docx(out.read_bytes(), "out").claims_text.splitlines()[2].startswith("3. The grinder of claim 2")
    assert run(capsys, "renumber", str(source), str(out))[0] == 0  # its own earlier output may be replaced
    code, _, err = run(capsys, "renumber", str(source), str(tmp_path / "renumbered.txt"))
    assert code == 2 and "expected an output name ending .docx" in err
    other = tmp_path / "someone.docx"
    other.write_bytes(_bold_citation_document())
    code, _, err = run(capsys, "renumber", str(source), str(other))
    assert code == 2 and "never writes over a file it did not write" in err


def test_cli_help_explains_the_command(capsys):
    with pytest.raises(SystemExit) as done:
        main(["renumber", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert done.value.code == 0 and "after the claims it cites" in out and "IN is never changed" in out


def test_the_web_app_renumbers_the_editor_text(tmp_path):
    try:
        from starlette.testclient import TestClient
    except ImportError:
        requirement_missing("the serve extra (starlette)")

    from spg.serve.app import Settings, build_app

    client = TestClient(build_app(Settings(max_body=2**20, suppression_file=tmp_path / ".spg-lint.yaml"), None),
                        base_url="http://127.0.0.1:8000")
    answer = client.post("/api/renumber", json={"text": GRINDER})
    assert answer.status_code == 200 and answer.json()["text"] == renumber_text(parse_claims(GRINDER))
    answer = client.post("/api/renumber", json={"text": "1. A cup.\n2. The cup of claim 3.\n3. The cup of claim 2.\n"})
    assert answer.status_code == 400 and "claim 2: its citations go round" in answer.json()["error"]
