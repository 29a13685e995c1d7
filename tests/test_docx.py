"""spg.docx: claims and descriptions read from Word documents (numbered paragraphs, Word's automatic lists, tables,
tracked changes), hostile packages refused in one line, claims and comments written back."""

import io
import re
import zipfile
from itertools import islice

import docx
import pytest
from docx_files import LAYOUTS, add_list, claims_document, number, saved, tracked_paragraph, with_parts

from spg.data import load_records
from spg.docx import (
    MAX_FILE_BYTES,
    MAX_READ_BYTES,
    MAX_XML_ELEMENTS,
    claims_docx,
    commented_docx,
    docx_mark,
    marked_docx,
    read_docx,
)
from spg.errors import InputError
from spg.lint import lint
from spg.parse import parse_claims

CLAIMS = [(1, "A widget comprising: a lever; and a base."), (2, "The widget of claim 1, wherein the lever is red."),
          (3, "The widget of claim 2, wherein the base is round.")]


def forest_rows(forest):
    return [(c.num, c.text, c.parents) for c in forest.claims]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_reads_back_the_claims_one_per_line(layout):
    text = read_docx(claims_document(CLAIMS, layout), "c.docx")
    assert text.claims_text.splitlines() == [f"{n}. {t}" for n, t in CLAIMS]
    assert sorted(text.claim_paragraphs) == [1, 2, 3]


def test_automatic_numbers_come_from_the_definition_start_and_level_and_lists_sharing_one_definition_continue():
    document = docx.Document()
    document.add_paragraph("We claim:")
    claims = add_list(document, start=5, levels=2)
    number(document.add_paragraph("A lever."), claims)
    number(document.add_paragraph("a first arm;"), claims, level=1)
    number(document.add_paragraph("a second arm."), claims, level=1)
    number(document.add_paragraph("The lever of claim 5."), claims)
    numbering = document.part.numbering_part.element
    abstract = numbering.findall("{*}num")[-1].find("{*}abstractNumId").get(
        "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}val")
    numbering.append(docx.oxml.parse_xml(
        f'<w:num {docx.oxml.ns.nsdecls("w")} w:numId="77"><w:abstractNumId w:val="{abstract}"/></w:num>'))
    number(document.add_paragraph("The lever of claim 6."), 77)  # another num of the same list: continues at 7
    text = read_docx(saved(document), "c.docx")
    assert text.claims_text.splitlines() == [
        "5. A lever. (a) a first arm; (b) a second arm.", "6. The lever of claim 5.", "7. The lever of claim 6."]
    assert text.claim_paragraphs == {5: 1, 6: 4, 7: 5}


def test_a_start_override_restarts_the_list():
    document = docx.Document()
    claims = add_list(document)
    for body in ("A lever.", "The lever of claim 1."):
        number(document.add_paragraph(body), claims)
    numbering = document.part.numbering_part.element
    abstract = numbering.findall("{*}num")[-1].find("{*}abstractNumId").get(
        "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}val")
    numbering.append(docx.oxml.parse_xml(
        f'<w:num {docx.oxml.ns.nsdecls("w")} w:numId="78"><w:abstractNumId w:val="{abstract}"/>'
        '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>'))
    document.add_paragraph("What is claimed is:")
    for body in ("A cam.", "The cam of claim 1."):
        number(document.add_paragraph(body), 78)
    text = read_docx(saved(document), "c.docx")
    assert text.claims_text.splitlines() == ["1. A cam.", "2. The cam of claim 1."]
    assert text.description == "1. A lever.\n2. The lever of claim 1."


def test_tracked_changes_are_read_accepted_by_default_and_rejected_on_request():
    document = docx.Document()
    document.add_paragraph("Claims")
    tracked_paragraph(document, "1. A widget comprising a lever.", 0)
    data = saved(document)
    assert read_docx(data, "c.docx").claims_text == "1. A widget comprising a lever."
    assert read_docx(data, "c.docx", tracked_changes="reject").claims_text == "1. A widget obsolete a lever."
    with pytest.raises(ValueError, match="tracked_changes"):
        read_docx(data, "c.docx", tracked_changes="show")


