"""Word documents in and out: claims and descriptions read from a .docx, claims written as one, findings written back
as Word comments.

python-docx opens and saves the package; what it does not do is hand-written here, each for a reason:

* **Hardening** (:func:`_check_package`). A .docx is a zip of XML parts, so a hostile one is a zip bomb or an XML
  bomb. Before anything is inflated the file's size, the members' declared sizes and their compression ratios are
  checked (Python's zipfile never inflates a member past its declared size, so the declared sizes bound the work);
  then every XML part is refused if it declares a DTD, which no Word part has and every entity-expansion attack
  needs (python-docx's own lxml parser is built with ``resolve_entities=False`` as a second wall).
* **Text as Word shows it** (:func:`_pieces`). python-docx's ``Paragraph.text`` skips runs inside tracked changes
  (``w:ins``), and Word's automatic numbering is not text at all: the number of a ``w:numPr`` paragraph is computed
  here from numbering.xml (the level's start, format and text, counted through the document, :class:`_Numbering`).
* **Comments on words** (:func:`commented_docx`). python-docx anchors a comment on whole runs, so runs are split
  at a finding's first and last character first.

Tracked changes are read as if accepted by default (``w:ins`` kept, ``w:del`` dropped): the claims as the drafter
means them to be filed. ``tracked_changes="reject"`` reads the text before the changes.

spg marks the .docx files it writes (README, "Files"; :mod:`spg.files`) with a custom document property ``spg``
whose value is the kind of output (docProps/custom.xml, shown in Word under File > Properties > Custom), because a
Word document has no first line to carry ``<!-- spg KIND -->``.
"""

from __future__ import annotations

import copy
import io
import posixpath
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from spg.errors import InputError
from spg.forest import Forest
from spg.parse import parse_claims

MAX_FILE_BYTES = 25 * 2**20  # a claim set or a description with its figures; a 50 MB upload is refused
MAX_UNPACKED_BYTES = 200 * 2**20  # all members together, as declared
MAX_MEMBERS = 5_000
MAX_XML_BYTES = 16 * 2**20  # one XML part, and those read together (a 300-page document holds a few MB): lxml holds them whole
MAX_RATIO = 200  # Word's XML deflates 5-20x; a member of more than 1 MiB inflating 200x is a bomb
_RATIO_FROM = 2**20
# What a request holds is what python-docx loads: every part the relationships reach, inflated, the XML ones as lxml
# trees (about 130 bytes an element, and the text besides). Bounded together, not per part: 190 referenced parts of
# 1 MiB each pass every per-part check (benchmarks/docx_memory.py measures the peak these bounds allow).
MAX_READ_BYTES = 64 * 2**20  # the parts the relationships reach, inflated, together
MAX_XML_ELEMENTS = 1_000_000  # in the XML parts they reach, together
_CHUNK = 2**20  # parts are scanned inflating this much at a time

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_DTD = tuple(s.encode(codec) for s in ("<!DOCTYPE", "<!ENTITY") for codec in ("utf-8", "utf-16-le", "utf-16-be"))
_CUSTOM_PART = "docProps/custom.xml"
_CUSTOM_TYPE = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
_CUSTOM_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties"
_CUSTOM_NS = "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"
_VT_NS = "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"
_PROPERTY_FMTID = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"  # the one every user-defined property carries
EXPECTED = "expected a Word document (.docx)"

# A whole paragraph that opens the claims ("What is claimed is:", "Claims", "I claim:", "We claim:"), and the same
# phrases (but the bare word) opening a paragraph that goes on with claim 1.
_CLAIMS_HEADING = re.compile(
    r"\s*(?:what\s+(?:is\s+claimed|(?:i|we)\s+claim)(?:\s+is)?|(?:i|we|applicants?)\s+claims?|it\s+is\s+claimed|"
    r"(?:the\s+)?(?:invention\s+)?claimed\s+is|(?:the\s+)?claims?(?:\s+(?:are|is))?(?:\s+as\s+follows)?)"
    r"\s*[:.\-–]?\s*", re.IGNORECASE)
_INLINE_HEADING = re.compile(
    r"\s*(?:what\s+(?:is\s+claimed|(?:i|we)\s+claim)(?:\s+is)?|(?:i|we)\s+claim|it\s+is\s+claimed|claimed\s+is)"
    r"\s*:\s*(?=\d)", re.IGNORECASE)
