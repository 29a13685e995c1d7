"""``spg renumber IN OUT``: claims renumbered consecutively with no forward reference, citations updated
(:mod:`spg.renumber`), written to a new file.

Exit codes: 0 written, 2 bad input (a cycle, a citation of a missing claim, OUT being IN or a file spg may not
replace).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from spg.cli.command import add_command
from spg.errors import InputError
from spg.files import check_destination, write_docx, write_report

KIND = "renumbered"  # the kind of a renumbered .docx (spg.files): only such a file is replaced


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def _renumber(args: argparse.Namespace) -> int:
    from spg.lint.source import read_claim_set
    from spg.renumber import renumber_docx, renumber_text

    if args.input != "-" and _same_file(args.input, args.output):
        raise InputError(f"{args.output}: is the input; spg renumber writes a new file, choose another name")
    docx_out = args.output.lower().endswith(".docx")
    if docx_out:
        check_destination(args.output, KIND)
    claim_set = read_claim_set(args.input)
    name = claim_set.name
    if not claim_set.forest.claims:
        raise InputError(f"{name}: no claims to renumber; expected numbered claims ('1. A widget …')")
    if claim_set.docx is not None:
        if not docx_out:
            raise InputError(f"{args.output}: the input is a Word document; expected an output name ending .docx")
        write_docx(args.output, KIND, renumber_docx(claim_set.docx, name))
    else:
        if docx_out:
            raise InputError(f"{args.output}: the input is text; expected an output name not ending .docx")
        text = renumber_text(claim_set.forest)
        write_report(args.output, text, force=args.force)
    print(f"spg renumber: wrote {args.output} ({len(claim_set.forest)} claims)", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "renumber", _renumber,
                    summary="renumber claims consecutively, each after the claims it cites, citations updated",
                    description="""
        Write the claims of IN to OUT numbered 1, 2, 3, ... in an order where every claim comes after the claims it
        cites (the given order otherwise), with every numbered citation ('claim 3', 'claims 2 or 3', 'any of claims
        1-4', 'claims 2 to 5') updated. Text comes out one claim per line; a Word document keeps its paragraphs and
        formatting, with only the numbers changed and the claims moved. IN is never changed. A cycle of citations or a
        citation of a missing claim exits 2 naming the claim.""")
    p.add_argument("input", metavar="IN", help="claim text (flat '1. ... 2. ...' or one claim per line) or a Word "
                   "document (.docx); JSON claims come out as text; '-' = stdin")
    p.add_argument("output", metavar="OUT", help="where to write: a new text file, or OUT.docx for a Word input "
                   "(replaced only when an earlier spg renumber wrote it)")
    p.add_argument("--force", action="store_true", help="let a text OUT replace an existing file (never IN)")