def test_the_claims_heading_is_the_last_one_followed_by_claims_and_the_abstract_ends_the_section():
    document = docx.Document()
    for line in ("Claims", "The claims below are examples.", "Description of 2. embodiments", "What is claimed is:",
                 "1. A widget.", "2. The widget of claim 1.", "ABSTRACT", "3. Not a claim."):
        document.add_paragraph(line)
    text = read_docx(saved(document), "c.docx")
    assert text.claims_text == "1. A widget.\n2. The widget of claim 1."
    assert text.description.startswith("Claims\nThe claims below")
    assert text.claim_paragraphs == {1: 4, 2: 5}


def test_claims_going_on_in_the_heading_paragraph_and_items_numbered_inside_a_claim():
    document = docx.Document()
    document.add_paragraph("What is claimed is: 1. A method comprising:")
    document.add_paragraph("1) heating; and")
    document.add_paragraph("2) cooling.")
    document.add_paragraph("2. The method of claim 1.")
    text = read_docx(saved(document), "c.docx")
    assert text.claims_text.splitlines() == ["1. A method comprising: 1) heating; and 2) cooling.",
                                             "2. The method of claim 1."]
    assert text.claim_paragraphs == {1: 0, 2: 3}


def test_a_document_without_a_claims_heading_is_all_claims_and_its_text_is_there_for_a_description():
    document = docx.Document()
    document.add_paragraph("The widget has a lever.")
    data = saved(document)
    text = read_docx(data, "d.docx")
    assert (text.claims_text, text.description, text.text) == ("", "", "The widget has a lever.")


# ---------------------------------------------------------------- hostile packages


def _one_line(error: pytest.ExceptionInfo, *words: str) -> None:
    message = str(error.value)
    assert "\n" not in message and message.startswith("x.docx: ") and "expected a Word document (.docx)" in message
    for word in words:
        assert word in message


def _with_part(data: bytes, name: str, content: bytes) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for member in source.infolist():
            package.writestr(member.filename, content if member.filename == name else source.read(member))
    return out.getvalue()


def test_what_a_reader_loads_is_bounded_together_not_part_by_part():
    """Issue 42: 190 referenced parts of 1 MiB each pass every per-part check in a package of a few hundred kB, and
    python-docx loads them all (~180 MB a request); a package of XML parts dense with elements costs ~20 times its
    bytes as lxml trees. What the relationships reach is counted, inflated, before python-docx reads a byte."""
    data = claims_document(CLAIMS, "numbered")
    many = with_parts(data, 190, 2**20)
    assert len(many) < 512 * 2**10
    with pytest.raises(InputError) as e:
        read_docx(many, "x.docx")
    _one_line(e, "parts in use unpack to 191 MB", f"({MAX_READ_BYTES // 2**20} MB)")
    # the same parts lying unused in the package are not loaded, so not counted
    assert read_docx(with_parts(data, 190, 2**20, referenced=False), "x.docx") == read_docx(data, "x.docx")
    dense = with_parts(data, 8, 2**20, kind="header")  # 174,000 empty paragraphs a part
    with pytest.raises(InputError) as e:
        read_docx(dense, "x.docx")
    _one_line(e, "XML elements", f"({MAX_XML_ELEMENTS:,})")
    with pytest.raises(InputError) as e:  # python-docx parses a part by its content type, whatever its name
        read_docx(with_parts(data, 8, 2**20, kind="header", suffix=".bin"), "x.docx")
    _one_line(e, "XML elements")
    assert read_docx(with_parts(data, 2, 2**20, kind="header"), "x.docx") == read_docx(data, "x.docx")


def test_text_a_doc_file_and_a_zip_without_a_document_are_not_a_docx():
    with pytest.raises(InputError) as e:
        read_docx(b"1. A widget.\n", "x.docx")
    _one_line(e, "not a zip package")
    with pytest.raises(InputError) as e:
        read_docx(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "x.docx")
    _one_line(e, "97-2003")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr("hello.txt", "hello")
    with pytest.raises(InputError) as e:
        read_docx(out.getvalue(), "x.docx")
    _one_line(e, "without word/document.xml")
    with pytest.raises(InputError) as e:
        read_docx(claims_document(CLAIMS, "numbered")[:3000], "x.docx")
    _one_line(e)


def test_a_file_over_the_limit_is_refused_before_it_is_opened():
    with pytest.raises(InputError) as e:
        read_docx(b"PK\x03\x04" + bytes(50 * 2**20), "x.docx")
    _one_line(e, "50.0 MB", f"{MAX_FILE_BYTES // 2**20} MB")


