"""Peak memory of one Word document request (issue 42): what ``spg serve`` does for a .docx, measured per document
in a fresh process: open it and read its claims (``/api/upload``), lint them with its description, and write the
commented copy (``/api/commented.docx``). The peak is the process's peak resident set (VmHWM, reset by writing 5
to /proc/self/clear_refs once spg is imported and a one-claim document read) above what it held then, so it counts
lxml's trees, which Python's own allocator tracking (tracemalloc) does not see. Linux only.

The documents, built here (tests/docx_files.py):

* **issue package**: the issue's 225 kB package of 190 referenced 1 MiB parts (refused since: what the
  relationships reach is counted, inflated, before python-docx reads it);
* **elements at the limit**: headers packed with empty paragraphs, just under ``MAX_XML_ELEMENTS`` together (the
  most lxml memory an XML byte can cost);
* **parts at the limit**: referenced images just under ``MAX_READ_BYTES`` inflated together;
* **text at the limit**: a description of ``--text-mb`` MB of prose before the claims (default: just under
  ``MAX_XML_BYTES`` of XML, the most text a document may hold);
* **9 MB photo**: claims and a 9 MB photograph (bytes that do not deflate): the documents whose commented copy the
  page could not get back before.

    .venv/bin/python benchmarks/docx_memory.py [--text-mb 24] [--spg /path/to/another/checkout]

``--spg`` measures another checkout's spg (say, the one before issue 42) on the same documents.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from common import REPO

sys.path.insert(0, str(REPO / "tests"))

CLAIMS = [(1, "A leak detector comprising: a sensor measuring a pressure in a pipe; and a processor."),
          (2, "The leak detector of claim 1, wherein the processor compares the gradient value with a threshold."),
          (3, "The leak detector of claim 2, wherein the sensor is a strain gauge.")]
WORDS = ["the", "sensor", "measures", "a", "pressure", "of", "the", "fluid", "in", "the", "pipe", "and", "the", "processor", "computes", "a", "gradient", "of", "the", "pressure", "over", "a", "window", "of", "samples", "so", "that", "a", "leak", "is", "reported", "when", "the", "gradient", "exceeds", "a", "threshold"]


def _prose(megabytes: float) -> str:
    """Paragraphs of about 600 characters, ``megabytes`` MB of them."""
    sentence = " ".join(WORDS).capitalize() + ". "
    paragraph = sentence * (600 // len(sentence) + 1)
    return "\n".join([paragraph] * int(megabytes * 2**20 / len(paragraph)))


def documents(text_mb: float | None, only: list[str]) -> dict[str, bytes]:
    from docx_files import claims_document, with_parts

    from spg.docx import MAX_READ_BYTES, MAX_XML_BYTES, MAX_XML_ELEMENTS

    base = claims_document(CLAIMS, "numbered")
    if text_mb is None:  # the most prose under the XML limit, from the XML a 1 MB sample is written as
        sample = zipfile.ZipFile(io.BytesIO(claims_document(CLAIMS, "after-description", _prose(1))))
        text_mb = 0.9 * MAX_XML_BYTES / sample.getinfo("word/document.xml").file_size
    built = {
        "issue package": lambda: with_parts(base, 190, 2**20),
        "elements at the limit": lambda: with_parts(base, 6, 6 * int(MAX_XML_ELEMENTS * 0.98 / 6) + 100, kind="header"),
        "parts at the limit": lambda: with_parts(base, MAX_READ_BYTES // 2**20 - 2, 2**20),
        "text at the limit": lambda: claims_document(CLAIMS, "after-description", _prose(text_mb)),
        "9 MB photo": lambda: with_parts(base, 1, 9 * 2**20, kind="photo"),
    }
    return {name: build() for name, build in built.items() if not only or name in only}


def _status(field: str) -> int:
    """A size from /proc/self/status, in bytes."""
    line = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith(field))
    return int(line.split()[1]) * 1024


def request(path: str) -> dict:
    """In the child: one document's request, as spg serve handles it, and the peak it cost."""
    from docx_files import claims_document

    from spg.docx import commented_docx, read_docx
    from spg.errors import InputError
    from spg.lint import lint
    from spg.parse import parse_claims

    read_docx(claims_document(CLAIMS, "numbered"), "warm.docx")  # imports and first-use caches: the baseline
    Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from here
    baseline = _status("VmRSS")
    data = Path(path).read_bytes()
    began = time.perf_counter()
    try:
        text = read_docx(data, "doc.docx")
        result = lint(parse_claims(text.claims_text), text.description or None)
        out = commented_docx(data, result.findings, text.claim_paragraphs, name="doc.docx")
        outcome = f"read, {len(result.findings)} comments, copy {len(out) / 2**20:.1f} MB"
    except InputError as error:
        outcome = f"refused: {str(error).split(': ', 1)[1][:90]}"
    peak = _status("VmHWM") - baseline
    return {"outcome": outcome, "peak": peak, "seconds": time.perf_counter() - began}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--text-mb", type=float, default=None,
                        help="MB of description prose in the text document (default: just under the XML limit)")
    parser.add_argument("--spg", type=Path, default=REPO, help="the checkout whose spg is measured (default: this one)")
    parser.add_argument("--only", nargs="+", default=[], metavar="DOCUMENT",
                        help="measure these documents only (their names as printed)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(request(args.child)))
        return
    env = {**os.environ, "PYTHONPATH": str(args.spg.resolve())}
    print(f"spg from {args.spg.resolve()}")
    print(f"{'document':<22} {'file':>9} {'peak':>9} {'seconds':>8}  outcome")
    with tempfile.TemporaryDirectory() as folder:
        for name, data in documents(args.text_mb, args.only).items():
            path = Path(folder) / "doc.docx"
            path.write_bytes(data)
            child = subprocess.run([sys.executable, __file__, "--child", str(path)], env=env, capture_output=True,
                                   text=True, check=True)
            got = json.loads(child.stdout.splitlines()[-1])
            print(f"{name:<22} {len(data) / 2**20:>6.2f} MB {got['peak'] / 2**20:>6.0f} MB {got['seconds']:>8.1f}  "
                  f"{got['outcome']}")


if __name__ == "__main__":
    main()