_SECTION_END = re.compile(r"\s*abstract(?:\s+of\s+the\s+(?:disclosure|invention))?\s*:?\s*", re.IGNORECASE)
# A paragraph opening a claim: "3. The method", "3) The", "Claim 3: The", "[Claim 3] The", "3-5. (Canceled)", or a
# table cell holding only the number.
_CLAIM_START = re.compile(
    r"\s*(?:\[\s*claim\s+(?P<bracket>\d{1,6})\s*\][.:]?|(?:claim\s+)?(?P<num>\d{1,6})(?:\s*[-–]\s*(?P<to>\d{1,6}))?"
    r"(?:\s*(?P<punct>[.):])|\s*$))(?!\d)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class DocxText:
    """What a Word document says for spg.

    ``claims_text``: the claims section as spg's text parser reads it, one claim per line ("1. …\\n2. …"), the
    number supplied where Word numbers the paragraph itself. ``description``: the text before the claims section
    (empty when the document has no claims heading). ``claim_paragraphs``: claim number → index of the claim's first
    paragraph among the body's paragraphs in document order, table cells included (:func:`_paragraphs`).
    ``text``: every paragraph, one per line (what a description-only document is read as).
    """

    claims_text: str
    description: str
    claim_paragraphs: dict[int, int]
    text: str = ""


# ---------------------------------------------------------------- the package, checked


def check_size(size: int, name: str) -> None:
    """Raise InputError when a Word document of ``size`` bytes is more than spg reads (callers holding a file check
    its size before reading it)."""
    if size > MAX_FILE_BYTES:
        raise InputError(f"{name}: {size / 2**20:.1f} MB is more than spg reads ({MAX_FILE_BYTES // 2**20} MB); "
                         f"{EXPECTED} of at most that size")


def _check_package(data: bytes, name: str) -> None:
    """Raise InputError unless ``data`` is a zip package within every limit, no XML part declaring a DTD."""
    check_size(len(data), name)
    if data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise InputError(f"{name}: a Word 97-2003 (.doc) or encrypted document; {EXPECTED}: save it as .docx")
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
        members = package.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        raise InputError(f"{name}: not a Word document (not a zip package); {EXPECTED}") from None
    if len(members) > MAX_MEMBERS:
        raise InputError(f"{name}: a package of {len(members)} parts; {EXPECTED} of at most {MAX_MEMBERS}")
    if sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
        raise InputError(f"{name}: unpacks to more than {MAX_UNPACKED_BYTES // 2**20} MB (a zip bomb?); {EXPECTED}")
    for m in members:
        if m.file_size > _RATIO_FROM and m.file_size > MAX_RATIO * max(m.compress_size, 1):
            raise InputError(f"{name}: part {m.filename!r} inflates {m.file_size // max(m.compress_size, 1)}x "
                             f"(a zip bomb?); {EXPECTED}")
    for m in members:
        if m.filename.endswith((".xml", ".rels")) and m.file_size > MAX_XML_BYTES:
            raise InputError(f"{name}: part {m.filename!r} is {m.file_size / 2**20:.0f} MB of XML, more than spg reads "
                             f"({MAX_XML_BYTES // 2**20} MB); {EXPECTED}")
    if "word/document.xml" not in {m.filename for m in members}:
        raise InputError(f"{name}: a zip package without word/document.xml; {EXPECTED}")
    try:
        elements = {m.filename: _scan(package, m, name) for m in members if m.filename.endswith((".xml", ".rels"))}
        reached = [package.getinfo(n) for n in _reached(package, elements)]
        # python-docx parses a part by its content type, not its name: "word/header1.bin" typed as a header too
        typed = _xml_typed(package)
        elements |= {m.filename: _scan(package, m, name, dtd=False) for m in reached
                     if m.filename not in elements and typed(m.filename)}
    except (zipfile.BadZipFile, zlib.error, OSError, ValueError, EOFError, NotImplementedError, RuntimeError) as e:
        raise InputError(f"{name}: a damaged zip package ({' '.join(str(e).split())}); {EXPECTED}") from None
    size = sum(m.file_size for m in reached)
    if size > MAX_READ_BYTES:
        raise InputError(f"{name}: its {len(reached)} parts in use unpack to {size / 2**20:.0f} MB, more than spg "
                         f"reads ({MAX_READ_BYTES // 2**20} MB); {EXPECTED} of at most that")
    xml = [m for m in reached if m.filename in elements]
    if sum(m.file_size for m in xml) > MAX_XML_BYTES:
        raise InputError(f"{name}: its parts in use hold {sum(m.file_size for m in xml) / 2**20:.0f} MB of XML, more "
                         f"than spg reads ({MAX_XML_BYTES // 2**20} MB); {EXPECTED} of at most that")
    count = sum(elements[m.filename] for m in xml)
    if count > MAX_XML_ELEMENTS:
        raise InputError(f"{name}: its parts in use hold {count:,} XML elements, more than spg reads "
                         f"({MAX_XML_ELEMENTS:,}); {EXPECTED} of at most that")


def _scan(package: zipfile.ZipFile, member: zipfile.ZipInfo, name: str, dtd: bool = True) -> int:
    """The XML elements (start tags) of an XML part, read a chunk at a time; InputError if it declares a DTD (when
    ``dtd``: not for a part only its content type calls XML, an SVG picture's may)."""
    keep = max(map(len, _DTD)) - 1  # a declaration split between two chunks is still found
    elements, tail = 0, b""
    with package.open(member) as part:
        while chunk := part.read(_CHUNK):
            elements += chunk.count(b"<") - chunk.count(b"</") - chunk.count(b"<?") - chunk.count(b"<!")
            window = tail + chunk
            if dtd and any(s in window for s in _DTD):
                raise InputError(f"{name}: part {member.filename!r} declares a DTD (XML entities, an XML bomb?); "
                                 f"{EXPECTED}, whose parts never do")
            tail = window[-keep:]
    return elements


def _xml_typed(package: zipfile.ZipFile) -> Callable[[str], bool]:
    """Whether [Content_Types].xml gives a part an XML content type ("…+xml", "…/xml"), by its name or extension."""
    from lxml import etree

    defaults, overrides = {}, {}
    try:
        with package.open("[Content_Types].xml") as part:
            for _, entry in etree.iterparse(part, resolve_entities=False, no_network=True):
                kind = (entry.get("ContentType") or "").lower()
                if entry.get("Extension"):
                    defaults[entry.get("Extension").lower()] = kind
                elif entry.get("PartName"):
                    overrides[entry.get("PartName").lstrip("/").lower()] = kind
                entry.clear()
    except (KeyError, etree.LxmlError):
        pass  # no content types, or damaged ones: python-docx's reading says so (_open)

    def typed(part: str) -> bool:
        kind = overrides.get(part.lower(), defaults.get(part.rsplit(".", 1)[-1].lower(), ""))
        return kind.endswith(("+xml", "/xml"))

    return typed


def _reached(package: zipfile.ZipFile, elements: Mapping[str, int]) -> list[str]:
    """The parts a reader of the package loads: those its relationships reach from ``_rels/.rels``, their own
    relationship parts included (OPC, ECMA-376 part 2; python-docx loads exactly these). ``elements``: the XML
    parts' element counts, so that no relationship part larger than spg reads is parsed here."""
    from lxml import etree

    names = set(package.namelist())
    reached, queue = [], [""]
    seen = {""}
    while queue:
        source = queue.pop()
        folder, base = posixpath.split(source)
        rels = posixpath.join(folder, "_rels", f"{base}.rels")
        reached += [source] if source else []
        if rels not in names:
            continue
        reached.append(rels)
        if elements.get(rels, 0) > MAX_XML_ELEMENTS:
            continue  # refused for its size: not parsed here
        try:
            with package.open(rels) as part:
                for _, rel in etree.iterparse(part, tag="{*}Relationship", resolve_entities=False, no_network=True):
                    target = unquote(rel.get("Target") or "")
                    if rel.get("TargetMode") != "External" and target:
                        target = target[1:] if target.startswith("/") else posixpath.normpath(
                            posixpath.join(folder, target))
                        if target in names and target not in seen:
                            seen.add(target)
                            queue.append(target)
                    rel.clear()
        except etree.LxmlError:
            continue  # a damaged relationship part: python-docx's reading of it says so (_open)
    return reached


def _open(data: bytes, name: str):
    """The python-docx Document of ``data``, checked first (:func:`_check_package`)."""
    import docx  # python-docx: imported here so that commands reading no Word document start without it
    from lxml import etree

    _check_package(data, name)
    try:
        document = docx.Document(io.BytesIO(data))
        document.part.styles, document.element.body  # noqa: B018  (a package whose parts are not a Word document's fails here)
        return document
    except (ValueError, KeyError, etree.LxmlError, zipfile.BadZipFile, docx.opc.exceptions.PackageNotFoundError,
            AttributeError, TypeError) as e:
        # ValueError: not a Word document but another Office file ("file '…' is not a Word file, content type…")
        why = " ".join(str(e).split())  # lxml's messages span lines
        raise InputError(f"{name}: not a readable Word document ({type(e).__name__}: {why}); {EXPECTED}") from None


# ---------------------------------------------------------------- text as Word shows it


def _paragraphs(body) -> list:
    """The body's paragraphs in document order, those in table cells and text boxes included, each once (a text
    box's fallback copy for old readers left out). A paragraph index is a position in this list."""
    return [p for p in body.iter(f"{W}p") if not any(a.tag == _MC_FALLBACK for a in p.iterancestors())]


def _dropped(tracked_changes: str) -> frozenset[str]:
    if tracked_changes == "accept":
        return frozenset({f"{W}del", f"{W}moveFrom"})
    if tracked_changes == "reject":
        return frozenset({f"{W}ins", f"{W}moveTo"})
    raise ValueError(f"tracked_changes must be 'accept' or 'reject', got {tracked_changes!r}")


def _hidden(run) -> bool:
    vanish = run.find(f"{W}rPr/{W}vanish")
    return vanish is not None and vanish.get(f"{W}val", "true") not in ("0", "false", "off")


_SKIPPED = frozenset({f"{W}{t}" for t in ("pPr", "rPr", "p", "instrText", "delInstrText")} | {_MC_FALLBACK})
_CHARACTERS = {f"{W}tab": "\t", f"{W}br": " ", f"{W}cr": " ", f"{W}noBreakHyphen": "-"}


def _pieces(p, dropped: frozenset[str]) -> Iterator[tuple[object, str]]:
    """(element, its text) for every piece of text paragraph ``p`` shows, in order: ``w:t`` (and ``w:delText`` when
    deletions are read), tabs and breaks. A nested paragraph (a text box) is a paragraph of its own."""
    stack = [iter(p)]
    while stack:
        for child in stack[-1]:
            tag = child.tag
            if tag in dropped or tag in _SKIPPED or (tag == f"{W}r" and _hidden(child)):
                continue
            if tag == f"{W}t" or (tag == f"{W}delText" and f"{W}del" not in dropped):
                yield child, child.text or ""
            elif tag in _CHARACTERS:
                yield child, _CHARACTERS[tag]
            elif len(child):
                stack.append(iter(child))
                break
        else:
            stack.pop()


def _paragraph_text(p, dropped: frozenset[str]) -> str:
    return "".join(text for _, text in _pieces(p, dropped))


def _roman(n: int) -> str:
    out = ""
    for value, letters in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                           (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out, n = out + letters, n - value
    return out


def _formatted(n: int, fmt: str) -> str:
    """A list counter as Word shows it in format ``fmt`` (w:numFmt); formats not listed are shown as decimals."""
    if fmt in ("lowerLetter", "upperLetter") and 0 < n <= 780:  # Word's letters end at zz…z (30 of each)
        text = chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)  # Word's a..z, aa..zz
        return text.upper() if fmt == "upperLetter" else text
    if fmt in ("lowerRoman", "upperRoman") and 0 < n < 4000:
        return _roman(n).upper() if fmt == "upperRoman" else _roman(n)
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


@dataclass(frozen=True)
class _Level:
    start: int
    fmt: str
    text: str


class _Numbering:
    """Word's automatic numbering, counted as Word counts it: one set of counters per abstract list (so lists
    sharing one continue each other), restarted where a ``w:num`` overrides a level's start, deeper levels restarted
    when a shallower one counts. A level without ``w:start`` starts at 0 (ECMA-376 17.9.25)."""

    def __init__(self, numbering, styles):
        self.levels: dict[str, dict[int, _Level]] = {}
        self.nums: dict[str, tuple[str, dict[int, int]]] = {}
        for abstract in numbering.iter(f"{W}abstractNum") if numbering is not None else ():
            self.levels[abstract.get(f"{W}abstractNumId")] = {
                _int(lvl.get(f"{W}ilvl"), 0): _Level(
                    _int(_val(lvl, "start"), 0), _val(lvl, "numFmt") or "decimal", _val(lvl, "lvlText") or "")
                for lvl in abstract.iter(f"{W}lvl")}
        for num in numbering.iter(f"{W}num") if numbering is not None else ():
            overrides = {_int(o.get(f"{W}ilvl"), 0): _int(_val(o, "startOverride"), 0)
                         for o in num.iter(f"{W}lvlOverride") if o.find(f"{W}startOverride") is not None}
            self.nums[num.get(f"{W}numId")] = (_val(num, "abstractNumId"), overrides)
        self.style_numbering: dict[str, tuple[str | None, str | None]] = {}
        self.style_parent: dict[str, str] = {}
        self.default_style = None
        for style in styles.iter(f"{W}style") if styles is not None else ():
            sid = style.get(f"{W}styleId")
            num_pr = style.find(f"{W}pPr/{W}numPr")
            if num_pr is not None:
                self.style_numbering[sid] = (_val(num_pr, "numId"), _val(num_pr, "ilvl"))
            if _val(style, "basedOn"):
                self.style_parent[sid] = _val(style, "basedOn")
            if style.get(f"{W}type") == "paragraph" and style.get(f"{W}default") in ("1", "true"):
                self.default_style = sid
        self.counters: dict[str, list[int | None]] = {}
        self.restarted: set[str] = set()

    def _of(self, p) -> tuple[str | None, int]:
        """The (numId, level) of paragraph ``p``: its own w:numPr, else its style's (through w:basedOn)."""
        num_id = level = None
        own = p.find(f"{W}pPr/{W}numPr")
        if own is not None:
            num_id, level = _val(own, "numId"), _val(own, "ilvl")
        style = _val(p.find(f"{W}pPr"), "pStyle") if p.find(f"{W}pPr") is not None else None
        style = style or self.default_style
        seen = set()
        while style and style not in seen and (num_id is None or level is None):
            seen.add(style)
            style_num, style_level = self.style_numbering.get(style, (None, None))
            num_id, level = num_id or style_num, level or style_level
            style = self.style_parent.get(style)
        return num_id, _int(level, 0)

    def count(self, p) -> tuple[str, int, str, str] | None:
        """For a numbered paragraph, counted now: (abstract list id, level, format, the label Word shows: "3.",
        "(b)", a bullet character); None for a paragraph Word does not number."""
        num_id, level = self._of(p)
        if num_id is None or num_id == "0" or num_id not in self.nums:
            return None
        abstract, overrides = self.nums[num_id]
        levels = self.levels.get(abstract, {})
        if level not in levels or not 0 <= level < 10:  # Word has levels 0-8
            return None
        counters = self.counters.setdefault(abstract, [None] * 10)
        if num_id not in self.restarted:
            self.restarted.add(num_id)
            for lvl, start in overrides.items():
                if lvl < len(counters):
                    counters[lvl] = start - 1
        current = counters[level]
        counters[level] = levels[level].start if current is None else current + 1
        for deeper in range(level + 1, len(counters)):
            counters[deeper] = None
        fmt = levels[level].fmt

        def shown(match: re.Match) -> str:
            k = int(match.group(1)) - 1
            value = counters[k] if 0 <= k < len(counters) and counters[k] is not None else (
                levels[k].start if k in levels else 0)
            return _formatted(value, levels[k].fmt if k in levels else "decimal")

        label = levels[level].text if fmt == "bullet" else re.sub(r"%(\d)", shown, levels[level].text)
        return abstract, level, fmt, label

    def number(self, abstract: str, level: int) -> int:
        return self.counters[abstract][level] or 0


def _val(element, name: str) -> str | None:
    """The w:val of ``element``'s child w:NAME (None when absent)."""
    child = element.find(f"{W}{name}") if element is not None else None
    return child.get(f"{W}val") if child is not None else None


# ---------------------------------------------------------------- the claims section


@dataclass
class _Line:
    """One paragraph as the reader sees it: its index, text, and what numbers it."""

    index: int
    text: str
    label: str = ""  # Word's automatic number ("3.") when it has one
    auto: tuple[str, int] | None = None  # (abstract list, level) of a decimal automatic number
    number: int | None = None  # the number it shows, automatic or typed


def _lines(document, dropped: frozenset[str]) -> list[_Line]:
    part = document.part
    try:
        numbering = part.numbering_part.element
    except (KeyError, NotImplementedError, AttributeError):  # AttributeError: a numbering part of the wrong type
        numbering = None
    numbering = _Numbering(numbering, part.styles.element)
    lines = []
    for index, p in enumerate(_paragraphs(document.element.body)):
        line = _Line(index, _paragraph_text(p, dropped))
        counted = numbering.count(p)
        if counted:
            abstract, level, fmt, line.label = counted
            if fmt in ("decimal", "decimalZero"):
                line.auto, line.number = (abstract, level), numbering.number(abstract, level)
        lines.append(line)
    return lines


def _typed_number(text: str) -> tuple[int, int, str] | None:
    """(the claim number, the last number of a range "3-5.", the punctuation after it) a paragraph's text opens
    with, if it opens a claim."""
    match = _CLAIM_START.match(text)
    if not match:
        return None
    first = int(match.group("bracket") or match.group("num"))
    return first, int(match.group("to") or first), match.group("punct") or ""


def _claims_start(lines: list[_Line]) -> tuple[int, int] | None:
    """(position in ``lines`` of the claims heading, characters of it to skip in that line's text: the heading's
    length when the claims go on in the same paragraph, else the whole line). The last heading followed by a
    claim wins: a table of contents or the summary may name the claims earlier."""
    claim_after = False  # whether a paragraph after this one opens a claim
    for i in range(len(lines) - 1, -1, -1):
        text = lines[i].text
        if claim_after and text.strip() and not lines[i].label and _CLAIMS_HEADING.fullmatch(text):
            return i, len(text)
        claim_after = claim_after or bool(_typed_number(text) or lines[i].auto)
        inline = _INLINE_HEADING.match(text)
        if inline and _typed_number(text[inline.end():]):
            return i, inline.end()
    return None


def _claim_lines(section: list[_Line]) -> list[tuple[int, int, list[_Line]]]:
    """The claims of a section: (number, index of the first paragraph, its paragraphs). A claim opens at a paragraph
    numbered by Word at the claims' list level (the first decimal list in the section) or one whose text opens with
    a higher number than the claim before; any other paragraph goes on with the claim before it (its elements)."""
    claim_list = next((line.auto for line in section if line.auto and not _typed_number(line.text)), None)
    claims: list[tuple[int, int, list[_Line]]] = []
    last, style = 0, None  # the last claim's number; the punctuation after the first typed claim number
    for line in section:
        if claim_list is not None and line.auto == claim_list:
            number, high = line.number, line.number
        else:
            typed = _typed_number(line.text) if not line.label else None
            number, high, punct = typed if typed else (None, None, None)
            rest = line.text[_CLAIM_START.match(line.text).end():] if typed else ""
            if typed and (number <= last or (number > last + 1 and rest[:1].islower())
                          or (style is not None and punct != style and ")" in (punct, style))):
                number = None  # an item inside a claim ("2) cooling" among "1." claims), not the next claim
            elif typed and style is None:
                style = punct
        if number is not None:
            claims.append((number, line.index, [line]))
            last = high
        elif claims and line.text.strip():
            claims[-1][2].append(line)
    return claims


def _claim_line(number: int, lines: list[_Line], auto: bool) -> str:
    first, *rest = lines
    words = [f"{number}. {first.text.strip()}" if auto else first.text.strip()]
    words += [_shown(line) for line in rest]
    return " ".join(" ".join(words).split())


def _labelled(lines: list[_Line]) -> list[tuple[int, str]]:
    """(paragraph index, the automatic label :func:`_claim_line` writes before its text) for a claim's paragraphs:
    none before the first, whose label is the claim's number, which the parser strips."""
    return [(line.index, line.label if k else "") for k, line in enumerate(lines)]


def read_docx(data: bytes, name: str, *, tracked_changes: str = "accept") -> DocxText:
    """The claims and the description of a Word document (see :class:`DocxText`). Raises InputError naming ``name``
    for anything that is not a .docx within spg's limits (:func:`_check_package`).

    ``tracked_changes``: "accept" reads the text as if every tracked change were accepted (insertions kept,
    deletions dropped), "reject" as if every one were rejected.
    """
    dropped = _dropped(tracked_changes)
    return _read(_open(data, name), dropped)[0]


def _read(document, dropped: frozenset[str]) -> tuple[DocxText, dict[int, list[tuple[int, str]]]]:
    """:func:`read_docx` of an open document, and each claim's paragraphs (:func:`_labelled`) by the index of its
    first."""
    lines = _lines(document, dropped)
    found = _claims_start(lines)
    if found is None:
        first = next((i for i, line in enumerate(lines) if _typed_number(line.text) or line.auto), len(lines))
        before, section = [], lines[first:]
    else:
        at, skip = found
        before = lines[:at]
        section = lines[at:]
        section[0] = _Line(section[0].index, section[0].text[skip:])
    end = next((i for i, line in enumerate(section) if i and _SECTION_END.fullmatch(line.text)), len(section))
    claims = _claim_lines(section[:end])
    paragraphs: dict[int, int] = {}
    for n, index, _ in claims:
        paragraphs.setdefault(n, index)
    text = DocxText(
        claims_text="\n".join(_claim_line(n, group, bool(group[0].label)) for n, _, group in claims),
        description="\n".join(_shown(line) for line in before if line.text.strip() or line.label),
        claim_paragraphs=paragraphs,
        text="\n".join(_shown(line) for line in lines if line.text.strip() or line.label),
    )
    return text, {index: _labelled(group) for _, index, group in claims}


def _shown(line: _Line) -> str:
    return f"{line.label} {line.text}" if line.label else line.text


# ---------------------------------------------------------------- Word out


def _saved(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def claims_docx(claims: Sequence[str] | Forest, title: str | None = None) -> bytes:
    """A new Word document holding ``claims`` (texts, numbered or not, or a forest) as a claims section: an optional
    title, "What is claimed is:", then one paragraph per claim, its number typed ("1. A widget …") so that it
    survives any re-save and reads back the same (:func:`read_docx`); cancelled numbers stay as "N. (Canceled)"."""
    import docx
    from docx.shared import Pt

    forest = claims if isinstance(claims, Forest) else parse_claims([str(c) for c in claims])
    document = docx.Document()
    if title:
        document.add_heading(" ".join(title.split()), level=1)
    document.add_paragraph("What is claimed is:")
    rows = [(c.num, c.text) for c in forest.claims] + [(n, "(Canceled)") for n in forest.cancelled]
    for num, text in sorted(rows, key=lambda row: row[0]):
        paragraph = document.add_paragraph(f"{num}. {' '.join(text.split())}")
        paragraph.paragraph_format.space_after = Pt(12)
    return _saved(document)


def _alone(piece, lo: int, hi: int):
    """The run holding exactly the characters ``lo:hi`` of ``piece`` (a w:t, a tab, …), split out of the run it was in
    (the other content moved to runs of the same formatting before and after). None when it sits in no run."""
    run = piece.getparent()
    if run is None or run.tag != f"{W}r":
        return None
    props = run.find(f"{W}rPr")

    def new_run(children, before: bool):
        other = run.makeelement(f"{W}r", dict(run.attrib))
        if props is not None:
            other.append(copy.deepcopy(props))
        other.extend(children)
        (run.addprevious if before else run.addnext)(other)

    content = [c for c in run if c.tag != f"{W}rPr"]
    at = content.index(piece)
    if content[:at]:
        new_run(content[:at], before=True)
    if content[at + 1:]:
        new_run(content[at + 1:], before=False)
    if piece.tag == f"{W}t" and (lo > 0 or hi < len(piece.text or "")):
        text = piece.text or ""
        for part, before in ((text[:lo], True), (text[hi:], False)):
            if part:
                t = piece.makeelement(f"{W}t", {"{http://www.w3.org/XML/1998/namespace}space": "preserve"})
                t.text = part
                new_run([t], before)
        piece.text = text[lo:hi]
        piece.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    return run


def _characters(paragraphs: list, labels: Sequence[str], dropped: frozenset[str]) -> list[tuple[object, int, str]]:
    """Every character the paragraphs show, as (piece, offset in it, character); paragraphs joined by a space. The
    automatic label the claim's text carries for a paragraph ("b." of an element Word letters, :func:`_claim_line`)
    comes first, as characters of no piece: a comment cannot hang on them, but the claim's text is found."""
    out: list[tuple[object, int, str]] = []
    for p, label in zip(paragraphs, labels):
        out += [(None, 0, ch) for ch in f"{label} " if label]
        for piece, text in _pieces(p, dropped):
            out += [(piece, i, ch) for i, ch in enumerate(text)]
        out.append((None, 0, " "))
    return out


def _span(claim_text: str, start: int, end: int, characters: list[tuple[object, int, str]]):
    """The (first, last) characters of ``characters`` that ``claim_text[start:end]`` was read from, matched on the
    characters that are not white space (the parser only strips the number and normalises white space); None when the
    claim's text is not found there."""
    shown = [i for i, ch in enumerate(claim_text) if not ch.isspace()]
    raw = [i for i, (_, _, ch) in enumerate(characters) if not ch.isspace()]
    offset = "".join(characters[i][2] for i in raw).find("".join(claim_text[i] for i in shown))
    if offset < 0:
        return None
    inside = [characters[raw[offset + k]] for k, i in enumerate(shown) if start <= i < end]
    inside = [c for c in inside if c[0] is not None]  # an automatic label's characters are in no run
    return (inside[0], inside[-1]) if inside else None


def _anchor(paragraphs: list, labels: Sequence[str], claim_text: str | None, start: int | None, end: int | None,
            dropped: frozenset[str]):
    """(first run, last run) to hang a comment on: the finding's words, else the claim's first paragraph.
    ``labels``: the automatic label the claim's text shows before each paragraph ("" for none)."""
    if claim_text is not None and start is not None and end is not None and end > start:
        span = _span(claim_text, start, end, _characters(paragraphs, labels, dropped))
        if span:
            (first, lo, _), (last, hi, _) = span
            if first is last:
                run = _alone(first, lo, hi + 1)
                if run is not None:
                    return run, run
            else:
                a = _alone(first, lo, len(first.text or "") if first.tag == f"{W}t" else 1)
                b = _alone(last, 0, hi + 1)
                if a is not None and b is not None:
                    return a, b
    runs = [piece.getparent() for piece, _ in _pieces(paragraphs[0], dropped) if piece.getparent().tag == f"{W}r"]
    if runs:
        return runs[0], runs[-1]
    run = paragraphs[0].makeelement(f"{W}r", {})
    paragraphs[0].append(run)
    return run, run


def commented_docx(data: bytes, findings, claim_paragraphs: Mapping[int, int], *, name: str = "the document",
                   tracked_changes: str = "accept", author: str = "spg lint") -> bytes:
    """A copy of the Word document ``data`` with each finding (:class:`spg.lint.Finding`) as a Word comment on the
    words it is about (its ``start:end`` in the claim's text), on the claim's first paragraph when it has no place,
    on the first claim for a finding about the whole set. ``claim_paragraphs`` is :func:`read_docx`'s, read with the
    same ``tracked_changes``. ``data`` itself is never changed."""
    from docx.text.run import Run

    dropped = _dropped(tracked_changes)
    document = _open(data, name)
    text, groups = _read(document, dropped)
    forest = parse_claims(text.claims_text)
    paragraphs = _paragraphs(document.element.body)
    first = min(claim_paragraphs.values(), default=0)
    for finding in findings:
        index = claim_paragraphs.get(finding.claim, first) if finding.claim is not None else first
        if index >= len(paragraphs):
            continue
        group = groups.get(index, [(index, "")])
        claim = forest.by_num.get(finding.claim) if finding.claim is not None else None
        start, end = _anchor([paragraphs[i] for i, _ in group], [label for _, label in group],
                             claim.text if claim else None, finding.start, finding.end, dropped)
        message = f"{finding.severity}: {finding.message} [{finding.rule}]"
        comment = document.add_comment([Run(start, None), Run(end, None)], message, author=author, initials="spg")
        comment._comment_elm.attrib.pop(f"{W}date", None)  # optional; without it the same findings give the same file
    try:
        return _saved(document)
    except (TypeError, ValueError, KeyError) as e:  # a damaged part python-docx read but cannot write back
        raise InputError(f"{name}: a damaged Word document that cannot be written back ({type(e).__name__}: "
                         f"{' '.join(str(e).split())}); {EXPECTED} that Word opens") from None


# ---------------------------------------------------------------- spg's marker


def _safe_parser():
    from lxml import etree

    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


def docx_mark(data: bytes) -> str | None:
    """The kind in the ``spg`` custom property of a .docx spg wrote, None for any other file (never raises)."""
    from lxml import etree

    try:
        package = zipfile.ZipFile(io.BytesIO(data))
        info = package.getinfo(_CUSTOM_PART)
        if info.file_size > 2**20:
            return None
        custom = etree.fromstring(package.read(info), _safe_parser())
    except (KeyError, zipfile.BadZipFile, etree.LxmlError, OSError, ValueError, EOFError, RuntimeError,
            NotImplementedError):
        return None
    for prop in custom.iter(f"{{{_CUSTOM_NS}}}property"):
        if prop.get("name") == "spg" and len(prop) and prop[0].text:
            return prop[0].text
    return None


def marked_docx(data: bytes, kind: str) -> bytes:
    """``data`` (a .docx python-docx saved) with the custom property ``spg`` = ``kind`` added, other custom
    properties kept, and every member stamped with one fixed time, so that the same document gives the same bytes."""
    from lxml import etree

    parser = _safe_parser()
    source = zipfile.ZipFile(io.BytesIO(data))
    parts = {m.filename: source.read(m) for m in source.infolist()}
    rels = etree.fromstring(parts["_rels/.rels"], parser)
    rel_ns = rels.nsmap.get(None, "http://schemas.openxmlformats.org/package/2006/relationships")
    target = next((r.get("Target").lstrip("/") for r in rels if r.get("Type") == _CUSTOM_REL), None)
    if target is None:
        target = _CUSTOM_PART
        ids = {r.get("Id") for r in rels}
        rels.append(etree.Element(f"{{{rel_ns}}}Relationship", Id=next(f"rIdSpg{n}" for n in range(len(ids) + 1)
                                                                          if f"rIdSpg{n}" not in ids),
                                  Type=_CUSTOM_REL, Target=target))
        types = etree.fromstring(parts["[Content_Types].xml"], parser)
        ns = types.nsmap.get(None)
        types.append(etree.Element(f"{{{ns}}}Override", PartName=f"/{target}", ContentType=_CUSTOM_TYPE))
        parts["[Content_Types].xml"] = etree.tostring(types, xml_declaration=True, encoding="UTF-8", standalone=True)
        parts["_rels/.rels"] = etree.tostring(rels, xml_declaration=True, encoding="UTF-8", standalone=True)
    if target in parts:
        custom = etree.fromstring(parts[target], parser)
    else:
        custom = etree.Element(f"{{{_CUSTOM_NS}}}Properties", nsmap={None: _CUSTOM_NS, "vt": _VT_NS})
    for prop in [p for p in custom if p.get("name") == "spg"]:
        custom.remove(prop)
    pid = max([_int(p.get("pid"), 1) for p in custom] + [1]) + 1
    prop = etree.SubElement(custom, f"{{{_CUSTOM_NS}}}property", fmtid=_PROPERTY_FMTID, pid=str(pid), name="spg")
    etree.SubElement(prop, f"{{{_VT_NS}}}lpwstr").text = kind
    parts[target] = etree.tostring(custom, xml_declaration=True, encoding="UTF-8", standalone=True)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name in ["[Content_Types].xml", *(n for n in parts if n != "[Content_Types].xml")]:
            package.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), parts[name],
                             compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()