def test_a_zip_bomb_is_refused_by_its_declared_sizes_before_it_is_inflated():
    data = claims_document(CLAIMS, "numbered")
    bomb = _with_part(data, "word/document.xml", b"<" + bytes(30 * 2**20))  # 30 MB of zeros deflate ~1000x
    assert len(bomb) < 1 * 2**20
    with pytest.raises(InputError) as e:
        read_docx(bomb, "x.docx")
    _one_line(e, "zip bomb", "word/document.xml")
    out = io.BytesIO()  # many members, each under the ratio, together over the total
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as package:
        package.writestr("word/document.xml", "<w/>")
        info = zipfile.ZipInfo("word/media/big.bin")
        package.writestr(info, b"")
    raw = bytearray(out.getvalue())
    # declare a size of 3 GB for the empty member in the central directory: never inflated, refused as declared
    central = raw.rfind(b"PK\x01\x02")
    raw[central + 24:central + 28] = (3 * 2**30).to_bytes(4, "little")
    with pytest.raises(InputError) as e:
        read_docx(bytes(raw), "x.docx")
    _one_line(e, "unpacks to more than")


def test_an_xml_bomb_is_refused_before_any_entity_is_expanded():
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
                         for i in range(1, 10))
              + b']><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p>'
              b"<w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>")
    data = claims_document(CLAIMS, "numbered")
    for text in (laughs, laughs.decode().encode("utf-16")):
        with pytest.raises(InputError) as e:
            read_docx(_with_part(data, "word/document.xml", text), "x.docx")
        _one_line(e, "DTD", "word/document.xml")


def test_python_docx_parses_without_resolving_entities():
    """The second wall behind the DTD check: python-docx's own parsers leave entities unexpanded."""
    from docx.opc.oxml import oxml_parser as package_parser
    from docx.oxml.parser import oxml_parser

    for parser in (oxml_parser, package_parser):
        from lxml import etree

        tree = etree.fromstring(b'<!DOCTYPE a [<!ENTITY e "expanded">]><a>&e;</a>', parser)
        assert "expanded" not in (tree.text or "")


# ---------------------------------------------------------------- Word out


def test_claims_docx_writes_a_claims_section_that_reads_back_as_the_same_forest():
    forest = parse_claims("\n".join(f"{n}. {t}" for n, t in CLAIMS) + "\n4. (Canceled)")
    data = claims_docx(forest, title="Widget")
    document = docx.Document(io.BytesIO(data))
    assert [p.text for p in document.paragraphs][:3] == ["Widget", "What is claimed is:", f"1. {CLAIMS[0][1]}"]
    again = parse_claims(read_docx(data, "c.docx").claims_text)
    assert forest_rows(again) == forest_rows(forest) and again.cancelled == forest.cancelled
    assert forest_rows(parse_claims(read_docx(claims_docx([t for _, t in CLAIMS]), "c").claims_text)) == forest_rows(
        forest)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_commented_docx_anchors_each_finding_on_its_words_and_leaves_the_input_alone(layout):
    claims = [(1, "A widget comprising: a lever; and the base."), (2, "The widget of claim 1, wherein the spring is red.")]
    data = claims_document(claims, layout)
    before = bytes(data)
    text = read_docx(data, "c.docx")
    result = lint(parse_claims(text.claims_text), "A widget with a lever.")
    out = commented_docx(data, result.findings, text.claim_paragraphs)
    assert data == before
    document = docx.Document(io.BytesIO(out))
    assert len(document.comments) == len(result.findings) > 0
    assert read_docx(out, "o.docx") == text  # the comments change no text
    xml = document.element.xml
    anchored = []
    for comment in document.comments:
        cid = comment.comment_id
        inside = re.search(rf'<w:commentRangeStart w:id="{cid}"/>(.*?)<w:commentRangeEnd w:id="{cid}"/>', xml, re.S)
        anchored.append("".join(re.findall(r"<w:t[^>]*>([^<]*)</w:t>", inside.group(1))))
    wanted = []
    for finding in result.findings:
        claim = result.forest.by_num[finding.claim]
        wanted.append(claim.text[finding.start:finding.end])
    assert sorted(anchored) == sorted(wanted)
    assert {"the base", "the spring"} <= set(anchored)


