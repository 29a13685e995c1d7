"""Word documents built in code for the tests, the way Word writes them: claims as typed numbered paragraphs, as
Word's automatic numbered lists (numbering.xml definitions and w:numPr written here, since python-docx has no API
for either), after a description, in a table, and with tracked changes (w:ins / w:del)."""

from __future__ import annotations

import io
import random
import re
import zipfile
from collections.abc import Sequence
from xml.sax.saxutils import escape

import docx
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls, qn

LAYOUTS = ("numbered", "auto", "after-description", "table", "tracked")
_DATE = "2024-01-01T00:00:00Z"


def saved(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def add_list(document, start: int = 1, fmt: str = "decimal", text: str = "%1.", levels: int = 1,
             deeper: str = "({})") -> int:
    """A new automatic list in the document's numbering part (an abstractNum and a num pointing at it); its numId.
    Level 0 counts in ``fmt`` and shows ``text`` with %1 replaced by its counter; deeper levels count in letters and
    show ``deeper`` around their own counter ("(%2)"; LibreOffice's HTML ``<ol type="a">`` is "{}.": "%2.")."""
    numbering = document.part.numbering_part.element
    abstract_id = 1 + max([int(a.get(qn("w:abstractNumId"))) for a in numbering.iter(qn("w:abstractNum"))] + [0])
    num_id = 1 + max([int(n.get(qn("w:numId"))) for n in numbering.iter(qn("w:num"))] + [0])
    lvls = "".join(
        f'<w:lvl w:ilvl="{k}"><w:start w:val="{start if k == 0 else 1}"/><w:numFmt w:val="{fmt if k == 0 else "lowerLetter"}"/>'
        f'<w:lvlText w:val="{text if k == 0 else deeper.format(f"%{k + 1}")}"/><w:lvlJc w:val="left"/>'
        f'<w:pPr><w:ind w:left="{720 * (k + 1)}" w:hanging="360"/></w:pPr></w:lvl>'
        for k in range(levels))
    abstract = parse_xml(f'<w:abstractNum {nsdecls("w")} w:abstractNumId="{abstract_id}">'
                         f'<w:multiLevelType w:val="hybridMultilevel"/>{lvls}</w:abstractNum>')
    nums = numbering.findall(qn("w:num"))
    if nums:
        nums[0].addprevious(abstract)  # the schema wants every abstractNum before the first num
    else:
        numbering.append(abstract)
    numbering.append(parse_xml(f'<w:num {nsdecls("w")} w:numId="{num_id}"><w:abstractNumId w:val="{abstract_id}"/>'
                               "</w:num>"))
    return num_id


def number(paragraph, num_id: int, level: int = 0) -> None:
    """Put ``paragraph`` in automatic list ``num_id`` at ``level`` (its w:numPr)."""
    num_pr = paragraph._p.get_or_add_pPr().get_or_add_numPr()
    num_pr.get_or_add_ilvl().val = level
    num_pr.get_or_add_numId().val = num_id


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r>'


def tracked_paragraph(document, text: str, change: int) -> None:
    """A paragraph reading ``text`` once its tracked changes are accepted: a word of it inserted as a change, and
    a word that is not in it deleted as one."""
    words = text.split(" ")
    at = len(words) // 2
    before, inserted, after = " ".join(words[:at]) + " ", words[at], " " + " ".join(words[at + 1:])
    paragraph = document.add_paragraph()
    paragraph._p.append(parse_xml(f'<w:r {nsdecls("w")}><w:t xml:space="preserve">{escape(before)}</w:t></w:r>'))
    paragraph._p.append(parse_xml(f'<w:del {nsdecls("w")} w:id="{2 * change}" w:author="Reviewer" w:date="{_DATE}">'
                                  '<w:r><w:delText xml:space="preserve">obsolete </w:delText></w:r></w:del>'))
    paragraph._p.append(parse_xml(f'<w:ins {nsdecls("w")} w:id="{2 * change + 1}" w:author="Reviewer" '
                                  f'w:date="{_DATE}">{_run(inserted)}</w:ins>'))
    paragraph._p.append(parse_xml(f'<w:r {nsdecls("w")}><w:t xml:space="preserve">{escape(after)}</w:t></w:r>'))


def _elements(text: str) -> list[str]:
    """A claim as Word drafters type it: the preamble and each element in a paragraph of its own."""
    return [part for part in re.split(r"(?<=[:;])\s+", text) if part]


def claims_document(claims: Sequence[tuple[int, str]], layout: str, description: str = "") -> bytes:
    """A .docx holding ``claims`` [(number, text)] in one of :data:`LAYOUTS`, after ``description`` (its lines as
    paragraphs) and the heading "What is claimed is:" when a description is given or the layout asks for one."""
    document = docx.Document()
    if layout == "after-description" and not description:
        description = "A description of the invention."
    if description:
        document.add_heading("Detailed description", level=1)
        for line in description.splitlines():
            if line.strip():
                document.add_paragraph(line)
        document.add_paragraph("What is claimed is:")
    elif layout != "auto":
        document.add_paragraph("Claims")
    if layout == "auto":
        bullets = add_list(document, fmt="bullet", text="\u2022")
        number(document.add_paragraph("Claims follow; the list below is numbered by Word."), bullets)
        document.add_paragraph("CLAIMS")
        claims_list = add_list(document, start=claims[0][0] if claims else 1)
        for _, text in claims:
            first, *rest = _elements(text)
            number(document.add_paragraph(first), claims_list)
            for element in rest:
                document.add_paragraph(element)
    elif layout == "table":
        table = document.add_table(rows=0, cols=2)
        for num, text in claims:
            cells = table.add_row().cells
            cells[0].text = f"{num}."
            first, *rest = _elements(text)
            cells[1].text = first
            for element in rest:
                cells[1].add_paragraph(element)
    elif layout == "tracked":
        for change, (num, text) in enumerate(claims):
            tracked_paragraph(document, f"{num}. {text}", change)
    else:
        for num, text in claims:
            first, *rest = _elements(text)
            document.add_paragraph(f"{num}. {first}")
            for element in rest:
                document.add_paragraph(element)
    if layout == "after-description":
        document.add_paragraph("Abstract")
        document.add_paragraph("An abstract that is not a claim. 99. Nor is this.")
    return saved(document)


_HEADER = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/header"
_IMAGE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"


def with_parts(data: bytes, count: int, size: int, kind: str = "image", referenced: bool = True,
               suffix: str = ".xml") -> bytes:
    """``data`` with ``count`` more parts of ``size`` bytes each: images of zeros (``kind="image"``), of bytes that
    do not deflate, as a photograph's (``"photo"``), or headers packed with empty paragraphs (``"header"``: the most
    XML elements a byte holds; their names end in ``suffix``, their content type says what they are), each named in
    the document's relationships when ``referenced`` (so every reader loads it) or lying unused in the package."""
    source = zipfile.ZipFile(io.BytesIO(data))
    parts = {m.filename: source.read(m) for m in source.infolist()}
    rels, types = parts["word/_rels/document.xml.rels"].decode(), parts["[Content_Types].xml"].decode()
    added, overrides = [], ['<Default Extension="png" ContentType="image/png"/>']
    for i in range(count):
        if kind == "header":
            name = f"header{100 + i}{suffix}"
            head = f'<?xml version="1.0" encoding="UTF-8"?><w:hdr {nsdecls("w")}>'.encode()
            parts[f"word/{name}"] = head + b"<w:p/>" * ((size - len(head) - 8) // 6) + b"</w:hdr>"
            overrides.append(f'<Override PartName="/word/{name}" ContentType="application/vnd.openxmlformats-'
                             'officedocument.wordprocessingml.header+xml"/>')
        else:
            name = f"media/spg{i}.png"
            parts[f"word/{name}"] = random.Random(i).randbytes(size) if kind == "photo" else bytes(size)
        added.append(f'<Relationship Id="rIdSpg{i}" Type="{_HEADER if kind == "header" else _IMAGE}" '
                     f'Target="{name}"/>')
    if referenced:
        parts["word/_rels/document.xml.rels"] = rels.replace("</Relationships>", "".join(added) + "</Relationships>")
    parts["[Content_Types].xml"] = types.replace("</Types>", "".join(overrides) + "</Types>")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, content in parts.items():
            package.writestr(name, content)
    return out.getvalue()
