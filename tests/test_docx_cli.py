"""Word documents on the command line: `spg lint FILE.docx`, `--description FILE.docx`, `--docx-comments OUT.docx`,
`spg generate --docx OUT.docx` with a .docx description; hostile .docx files are one line, exit 2."""

import io
import json
import zipfile

import docx
import pytest
from docx_files import LAYOUTS, claims_document

from spg.cli import main
from spg.docx import docx_mark, read_docx

CLAIMS = [(1, "A widget comprising: a lever; and the base."), (2, "The widget of claim 1, wherein the spring is red."),
          (3, "The widget of claim 9.")]
TEXT = "\n".join(f"{n}. {t}" for n, t in CLAIMS)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lint_reads_a_word_document_as_it_reads_the_same_claims_as_text(layout, tmp_path, capsys):
    (tmp_path / "c.txt").write_text(TEXT)
    (tmp_path / "c.docx").write_bytes(claims_document(CLAIMS, layout))
    (tmp_path / "d.txt").write_text("A widget with a lever.")
    text = run(capsys, "lint", "--no-config", "--description", tmp_path / "d.txt", tmp_path / "c.txt")
    word = run(capsys, "lint", "--no-config", "--description", tmp_path / "d.txt", tmp_path / "c.docx")
    assert word == text and word[0] == 1  # claim 9 does not exist: an error


def test_lint_json_of_a_word_document_gives_each_finding_its_paragraph(tmp_path, capsys):
    (tmp_path / "c.docx").write_bytes(claims_document(CLAIMS, "after-description", "A widget with a lever."))
    code, out, _ = run(capsys, "lint", "--no-config", "--json", tmp_path / "c.docx")
    report = json.loads(out)
    paragraphs = read_docx((tmp_path / "c.docx").read_bytes(), "c.docx").claim_paragraphs
    assert [c["paragraph"] for c in report["claims"]] == [paragraphs[1], paragraphs[2], paragraphs[3]]
    assert {(f["claim"], f["paragraph"]) for f in report["findings"]} >= {(1, paragraphs[1]), (2, paragraphs[2])}
    assert report["summary"]["description_checked"]  # the text before "What is claimed is:"


def test_a_description_document_is_read_for_description_support(tmp_path, capsys):
    description = docx.Document()
    description.add_paragraph("A widget has a lever, a base and a spring.")
    buffer = io.BytesIO()
    description.save(buffer)
    (tmp_path / "d.docx").write_bytes(buffer.getvalue())
    (tmp_path / "c.txt").write_text(TEXT)
    _, out, _ = run(capsys, "lint", "--no-config", "--json", "--description", tmp_path / "d.docx", tmp_path / "c.txt")
    report = json.loads(out)
    assert report["summary"]["description_checked"]
    assert not [f for f in report["findings"] if f["rule"] == "description-support"]


def test_docx_comments_writes_a_commented_copy_once_and_never_over_a_file_spg_did_not_write(tmp_path, capsys):
    source = tmp_path / "c.docx"
    source.write_bytes(claims_document(CLAIMS, "numbered"))
    before = source.read_bytes()
    out = tmp_path / "out.docx"
    code, _, err = run(capsys, "lint", "--no-config", source, "--docx-comments", out)
    assert code == 1 and err == "" and source.read_bytes() == before
    written = out.read_bytes()
    assert docx_mark(written) == "lint-comments"
    comments = [c.text for c in docx.Document(io.BytesIO(written)).comments]
    assert any("the base" in c for c in comments) and any("claim 9" in c for c in comments)
    assert run(capsys, "lint", "--no-config", source, "--docx-comments", out)[2] == ""  # the same: left alone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.docx", "out.docx"]
    for target in (source, tmp_path / "other.docx"):
        if not target.exists():
            target.write_bytes(before)  # a Word document spg did not write
        code, _, err = run(capsys, "lint", "--no-config", out, "--docx-comments", target)
        assert code == 2 and len(err.splitlines()) == 1 and str(target.name) in err
        assert target.read_bytes() == before
    (tmp_path / "c.txt").write_text(TEXT)
    code, _, err = run(capsys, "lint", "--no-config", tmp_path / "c.txt", "--docx-comments", tmp_path / "n.docx")
    assert code == 2 and "needs a Word document" in err and not (tmp_path / "n.docx").exists()