@pytest.mark.parametrize("claims_numbered", ["auto", "typed"])
def test_comments_on_auto_lettered_elements_cover_their_words(claims_numbered):
    """Issue 42: elements in a second-level Word list lettered "a.", "b." (LibreOffice's .docx of an HTML
    ``<ol type="a">``: w:numPr paragraphs whose letters are not in the text), under a claim numbered by Word or
    typed: each comment covers its words, not the claim's first paragraph."""
    document = docx.Document()
    document.add_paragraph("What is claimed is:")
    claims = add_list(document, levels=2, deeper="{}.")
    elements = claims if claims_numbered == "auto" else add_list(document, levels=2, deeper="{}.")
    opening = number if claims_numbered == "auto" else lambda p, _: None
    opening(document.add_paragraph(("" if claims_numbered == "auto" else "1. ") + "A leak detector, comprising:"),
            claims)
    number(document.add_paragraph("a sensor measuring a pressure in a pipe; and"), elements, level=1)
    number(document.add_paragraph("a processor comparing the gradient value with a threshold."), elements, level=1)
    opening(document.add_paragraph(("" if claims_numbered == "auto" else "2. ")
                                   + "The leak detector of claim 1, wherein the valve is closed."), claims)
    data = saved(document)
    text = read_docx(data, "c.docx")
    assert text.claims_text.splitlines()[0] == (
        "1. A leak detector, comprising: a. a sensor measuring a pressure in a pipe; and "
        "b. a processor comparing the gradient value with a threshold.")
    result = lint(parse_claims(text.claims_text))
    out = commented_docx(data, result.findings, text.claim_paragraphs)
    assert {"thegradientvalue", "thevalve"} <= set(_anchored(out, result))
    assert _anchored(out, result) == _wanted(result)


def test_the_marker_is_a_custom_property_that_keeps_the_others_and_gives_the_same_bytes_each_time():
    data = claims_document(CLAIMS, "numbered")
    assert docx_mark(data) is None and docx_mark(b"not a zip") is None
    marked = marked_docx(data, "lint-comments")
    assert docx_mark(marked) == "lint-comments" and marked_docx(data, "lint-comments") == marked
    again = marked_docx(marked, "claims")
    assert docx_mark(again) == "claims"
    assert again.count(b"docProps/custom.xml") == marked.count(b"docProps/custom.xml")
    assert read_docx(again, "m.docx") == read_docx(data, "d.docx")


# ---------------------------------------------------------------- acceptance: Word path == text path


def _usable(text: str) -> bool:
    return not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", text)


def _uspto_documents(path, count):
    records = (r for r in load_records(path) if 3 <= len(r.claims) <= 40 and r.description
               and _usable(r.description) and all(_usable(c.text) for c in r.claims))
    return list(islice(records, count))


def _anchored(data: bytes, result) -> list[str]:
    """The text each comment of a commented document covers, white space left out, in the findings' order."""
    document = docx.Document(io.BytesIO(data))
    xml = document.element.xml
    out = []
    for comment in document.comments:
        cid = comment.comment_id
        inside = re.search(rf'<w:commentRangeStart w:id="{cid}"/>(.*?)<w:commentRangeEnd w:id="{cid}"/>', xml, re.S)
        out.append("".join("".join(re.findall(r"<w:t[^>]*>([^<]*)</w:t>", inside.group(1))).split()))
    return out


def _wanted(result) -> list[str]:
    """What each finding is about, as :func:`_anchored` gives it: its words (None: a finding without a place)."""
    out = []
    for finding in result.findings:
        claim = result.forest.by_num.get(finding.claim)
        if claim is not None and finding.start is not None and finding.end is not None and finding.end > finding.start:
            out.append("".join(claim.text[finding.start:finding.end].split()))
        else:
            out.append(None)
    return out


