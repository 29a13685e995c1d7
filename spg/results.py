"""What an evaluation produces, as types: each document's scores, each system's row, and the whole evaluation;
and the one way spg's tables print a number.

``spg evaluate`` builds an :class:`Evaluation` (:mod:`spg.evaluate`), prints or writes it, and ``spg reproduce`` saves
it as JSON and reads it back into the same type for its report (:mod:`spg.report`). A field's JSON key is the
column name the tables print ("R-1", "DEA-pos", ...): ``to_json`` and ``from_json`` are the only places that know
the keys, so a reader never looks a score up by a string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from spg.metrics.structure import DEPTH_BUCKETS

# Digits after the point of each column, in every table spg prints.
PRECISION = {"BLEU": 2, "BLEU-hf": 2, "R-1": 2, "BS": 2, "SP": 3, "AC": 3, "CC": 3, "PS": 2, "DEA": 3, "valid": 3}
COLUMNS = tuple(PRECISION)  # the columns of the evaluation table, in order
UNMATCHED_SHOWN = 20  # ids of predictions without a reference kept in a row


def fmt(value: float | None, digits: int) -> str:
    """A number with ``digits`` decimals, "–" for a figure that does not exist (nothing to average)."""
    return "–" if value is None else f"{value:.{digits}f}"


def ratio_cell(hits: int, total: int) -> str:
    """'value (hits/total)' with DEA's precision; '– (0/0)' when nothing was counted."""
    return f"{fmt(hits / total if total else None, PRECISION['DEA'])} ({hits}/{total})"


def dea_cells(dea: dict[str, Any]) -> list[str]:
    """Overall and per-depth cells of a DEA as JSON (:meth:`spg.metrics.structure.DEA.as_dict`)."""
    return [ratio_cell(*dea["counts"][bucket]) for bucket in ("all", *DEPTH_BUCKETS)]


