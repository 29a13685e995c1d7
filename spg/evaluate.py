"""Score any claim generator against reference claim sets: the paper's Table 1 plus DEA and valid rate.

Predictions come in one of two layouts:

* **prediction JSONL** (one system per file): one object per line with a string ``id`` matching a
  reference record's id and the claim set as ``prediction`` (plain numbered claims or a tagged
  sequence). The output of ``spg generate`` is accepted as is: ``raw`` (the generated sequence) is
  what every metric reads, text metrics through :func:`spg.linearize.scored_text` (tags removed, claims
  numbered, nothing rewritten; ``claims_text``, the forest rendered with the pointer's parents, is never
  scored); ``pointer_parents`` (per claim, the serialisation index of the pointer's parent, null for
  independent claims) gives DEA its parents and the pointer/back-reference agreement.
* **HUPD-style records** carrying model outputs as fields (``"Llama-3-8B-claim": "1. A ..."``), as
  HUPD-DCG stores them: pick fields with ``fields=[...]`` or every ``*-claim`` field with ``all_fields``.

Every reference record is scored for every system. A reference without a prediction ("missing") or
with a blank one ("empty") is scored as an empty claim set — it gets zero, not a pass — and both are
counted in the table; predictions whose id matches no reference are counted as "unmatched".
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spg.data import Record
from spg.errors import InputError, decode_utf8, parse_json, shown
from spg.files import check_destination, make_folder, write_json, write_jsonl, write_text
from spg.forest import Forest
from spg.linearize import canonical, scored_text
from spg.metrics import text as text_metrics
from spg.metrics.patentscore import DEFAULT_READING, PreparedText, check_reading, patent_score, prepare_text
from spg.metrics.structure import (
    DEA,
    Ratio,
    Validity,
    aligned_parents,
    dependency_edge_accuracy,
    generated_parents,
    is_tagged,
    pointer_agreement,
    read_output,
    root_parents,
)
from spg.results import UNMATCHED_SHOWN, DocumentScores, Evaluation, Settings, SystemScores

CLAIM_FIELD_SUFFIX = "-claim"
TEXT_KEYS = ("prediction", "claims_text", "raw")


class EvaluateError(InputError):
    """Bad evaluation input; the message names the file, the record and what was expected."""


@dataclass(frozen=True)
class Prediction:
    text: str  # the claim set as given; scored only when there is no ``raw``
    raw: str | None = None  # the generated sequence (spg generate's ``raw``): every metric reads it
    pointer: list[int | None] | None = None  # pointer parents (serialisation indices)


@dataclass
class System:
    name: str
    predictions: dict[str, Prediction]
    source: str


def numbered_text(forest: Forest) -> str:
    """A claim set as numbered text in its own order ("1. A ...\n2. The ... of claim 1 ...")."""
    return "\n".join(f"{c.num}. {c.text}" for c in forest)


# ---------------------------------------------------------------- reading predictions


def read_prediction_file(path: str | Path, name: str | None = None) -> System:
    """A prediction JSONL, a .json list of the same objects or one such object, as a system named after the file."""
    path = Path(path)
    if path.is_dir():
        raise EvaluateError(f"{path}: is a folder; expected a predictions file (JSONL, one object per line)")
    if not path.is_file():
        raise EvaluateError(f"{path}: no such predictions file")
    try:
        text = decode_utf8(path.read_bytes(), str(path))
    except OSError as e:
        raise EvaluateError(f"{path}: cannot read ({e.strerror or e})") from None
    predictions: dict[str, Prediction] = {}
    for where, obj in _json_objects(path, text):
        pid, prediction = _prediction(where, obj)
        if pid in predictions:
            raise EvaluateError(f"{where}: id {pid!r} appears twice; expected one prediction per document")
        predictions[pid] = prediction
    return System(name or path.stem, predictions, str(path))


def _json_objects(path: Path, text: str) -> list[tuple[str, Any]]:
    """(where, decoded value) of each prediction: the whole text as one JSON value (a list of predictions or one
    prediction, pretty-printed or not), or else one value per line."""
    try:
        whole = parse_json(text, str(path))
    except json.JSONDecodeError as e:
        if path.suffix == ".json" and e.msg != "Extra data":  # one document, broken; "Extra data": JSONL
            raise EvaluateError(f"{path}: not valid JSON ({e.msg}: line {e.lineno}, column {e.colno})") from None
    except InputError:
        if path.suffix == ".json":
            raise
        # else JSONL: read line by line below, so that the message names the line
    else:
        if isinstance(whole, list):
            return [(f"{path} record {i}", obj) for i, obj in enumerate(whole)]
        return [(str(path), whole)]
    items = []
    for n, line in enumerate(text.split("\n"), 1):  # not splitlines(): JSON strings may hold U+2028 and the like
        if line.strip():
            try:
                items.append((f"{path} line {n}", parse_json(line, f"{path} line {n}")))
            except json.JSONDecodeError as e:
                raise EvaluateError(f"{path} line {n}: not valid JSON ({e.msg}: column {e.colno})") from None
    return items


def _prediction(where: str, obj: Any) -> tuple[str, Prediction]:
    if not isinstance(obj, dict):
        raise EvaluateError(f"{where}: expected a JSON object with 'id' and 'prediction', got {type(obj).__name__}")
    pid = obj.get("id")
    # Reference ids are read stripped (spg.data), so prediction ids are too: " d1" names document d1.
    if not isinstance(pid, (str, int)) or isinstance(pid, bool) or not str(pid).strip():
        raise EvaluateError(f"{where}: expected an 'id' (string) naming the reference document, got {pid!r:.40}")
    pid = str(pid).strip()
    key = next((k for k in TEXT_KEYS if k in obj), None)
    if key is None:
        raise EvaluateError(f"{where} (id {pid}): expected the claim set in one of the fields {', '.join(TEXT_KEYS)}")
    for k in (key, "raw"):
        if obj.get(k) is not None and not isinstance(obj[k], str):
            raise EvaluateError(f"{where} (id {pid}): field '{k}' must be a string, got {type(obj[k]).__name__}")
    if key == "claims_text" and obj.get("raw") and not is_tagged(obj["raw"]):
        key = "raw"  # a plain-text generator's own words, not spg's re-rendering of them
    pointer = obj.get("pointer_parents")
    if pointer is not None and not (
        isinstance(pointer, list)
        and all(p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in pointer)
    ):
        raise EvaluateError(f"{where} (id {pid}): field 'pointer_parents' must be a list of integers or nulls")
    return pid, Prediction(obj[key] or "", obj.get("raw"), pointer)


def claim_fields(records: Iterable[Record]) -> list[str]:
    """Every ``*-claim`` field of the records, in first-seen order."""
    seen: dict[str, None] = {}
    for r in records:
        for k in r.fields:
            if k.endswith(CLAIM_FIELD_SUFFIX):
                seen.setdefault(k)
    return list(seen)


def systems_from_fields(records: Sequence[Record], fields: Sequence[str] | None, source: str) -> list[System]:
    """One system per model-output field of HUPD-style records (every ``*-claim`` field when ``fields`` is None)."""
    available = claim_fields(records)
    names = list(fields) if fields else available
    if not names:
        raise EvaluateError(f"{source}: no record has a model-output field ending in '{CLAIM_FIELD_SUFFIX}'")
    systems = []
    for name in names:
        if not any(name in r.fields for r in records):
            raise EvaluateError(
                f"{source}: no record has the field {name!r}; model-output fields present: {', '.join(available) or 'none'}"
            )
        predictions = {}
        for r in records:
            value = r.fields.get(name)
            if value is not None and not isinstance(value, str):
                raise EvaluateError(
                    f"{r.source} (id {r.id}): field {name!r} must be a string, got {type(value).__name__}"
                )
            if value is not None:
                predictions[r.id] = Prediction(value)
        display = name[: -len(CLAIM_FIELD_SUFFIX)] if name.endswith(CLAIM_FIELD_SUFFIX) else name
        systems.append(System(display, predictions, f"{source}:{name}"))
    return systems


def check_ids(systems: Sequence[System], references: Sequence[Record]) -> None:
    """Refuse what would skew the table without a word: a reference id used twice (that document would count
    twice) and a system none of whose predictions names a reference (an all-zero row)."""
    first: dict[str, Record] = {}
    for r in references:
        if r.id in first:
            raise EvaluateError(
                f"{r.source} (id {r.id}): the id of {first[r.id].source} again; expected one reference per document"
            )
        first[r.id] = r
    for s in systems:
        if not first.keys() & s.predictions.keys():
            ids = ", ".join(sorted(s.predictions)[:3]) or "none"
            raise EvaluateError(
                f"{s.source}: no prediction id matches a reference id (prediction ids: {ids}; reference ids: "
                f"{', '.join(list(first)[:3])}); expected the ids of the reference records"
            )


# ---------------------------------------------------------------- scoring


def generated_sequence(prediction: Prediction) -> str:
    """What the generator wrote: ``raw`` when the prediction keeps it (``spg generate``), else its text.

    Every metric reads this one sequence, so no system is scored on a rendering of its output.
    """
    return prediction.raw if prediction.raw is not None else prediction.text


@dataclass(frozen=True)
class Structure:
    """The structural scores of one output against its gold forest."""

    dea: DEA  # claims aligned by content (the DEA column)
    dea_positional: DEA  # generated claim k against gold claim k
    aligned: Ratio  # gold claims aligned to a generated claim
    agreement: Ratio  # pointer / back-reference agreement
    validity: Validity


def structure_of(gold: Forest, prediction: Prediction) -> Structure:
    """DEA (aligned and positional) of a prediction against its gold forest, its pointer/back-reference
    agreement, and its validity.

    A tagged output numbers its claims in serialisation order, so it is compared with the gold forest
    renumbered the same way (Eq. 1); plain text with the gold numbering as printed. Its parents are the
    pointer's when it has them, else its back-references.
    """
    seq = generated_sequence(prediction)
    output = read_output(seq, prediction.pointer)
    agreement = Ratio()
    if output.tagged:
        gold = canonical(gold)
        if prediction.pointer is not None:
            text_parents = [None if c.parent is None else c.parent - 1 for c in read_output(seq).forest]
            agreement = pointer_agreement(prediction.pointer[: len(text_parents)], text_parents)
    aligned = aligned_parents(gold, output.forest)
    return Structure(
        dependency_edge_accuracy(gold, aligned),
        dependency_edge_accuracy(gold, generated_parents(gold, output.forest)),
        Ratio(len(aligned), len(gold)),
        agreement,
        output.validity,
    )


def always_root(references: Sequence[Record]) -> DEA:
    """DEA of the rule "every dependent claim depends on its tree's root" over the references: the floor a
    DEA figure should be read against."""
    return sum((dependency_edge_accuracy(r.claims, root_parents(r.claims)) for r in references), DEA())


RULE_BATCH = 32  # documents per batch of rule-based scoring (every system's prediction of each)


@dataclass(frozen=True)
class RuleScoring:
    """What each process scoring documents holds for the whole run: the systems' names, in order, and the
    PatentScore_rule reading."""

    systems: tuple[str, ...]
    reading: str


@dataclass(frozen=True)
class Scored:
    """One system's rule-based scores on one document, as a worker hands them back: the text the text metrics read,
    the document's scores without them, and its structure (added to the system's sums, then dropped)."""

    text: str
    document: DocumentScores
    structure: Structure


def rule_scores(
    scoring: RuleScoring, number: int, batch: list[tuple[str, Forest, str, tuple[Prediction | None, ...]]]
) -> list[list[Scored]]:
    """PatentScore_rule (SP/AC/CC), DEA, alignment, agreement and validity of every system on each document of a
    batch (id, gold forest, reference text, each system's prediction or None): the task
    :func:`spg.corpus.map_batches` runs. Each reference text is prepared once, for all systems, and dropped after."""
    out = []
    for doc_id, gold, ref, predictions in batch:
        prepared = prepare_text(ref)
        out.append([_scored(name, doc_id, gold, prepared, given, scoring.reading)
                    for name, given in zip(scoring.systems, predictions, strict=True)])
    return out


def _scored(name: str, doc_id: str, gold: Forest, prepared: PreparedText, given: Prediction | None,
            reading: str) -> Scored:
    prediction = given or Prediction("")  # a missing prediction is scored as an empty claim set
    cand = scored_text(generated_sequence(prediction))
    status = "missing" if given is None else "empty" if not cand.strip() else "ok"
    ps = patent_score(cand, prepared, reading)
    structure = structure_of(gold, prediction)
    document = DocumentScores(
        system=name, id=doc_id, status=status, sentence_bleu=None,  # the text metrics: filled in by score_system
        sp=ps.struct, ac=ps.ante, cc=ps.count, ps=ps.normalized, ps_total=ps.total,
        dea=structure.dea.overall, dea_counts=structure.dea.counts,
        dea_pos=structure.dea_positional.overall, dea_pos_counts=structure.dea_positional.counts,
        aligned=structure.aligned.value, agreement=structure.agreement.value, valid=structure.validity.valid,
        reasons=structure.validity.reasons, r1=None,
    )
    return Scored(cand, document, structure)


@dataclass
class RuleResults:
    """One system's rule-based results, in reference order: each document's scores and scored text (what the
    report and the text metrics need) and the sums of the structures (no document's structure is kept)."""

    texts: list[str] = field(default_factory=list)
    documents: list[DocumentScores] = field(default_factory=list)
    dea: DEA = field(default_factory=DEA)
    positional: DEA = field(default_factory=DEA)
    aligned: Ratio = field(default_factory=Ratio)
    agreement: Ratio = field(default_factory=Ratio)
    valid: Ratio = field(default_factory=Ratio)

    def add(self, scored: Scored) -> None:
        self.texts.append(scored.text)
        self.documents.append(scored.document)
        s = scored.structure
        self.dea, self.positional = self.dea + s.dea, self.positional + s.dea_positional
        self.aligned, self.agreement = self.aligned + s.aligned, self.agreement + s.agreement
        self.valid += Ratio(int(s.validity.valid), 1)


def score_documents(
    systems: Sequence[System],
    references: Sequence[Record],
    refs: Sequence[str],
    *,
    patentscore: str = DEFAULT_READING,
    workers: int = 1,
    progress: bool = True,
) -> list[RuleResults]:
    """The rule-based scores of every system on every reference (``refs``: their numbered texts), on ``workers``
    processes through :mod:`spg.corpus`'s batches (one: this process); any number of workers gives what one does."""
    import functools

    from tqdm import tqdm

    from spg.corpus import batches, in_order, map_batches

    results = [RuleResults() for _ in systems]
    work = ((r.id, r.claims, ref, tuple(s.predictions.get(r.id) for s in systems))
            for r, ref in zip(references, refs, strict=True))
    setup = functools.partial(RuleScoring, tuple(s.name for s in systems), patentscore)
    done = map_batches(rule_scores, batches(work, RULE_BATCH), workers, setup)
    with tqdm(total=len(references), desc="rule-based scores", unit="doc", disable=not progress, leave=False) as bar:
        for _, _, scored in in_order(done):  # reference order, so that sums and documents are one process's
            for document in scored:
                for result, one in zip(results, document, strict=True):
                    result.add(one)
            bar.update(len(scored))
    return results


def score_system(
    system: System,
    references: Sequence[Record],
    refs: Sequence[str],
    ruled: RuleResults,
    *,
    bertscore: bool = True,
    bertscore_model: str | None = None,
    per_claim: bool = False,
) -> tuple[SystemScores, list[DocumentScores]]:
    """One system's row and per-document scores: its rule-based results (:func:`score_documents`) with the text
    metrics (BLEU, ROUGE-1, BERTScore), computed here in batches over its scored texts and the references' ``refs``.
    """
    unmatched = sorted(set(system.predictions) - {r.id for r in references})
    preds, docs = ruled.texts, ruled.documents
    for doc, cand, ref in zip(docs, preds, refs, strict=True):
        doc.sentence_bleu = text_metrics.sentence_bleu(cand, ref)
    for doc, r1 in zip(docs, text_metrics.rouge1_per_doc(preds, refs), strict=True):
        doc.r1 = r1
    bs_mean = None
    if bertscore:
        scores = text_metrics.bertscore_f1(preds, refs, model=bertscore_model, per_claim=per_claim)
        for doc, score in zip(docs, scores, strict=True):
            doc.bs = 100 * score
        bs_mean = 100 * sum(scores) / len(scores) if scores else None

    def mean(values: Iterable[float]) -> float | None:
        values = list(values)
        return sum(values) / len(values) if values else None

    dea, positional, aligned, agreement = ruled.dea, ruled.positional, ruled.aligned, ruled.agreement
    statuses = [d.status for d in docs]
    row = SystemScores(
        system=system.name, source=system.source, n=len(docs), missing=statuses.count("missing"),
        empty=statuses.count("empty"), unmatched=len(unmatched), unmatched_ids=unmatched[:UNMATCHED_SHOWN],
        bleu=text_metrics.sacrebleu_corpus(preds, refs) if docs else None,
        bleu_hf=text_metrics.hf_bleu(preds, refs) if docs else None,
        r1=mean(d.r1 for d in docs), bs=bs_mean, sp=mean(d.sp for d in docs), ac=mean(d.ac for d in docs),
        cc=mean(d.cc for d in docs), ps=mean(d.ps for d in docs), dea=dea.overall, dea_pos=positional.overall,
        aligned=aligned.value, valid=ruled.valid.value, dea_detail=dea.as_dict(), dea_pos_detail=positional.as_dict(),
        aligned_detail={"value": aligned.value, "aligned": aligned.hits, "total": aligned.total},
        agreement={"value": agreement.value, "agree": agreement.hits, "total": agreement.total},
    )
    return row, docs


def evaluate(
    systems: Sequence[System],
    references: Sequence[Record],
    *,
    bertscore: bool = True,
    bertscore_model: str | None = None,
    per_claim: bool = False,
    progress: bool = True,
    patentscore: str = DEFAULT_READING,
    workers: int = 1,
) -> Evaluation:
    """The full report: one row per system, the per-document scores, and how the numbers were made. The rule-based
    scores are computed on ``workers`` processes, all systems in one pass, before any text metric loads a model."""
    if not references:
        raise EvaluateError("no reference records to evaluate against")
    check_reading(patentscore)
    check_ids(systems, references)
    refs = [numbered_text(r.claims) for r in references]
    ruled = score_documents(systems, references, refs, patentscore=patentscore, workers=workers, progress=progress)
    results = [
        score_system(s, references, refs, r, bertscore=bertscore, bertscore_model=bertscore_model, per_claim=per_claim)
        for s, r in zip(systems, ruled, strict=True)
    ]
    return Evaluation(
        rows=[row for row, _ in results],
        documents=[doc for _, docs in results for doc in docs],
        always_root=always_root(references).as_dict(),
        settings=Settings(
            references=len(references),
            patentscore=patentscore,
            sacrebleu_signature=text_metrics.sacrebleu_signature(),
            bertscore_model=text_metrics.bertscore_label(bertscore_model) if bertscore else None,
            bertscore_per_claim=per_claim if bertscore else None,
        ),
    )


REPORT = "evaluation"  # the kind of spg.files output the --out files are
REPORT_FILES = ("table.md", "table.json", "documents.jsonl")
_LISTED = ("table.md", "documents.jsonl")  # what table.json, written last, lists by digest


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def report_problem(out_dir: str | Path) -> str | None:
    """Why the report files in ``out_dir`` are not one whole set (None: they are, or there are none). Each file is
    written whole (spg.files) but three renames are not one: table.json is written last and lists the digests of
    the others, so a run killed between files leaves a set whose table.json is missing or lists other files."""
    out = Path(out_dir)
    present = [name for name in REPORT_FILES if (out / name).is_file()]
    if not present:
        return None
    if "table.json" not in present:
        return f"{', '.join(present)} without table.json"
    try:
        listed = json.loads((out / "table.json").read_bytes()).get("files") or {}
        other = [name for name in _LISTED
                 if listed.get(name) != (_digest(out / name) if (out / name).is_file() else None)]
    except (OSError, ValueError, AttributeError):
        return "table.json does not list the files of its set"
    return f"{' and '.join(other)} not as table.json lists" if other else None


def check_report_folder(out_dir: str | Path, *, note: bool = True) -> None:
    """Raise InputError now, before anything is scored, when :func:`write_report` could not write to ``out_dir``
    (the folder is created now: a system folder such as /proc refuses only then); say so when a killed run left an
    incomplete set there, which this run writes whole again."""
    for name in REPORT_FILES:
        check_destination(Path(out_dir) / name, REPORT)
    make_folder(out_dir)
    problem = report_problem(out_dir) if note else None
    if problem:
        print(f"{shown(out_dir)}: the evaluation there is incomplete ({problem}: a run stopped while writing it); "
              "this run writes it whole", file=sys.stderr)


def write_report(report: Evaluation, out_dir: str | Path) -> list[Path]:
    """table.md, table.json (rows, always-root row, settings) and documents.jsonl (one line per system × document),
    each written whole or not at all (spg.files), table.json last with the digests of the other two, so that a set
    cut short by a kill is told from a whole one (:func:`report_problem`)."""
    out = Path(out_dir)
    check_report_folder(out, note=False)
    markdown = write_text(out / "table.md", REPORT, report.markdown())
    documents = write_jsonl(out / "documents.jsonl", REPORT, (doc.to_json() for doc in report.documents))
    table = {**report.table_json(), "files": {name: _digest(out / name) for name in _LISTED}}
    return [markdown, write_json(out / "table.json", REPORT, table), documents]