def _bomb() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("[Content_Types].xml", "<Types/>")
        package.writestr("word/document.xml", b"<" + bytes(40 * 2**20))
    return out.getvalue()


def _xml_bomb() -> bytes:
    data = claims_document(CLAIMS, "numbered")
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for member in source.infolist():
            content = source.read(member)
            if member.filename == "word/document.xml":
                content = content.replace(b"?>", b'?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>', 1)
            package.writestr(member.filename, content)
    return out.getvalue()


@pytest.mark.parametrize("content, words", [
    (_bomb, "zip bomb"), (lambda: b"PK\x03\x04" + bytes(50 * 2**20), "MB"), (lambda: b"1. A widget.", "not a zip"),
    (_xml_bomb, "DTD"), (lambda: claims_document([], "numbered"), "no claims found"),
])
def test_a_hostile_word_document_is_one_line_and_exit_2(content, words, tmp_path, capsys):
    path = tmp_path / "claims.docx"
    path.write_bytes(content())
    (tmp_path / "c.txt").write_text(TEXT)
    as_description = ["lint", "--description", path, tmp_path / "c.txt"]
    for argv in (["lint", path], *([as_description] if words != "no claims found" else [])):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert len(err.splitlines()) == 1 and str(path) in err and words in err, err


def test_generate_drafts_from_a_word_description_and_writes_the_claims_as_a_word_document(tmp_path, capsys,
                                                                                           monkeypatch):
    from tiny import tiny_llama, tiny_tokenizer

    import spg.generation.generator as generator
    from spg.generation.pointer_decode import Generated

    prompts = []

    def decoded(request):  # a random tiny model writes no claim: these stand in
        prompts.extend(request.tokenizer.decode(p) for p in request.prompts)
        return [Generated([], "1. A stool with a lock.\n2. The stool of claim 1, wherein the lock is a gravity lock.",
                          None) for _ in request.prompts]

    monkeypatch.setattr(generator, "generate_batch", decoded)
    base = tmp_path / "base"
    tiny_llama().save_pretrained(base)
    tiny_tokenizer().save_pretrained(base)
    description = docx.Document()
    description.add_paragraph("A folding stool with a gravity lock.")
    description.add_paragraph("What is claimed is:")
    description.add_paragraph("1. A stool.")
    buffer = io.BytesIO()
    description.save(buffer)
    (tmp_path / "stool.docx").write_bytes(buffer.getvalue())
    out, results = tmp_path / "claims.docx", tmp_path / "r.jsonl"
    code, _, err = run(capsys, "generate", "--model", base, "--input", tmp_path / "stool.docx", "--output", results,
                       "--docx", out, "--max-new-tokens", "8", "--max-prompt-tokens", "1400", "--no-progress")
    assert code == 0, err
    drafted = json.loads(results.read_text())
    data = out.read_bytes()
    assert docx_mark(data) == "claims" and drafted["id"] == "stool"
    document = docx.Document(io.BytesIO(data))
    assert [p.text for p in document.paragraphs][:2] == ["stool", "What is claimed is:"]
    read = read_docx(data, "claims.docx")
    assert read.claims_text.splitlines() == [f"{c['num']}. {c['text']}" for c in drafted["forest"]]
    assert len(drafted["forest"]) == 2 and "gravity lock" in prompts[0] and "1. A stool." not in prompts[0]
    (tmp_path / "two.txt").write_text("Another.")
    code, _, err = run(capsys, "generate", "--model", base, "--input", tmp_path / "stool.docx", "--input",
                       tmp_path / "two.txt", "--docx", tmp_path / "x.docx")
    assert code == 2 and "one claim set" in err and len(err.splitlines()) == 1
    (tmp_path / "foreign.docx").write_bytes(buffer.getvalue())
    code, _, err = run(capsys, "generate", "--model", base, "--input", tmp_path / "stool.docx", "--docx",
                       tmp_path / "foreign.docx")
    assert code == 2 and "never writes over" in err


def test_a_word_document_over_the_limit_is_refused_before_it_is_read(tmp_path, capsys):
    big = tmp_path / "big.docx"
    with big.open("wb") as f:
        f.truncate(3 * 2**30)  # sparse: 3 GB that take no disk and must never be read into memory
    code, out, err = run(capsys, "lint", big)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "3072.0 MB is more than spg reads" in err
