"""``spg lint FILE``: a claim set as a dependency tree with its problems (docs/lint.md).

Exit codes: 0 no error left (warnings and info allowed), 1 errors, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from spg.cli.command import add_command
from spg.cli.lint_corpus import add_arguments as add_corpus_arguments
from spg.cli.lint_corpus import is_corpus_run, lint_corpus_command
from spg.errors import InputError
from spg.files import check_destination, write_docx, write_report
from spg.lint import lint, report_json, report_lines
from spg.lint.check import ANTECEDENT_MODES, RESTATEMENT_MODES
from spg.lint.html import render_html
from spg.lint.rules import RULES
from spg.lint.source import read_claim_set, read_description
from spg.lint.suppress import CONFIG_NAME, Suppressions, check_rule_ids, find_config, read_suppressions


def _suppressions(args: argparse.Namespace) -> Suppressions:
    if args.config:
        found = read_suppressions(Path(args.config))
    elif args.no_config:
        found = Suppressions()
    else:
        start = Path.cwd() if args.file == "-" else Path(args.file).resolve().parent
        path = find_config(start)
        found = read_suppressions(path) if path else Suppressions()
    ignored = [r.strip() for value in args.ignore for r in value.split(",") if r.strip()]
    return found.with_ignored(check_rule_ids(ignored, "--ignore"))


COMMENTS = "lint-comments"  # the kind of the commented copy --docx-comments writes (spg.files)


# a container holding more items than this, or holding a container that does, is written item by item; the rest (a
# claim, a finding, a mention) each as one string
_WHOLE = 64
_CONTAINERS = (list, tuple, dict)
_SCALARS = {True: "true", False: "false", None: "null"}
_string = json.encoder.encode_basestring  # ensure_ascii=False's (C where there is the C module)


def _indented(value: object, level: int) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=1)`` of a value nested ``level`` deep, built with joins: the
    standard indented encoder is Python's, a generator per nested container that hands each piece up through every
    level (twice this function's time)."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return int.__repr__(value)
    if value is None or value is True or value is False:
        return _SCALARS[value]
    if isinstance(value, _CONTAINERS):
        if not value:
            return "{}" if isinstance(value, dict) else "[]"
        pad = "\n" + " " * (level + 1)
        if isinstance(value, dict):
            inner = [_key(k) + _indented(v, level + 1) for k, v in value.items()]
            return "{" + pad + ("," + pad).join(inner) + "\n" + " " * level + "}"
        return "[" + pad + ("," + pad).join([_indented(v, level + 1) for v in value]) + "\n" + " " * level + "]"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return int.__repr__(value)
    return json.dumps(value)  # a float (NaN and the infinities as the encoder writes them); anything else refused


@functools.lru_cache(maxsize=256)
def _key(key: object) -> str:
    """A dict key and the separator after it (an int, float, True, False or None key: the standard encoder's text of
    it, quoted); a report names few keys, each many times."""
    return _string(key if isinstance(key, str) else json.dumps(key)) + ": "


def _streamed(value: list | tuple | dict) -> bool:
    """Whether a container is written item by item (:func:`_pieces`): it holds more than :data:`_WHOLE` items, or a
    container that does."""
    if len(value) > _WHOLE:
        return True
    for v in value.values() if isinstance(value, dict) else value:  # a loop: asked of every item of a big report
        if isinstance(v, _CONTAINERS) and len(v) > _WHOLE:
            return True
    return False


def _pieces(value: list | tuple | dict, level: int) -> Iterator[str]:
    """The text of a container as :func:`_indented` writes it, item by item (and so on down) where it is big
    (:func:`_streamed`): a big report is never one string."""
    if not _streamed(value):
        yield _indented(value, level)
        return
    pad = "\n" + " " * (level + 1)
    values = value.values() if isinstance(value, dict) else value
    keys = [_key(k) for k in value] if isinstance(value, dict) else itertools.repeat("")
    yield "{" if isinstance(value, dict) else "["
    for i, (key, v) in enumerate(zip(keys, values)):
        yield ("," + pad if i else pad) + key
        yield from _pieces(v, level + 1) if isinstance(v, _CONTAINERS) and _streamed(v) else (_indented(v, level + 1),)
    yield "\n" + " " * level + ("}" if isinstance(value, dict) else "]")


def _print_json(value: dict, batch: int = 4096) -> None:
    """``print(json.dumps(value, ensure_ascii=False, indent=1))``, written ``batch`` pieces at a time (json.dumps
    joined 120 MB of pieces for the 13 MB report of a 1 MB claim, more than the check itself)."""
    pieces: list[str] = []
    for piece in _pieces(value, 0):
        pieces.append(piece)
        if len(pieces) == batch:
            sys.stdout.write("".join(pieces))
            pieces.clear()
    sys.stdout.write("".join(pieces) + "\n")


def _not_an_input(path: str, args: argparse.Namespace) -> None:
    inputs = [p for p in (args.file, args.description, args.config) if p and p != "-"]
    if any(Path(path).resolve() == Path(p).resolve() for p in inputs):
        raise InputError(f"{path}: is one of the input files; choose another name for the output")


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector paused while one claim set is read, checked and written: what the checks build
    stays alive to the end and is hardly ever a cycle to free, so each full pass over the growing heap was wasted work
    (12-24 % of the CPU time of a 1 MB claim set, measured with gc.callbacks; peak memory unchanged). Only this
    command's one-set path: a corpus run reads on for hours, and ``spg serve`` keeps its collector."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _lint(args: argparse.Namespace) -> int:
    if is_corpus_run(args):
        return lint_corpus_command(args, _suppressions(args))
    with _no_cycle_collection():
        return _lint_one(args)


def _lint_one(args: argparse.Namespace) -> int:
    if args.docx_comments:
        _not_an_input(args.docx_comments, args)
        check_destination(args.docx_comments, COMMENTS)
    suppressions = _suppressions(args)
    claim_set = read_claim_set(args.file, args.record, args.field)
    if args.docx_comments and claim_set.docx is None:
        raise InputError(f"{args.file}: --docx-comments needs a Word document (.docx) to comment; got "
                         "text or JSON")
    description = read_description(args.description) if args.description else claim_set.description
    result = lint(claim_set.forest, description, suppressions, args.antecedent, terms=bool(args.html or args.json),
                  restatement=args.restatement)
    if args.html:
        _not_an_input(args.html, args)
        write_report(args.html, render_html(result, claim_set.name), force=args.force)
    if args.docx_comments:
        from spg.docx import commented_docx

        commented = commented_docx(claim_set.docx, result.findings, claim_set.paragraphs or {}, name=claim_set.name)
        write_docx(args.docx_comments, COMMENTS, commented)
    if args.json:
        _print_json(report_json(result, claim_set.paragraphs))
    else:
        print("\n".join(report_lines(result)))
    return 1 if result.failed else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "lint", _lint,
                    summary="show a claim set as a dependency forest and list its problems",
                    description=f"""
        Print the claim set as trees (indented by depth), then every finding: structure, antecedent basis, the
        repetition LLM drafters produce (duplicate claims, claims that do not further limit, repeated limitations,
        elements introduced twice), dependent claims whose preamble names another subject, 37 CFR 1.75(c) multiple
        dependency, 35 USC 112(f) terms and, with a description, claim terms it does not support. Exit 1 when an error
        is left after suppressions, 2 on unreadable input. Rules: {', '.join(RULES)}.""")
    p.add_argument("file", help="claim set: text (flat '1. ... 2. ...' or one claim per line), a Word document "
                   "(.docx: its claims section; the text before it is the description), JSON, or a JSON / JSON Lines "
                   "patent record (its description is used); '-' = stdin")
    p.add_argument("--json", action="store_true", help="print claims, findings and the summary as JSON (a .docx "
                   "input: each claim and finding with 'paragraph', the index of the claim's first paragraph)")
    p.add_argument("--description", metavar="FILE", help="the description (UTF-8 text or .docx) whose support for the claim "
                   "terms is checked; default: the record's own description, if the input is a record")
    p.add_argument("--record", metavar="ID", help="the record to lint when FILE holds several (JSON Lines)")
    p.add_argument("--field", metavar="NAME", help="the record's field holding the claim set to lint, instead of "
                   "'claims' (e.g. one system's output in a HUPD-DCG record: --field Llama-3-8B-FT-claim)")
    p.add_argument("--ignore", action="append", default=[], metavar="RULE[,RULE]",
                   help="rules not to report in this run (repeatable)")
    p.add_argument("--config", metavar="FILE", help=f"suppression file (YAML); default: the nearest {CONFIG_NAME} "
                   "in the claim file's folder or above")
    p.add_argument("--no-config", action="store_true", help=f"do not look for {CONFIG_NAME}")
    p.add_argument("--antecedent", choices=ANTECEDENT_MODES, default="grammar",
                   help="grammar (default): the claim grammar's antecedent warnings; judged: a learned judge makes "
                   "those it reads as inherent or contextual 'antecedent-note' (info): fewer warnings, not more "
                   "precise ones on held-out documents (docs/lint-antecedent.md)")
    p.add_argument("--restatement", choices=RESTATEMENT_MODES, default="rules",
                   help="rules (default): the word rules' repetition findings; read: also a learned reader's "
                   "'restatement' warnings on dependent claims that add nothing new in other words (docs/lint.md, "
                   "\"The restatement reader\")")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report to FILE")
    p.add_argument("--force", action="store_true", help="let --html replace an existing file")
    p.add_argument("--docx-comments", metavar="OUT.docx", help="with a .docx input: write a copy of it with each "
                   "finding as a Word comment on its words (the input is never changed; OUT is marked as spg's by "
                   f"the custom document property spg={COMMENTS} and only such a file is replaced)")
    add_corpus_arguments(p)