def test_twenty_word_documents_from_the_uspto_set_give_the_forest_and_findings_of_the_text_path(uspto_path):
    """Four shared USPTO claim sets in each of five layouts: typed numbers (elements in paragraphs of their own),
    Word's automatic list, "What is claimed is:" after the description (the abstract after the claims), a table,
    tracked changes. The text path lints the claims one per line with the record's description. The commented copy
    of each document (four layouts) puts every finding that has a place on exactly its words."""
    records = _uspto_documents(uspto_path, 4)
    assert len(records) == 4
    compared = commented = 0
    for layout in LAYOUTS:
        for record in records:
            claims = [(c.num, c.text) for c in record.claims]
            description = record.description if layout == "after-description" else ""
            text_forest = parse_claims("\n".join(f"{n}. {t}" for n, t in claims))
            text_result = lint(text_forest, description or None)
            data = claims_document(claims, layout, description)
            read = read_docx(data, f"{record.id}.docx")
            word_forest = parse_claims(read.claims_text)
            # the automatic layout opens with a bulleted paragraph, read as a description: not the record's
            word_result = lint(word_forest, read.description if description else None)
            assert forest_rows(word_forest) == forest_rows(text_forest), (layout, record.id)
            assert [f.to_dict() for f in word_result.findings] == [f.to_dict() for f in text_result.findings]
            assert sorted(read.claim_paragraphs) == [c.num for c in text_forest.claims]
            if layout != "after-description":  # the comments on the words: checked on the four other layouts
                anchored = _anchored(commented_docx(data, word_result.findings, read.claim_paragraphs), word_result)
                wanted = _wanted(word_result)
                assert len(anchored) == len(wanted)
                assert [a for a, w in zip(anchored, wanted) if w is not None] == [w for w in wanted if w is not None]
                commented += sum(w is not None for w in wanted)
            compared += 1
    assert compared == 20 and commented > 100


def test_damaged_packages_are_read_or_refused_in_one_line_never_an_internal_error():
    """Bytes cut out, flipped or spliced into one part (tags, undefined lists, entities, a NUL), or a part left out."""
    import random

    rng = random.Random(0)
    outcomes = {"read": 0, "refused": 0}
    for layout in ("numbered", "auto", "table", "tracked"):
        source = zipfile.ZipFile(io.BytesIO(claims_document(CLAIMS, layout)))
        names = [m.filename for m in source.infolist()]
        for _ in range(25):
            parts = {m.filename: source.read(m) for m in source.infolist()}
            name = rng.choice(names)
            blob, at = bytearray(parts[name]), rng.randrange(len(parts[name]) + 1)
            change = rng.randrange(4)
            if change == 0:
                blob[at:at + rng.randrange(1, 40)] = b""
            elif change == 1 and at < len(blob):
                blob[at] = rng.randrange(256)
            elif change == 2:
                blob[at:at] = rng.choice([b"<w:p>", b"</w:r>", b'<w:numPr><w:numId w:val="99"/></w:numPr>', b"&amp;",
                                          b"\x00"])
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w") as package:
                for part, content in parts.items():
                    if part != name or change != 3:
                        package.writestr(part, bytes(blob) if part == name else content)
            try:
                text = read_docx(out.getvalue(), "x.docx")
                commented_docx(out.getvalue(), lint(parse_claims(text.claims_text)).findings, text.claim_paragraphs,
                               name="x.docx")
                outcomes["read"] += 1
            except InputError as e:
                assert "\n" not in str(e) and str(e).startswith("x.docx: ")
                outcomes["refused"] += 1
    assert outcomes["read"] and outcomes["refused"]


def test_hostile_numbering_definitions_cost_nothing():
    """A letter or Roman list starting at a billion would be a 38-million-character label per paragraph; a level
    beyond Word's nine is no level."""
    document = docx.Document()
    document.add_paragraph("Claims")
    for fmt, level in (("lowerLetter", 0), ("upperRoman", 0), ("decimal", 0)):
        num_id = add_list(document, start=10**9, fmt=fmt, text="%1.")
        number(document.add_paragraph(f"A {fmt} list item."), num_id, level=level)
    numbering = document.part.numbering_part.element
    abstract = numbering.findall("{*}abstractNum")[-1]
    abstract.append(docx.oxml.parse_xml(
        f'<w:lvl {docx.oxml.ns.nsdecls("w")} w:ilvl="100"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
        '<w:lvlText w:val="%1."/></w:lvl>'))
    number(document.add_paragraph("Level 100."), int(numbering.findall("{*}num")[-1].get(
        "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}numId")), level=100)
    text = read_docx(saved(document), "c.docx")
    assert text.text.splitlines()[1:] == ["1000000000. A lowerLetter list item.", "1000000000. A upperRoman list item.",
                                          "1000000000. A decimal list item.", "Level 100."]