def markdown(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A markdown table, first column left-aligned and the others right-aligned."""
    def line(cells: Sequence[str]) -> str:
        return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"

    return [line(head), "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|", *map(line, rows)]


def key(name: str, **kwargs: Any) -> Any:
    """A field whose JSON key is ``name`` (the column name the tables print)."""
    return field(metadata={"key": name}, **kwargs)


class _Json:
    """``to_json`` / ``from_json`` for a dataclass whose JSON keys are its fields' names or their ``key``."""

    def to_json(self) -> dict[str, Any]:
        return {f.metadata.get("key", f.name): getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_json(cls, values: dict[str, Any]):
        return cls(**{f.name: values[f.metadata.get("key", f.name)] for f in fields(cls)  # type: ignore[arg-type]
                      if f.metadata.get("key", f.name) in values})


@dataclass
class DocumentScores(_Json):
    """One system's scores on one reference document (a line of ``documents.jsonl``)."""

    system: str
    id: str
    status: str  # "ok", "empty" (blank prediction) or "missing" (no prediction): both scored as no claims
    sentence_bleu: float = key("sentence_BLEU")
    sp: float = key("SP")
    ac: float = key("AC")
    cc: float = key("CC")
    ps: float = key("PS")  # PatentScore_rule on the 0–100 scale
    ps_total: float = key("PS_total")  # on its own 0–4.5 scale
    dea: float | None = key("DEA")
    dea_counts: dict[str, tuple[int, int]] = key("DEA_counts")
    dea_pos: float | None = key("DEA-pos")
    dea_pos_counts: dict[str, tuple[int, int]] = key("DEA-pos_counts")
    aligned: float | None  # gold claims aligned to a generated claim
    agreement: float | None  # pointer / back-reference agreement
    valid: bool
    reasons: list[str]
    r1: float | None = key("R-1")
    bs: float | None = key("BS", default=None)  # BERTScore F1 ×100; absent when BERTScore was not computed

    def to_json(self) -> dict[str, Any]:
        values = super().to_json()
        if self.bs is None:
            del values["BS"]
        return values


@dataclass
class SystemScores(_Json):
    """One system's row: the paper's Table 1 columns, DEA, valid rate, and the counts behind them."""

    system: str
    source: str
    n: int  # reference documents scored
    missing: int
    empty: int
    unmatched: int  # predictions whose id names no reference
    unmatched_ids: list[str]  # the first UNMATCHED_SHOWN of them
    bleu: float | None = key("BLEU")
    bleu_hf: float | None = key("BLEU-hf")
    r1: float | None = key("R-1")
    bs: float | None = key("BS")
    sp: float | None = key("SP")
    ac: float | None = key("AC")
    cc: float | None = key("CC")
    ps: float | None = key("PS")
    dea: float | None = key("DEA")  # claims aligned by content
    dea_pos: float | None = key("DEA-pos")  # generated claim k against gold claim k
    aligned: float | None
    valid: float | None
    dea_detail: dict[str, Any] = key("DEA_detail")  # DEA.as_dict()
    dea_pos_detail: dict[str, Any] = key("DEA-pos_detail")
    aligned_detail: dict[str, Any]  # {value, aligned, total}
    agreement: dict[str, Any]  # {value, agree, total}

    def column(self, name: str) -> float | None:
        """The value of a table column ("BLEU", "R-1", ...)."""
        return next(getattr(self, f.name) for f in fields(self) if f.metadata.get("key", f.name) == name)

    def cells(self, columns: Sequence[str] = COLUMNS) -> list[str]:
        return [fmt(self.column(c), PRECISION[c]) for c in columns]


@dataclass
class Settings(_Json):
    """How the numbers were made."""

    references: int
    patentscore: str
    sacrebleu_signature: str
    bertscore_model: str | None
    bertscore_per_claim: bool | None


@dataclass
class Evaluation:
    """Every system scored against the same references; what ``spg evaluate`` prints and writes."""

    rows: list[SystemScores]
    documents: list[DocumentScores]
    always_root: dict[str, Any]  # DEA.as_dict() of pointing every dependent claim at its tree's root
    settings: Settings
    not_generated: list[str] | None = None  # spg reproduce: systems whose generation did not finish

    def table_json(self) -> dict[str, Any]:
        """The rows, the always-root row and the settings (``--json``, ``table.json``)."""
        return {"rows": [r.to_json() for r in self.rows], "always_root": self.always_root,
                "settings": self.settings.to_json()}

    def to_json(self) -> dict[str, Any]:
        table = self.table_json()
        values = {"rows": table.pop("rows"), "documents": [d.to_json() for d in self.documents], **table}
        if self.not_generated is not None:
            values["not_generated"] = self.not_generated
        return values

    @classmethod
    def from_json(cls, values: dict[str, Any]) -> Evaluation:
        return cls([SystemScores.from_json(r) for r in values["rows"]],
                   [DocumentScores.from_json(d) for d in values["documents"]], values["always_root"],
                   Settings.from_json(values["settings"]), values.get("not_generated"))

    def row(self, system: str) -> SystemScores | None:
        return next((r for r in self.rows if r.system == system), None)

    def markdown(self) -> str:
        """The paper-style table, then DEA (aligned) by depth with its counts, the fraction of gold claims aligned,
        positional DEA, the pointer/back-reference agreement, and the always-root reference row."""
        lines = markdown(["System", "n", "missing", "empty", *COLUMNS],
                         [[r.system, str(r.n), str(r.missing), str(r.empty), *r.cells()] for r in self.rows])
        detail = [
            [r.system, *dea_cells(r.dea_detail), ratio_cell(r.aligned_detail["aligned"], r.aligned_detail["total"]),
             dea_cells(r.dea_pos_detail)[0], ratio_cell(r.agreement["agree"], r.agreement["total"])]
            for r in self.rows
        ]
        detail.append(["always root (reference)", *dea_cells(self.always_root), "–", "–", "–"])
        lines += ["", *markdown(["System", "DEA", "d2", "d3", "d4", "d5", "d6+", "aligned", "DEA-pos",
                                 "ptr/text agreement"], detail)]
        settings = self.settings
        notes = [
            f"BLEU: sacrebleu corpus BLEU, {settings.sacrebleu_signature}; BLEU-hf: HF evaluate 'bleu'.",
            f"SP, AC, CC, PS: PatentScore_rule, {settings.patentscore} reading.",
        ]
        if settings.bertscore_model:
            notes.append(
                f"BS: BERTScore F1 ×100 with {settings.bertscore_model}"
                + (" (per claim)." if settings.bertscore_per_claim else " (inputs truncated to 510 tokens).")
            )
        unmatched = [
            f"{r.system}: {r.unmatched} ({', '.join(r.unmatched_ids)}{' …' if r.unmatched > UNMATCHED_SHOWN else ''})"
            for r in self.rows
            if r.unmatched
        ]
        if unmatched:
            notes.append("Predictions with no matching reference id: " + "; ".join(unmatched) + ".")
        return "\n".join(lines + [""] + notes) + "\n"
