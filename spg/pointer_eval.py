"""Teacher-forced dependency-edge accuracy of a trained SPG model (paper §5.2, Table "dea").

Each gold claim forest is serialised (Eq. 1) behind its description's prompt, exactly as a Stage I
training example (:func:`spg.model.batch.build_example`), and fed to the model: one forward per batch,
no generation. At every dependent claim's ``<dep>`` the pointer scores the closing tags of the earlier
claims of the same tree (Eq. 2, the training candidates A(i)) and its argmax is the predicted parent.
:func:`spg.metrics.structure.dependency_edge_accuracy` scores those parents against the gold forest,
overall and by gold depth (d2 … d5, d6+ pooled), pooled over documents.

Long documents are truncated the way training truncates them: the target keeps its first
``max_target_tokens`` tokens (only complete claims count; they are a prefix of the forest, so every
kept dependent's parent is kept) and the description is cut to fit ``max_length``. Claims beyond the
cut get no prediction. They are not silently dropped: :attr:`PointerEval.dea` scores the claims the
model saw, :attr:`PointerEval.dea_all` scores every gold dependent claim (a cut claim counts as
wrong, its coverage says how many were seen), and the truncated documents are listed by id.
Records without any claim are counted and listed too.

Only the positions the pointer reads are projected onto the vocabulary (``logits_to_keep``), so an
8k-token document does not materialise 8k × vocabulary logits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import torch

from spg.data import Record
from spg.forest import Claim, Forest
from spg.generation.runner import batches
from spg.linearize import linearize
from spg.metrics.structure import DEA, DEPTH_BUCKETS, dependency_edge_accuracy
from spg.model.batch import Collator
from spg.model.pointer import candidate_mask, greedy_parents, pointer_logits
from spg.model.spg_model import SPGModel
from spg.results import markdown, ratio_cell


@dataclass(frozen=True)
class DocumentDEA:
    """One document: DEA over the claims that fit, over all gold claims, and how many claims were cut."""

    id: str
    dea: DEA
    dea_all: DEA
    claims: int  # gold claims in the serialised forest
    kept: int  # of those, complete in the (possibly truncated) target
    predicted: dict[int, int | None]  # pointer parent of every kept claim (claim numbers; None for roots)

    @property
    def truncated(self) -> bool:
        return self.kept < self.claims


@dataclass
class PointerEval:
    """Pooled teacher-forced DEA plus the per-document results and what could not be scored."""

    documents: list[DocumentDEA] = field(default_factory=list)
    no_claims: list[str] = field(default_factory=list)  # ids of records with no claim to feed
    max_length: int = 0
    max_target_tokens: int | None = None

    @property
    def dea(self) -> DEA:
        return sum((d.dea for d in self.documents), DEA())

    @property
    def dea_all(self) -> DEA:
        return sum((d.dea_all for d in self.documents), DEA())

    @property
    def truncated(self) -> list[str]:
        return [d.id for d in self.documents if d.truncated]

    def as_dict(self) -> dict:
        return {
            "dea": self.dea.as_dict(),
            "dea_all_claims": self.dea_all.as_dict(),
            "documents": len(self.documents),
            "truncated": self.truncated,
            "no_claims": self.no_claims,
            "max_length": self.max_length,
            "max_target_tokens": self.max_target_tokens,
        }

    def markdown(self) -> str:
        """Table 2 of the paper (DEA overall and d2–d5, plus d6+) with correct/total counts, then what was cut."""
        buckets = ("all", *DEPTH_BUCKETS)
        lines = markdown(["", "Overall", "d2", "d3", "d4", "d5", "d6+"], [
            [name, *(ratio_cell(*dea.counts[b]) for b in buckets)]
            for name, dea in (("DEA", self.dea), ("DEA, cut claims wrong", self.dea_all))
        ])
        all_claims = self.dea_all
        notes = [
            f"Teacher-forced over {len(self.documents)} documents (max_length {self.max_length}, "
            f"max_target_tokens {self.max_target_tokens}); cells are DEA (correct/total) by gold depth.",
            f"{len(self.truncated)} documents truncated: {all_claims.correct.total - self.dea.correct.total} of "
            f"{all_claims.correct.total} gold dependent claims were beyond the cut (first row leaves them out).",
        ]
        depth_two, scored = self.dea.counts["d2"][1], self.dea.correct.total
        if scored:
            notes.append(f"Reference: always pointing at the tree's root scores {depth_two / scored:.3f} "
                         f"({depth_two}/{scored}, the depth-2 claims).")
        if self.no_claims:
            notes.append(f"{len(self.no_claims)} records without claims skipped: {', '.join(self.no_claims[:20])}"
                         + (" …" if len(self.no_claims) > 20 else ""))
        return "\n".join(lines + [""] + notes) + "\n"


def kept_forest(gold: Forest, order: Sequence[int]) -> Forest:
    """The gold claims ``order`` (a serialisation prefix) with their single parents, depths unchanged."""
    return Forest.from_claims(
        Claim(num, gold.by_num[num].text, () if gold.parent_of(num) is None else (gold.parent_of(num),))
        for num in order
    )


@torch.inference_mode()
def predict_parents(model: SPGModel, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Greedy pointer parent per claim [B, C] (claim index, −1 for roots and padding) from one forward."""
    device = next(model.parameters()).device
    batch = {k: v.to(device) for k, v in batch.items()}
    opens, closes = batch["claim_open"], batch["claim_close"]
    count = opens.shape[-1]
    if count == 0:  # every target was cut before its first claim closed
        return opens.new_full(opens.shape, -1)
    with model.record_hidden() as states:
        # Per example, only the tag positions reach the output embedding, whose input the hook records.
        model.lm(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            use_cache=False,
            logits_to_keep=torch.cat([opens, closes], -1),
        )
    hidden = states[-1]  # [B, 2C, d]: the <dep>/<ind> states, then the closing-tag states
    index = torch.arange(count, device=device).expand_as(opens)
    mask = candidate_mask(batch["claim_tree"], batch["claim_mask"])
    return greedy_parents(pointer_logits(model.pointer, hidden, index, index + count, mask))


def teacher_forced_dea(
    model: SPGModel,
    records: Iterable[Record],
    batch_size: int = 4,
    max_length: int | None = None,
    max_target_tokens: int | None = None,
    progress: bool = True,
) -> PointerEval:
    """Run ``model`` teacher-forced over the gold forests of ``records`` and pool the pointer's DEA.

    ``max_length`` / ``max_target_tokens`` default to the model's training settings (``spg_config.json``).
    """
    from tqdm.auto import tqdm

    config = model.spg_config
    if not config.tagged:
        raise ValueError("this model was trained without structure tags (the Baseline ablation): it has no pointer")
    result = PointerEval(
        max_length=max_length or config.max_length, max_target_tokens=max_target_tokens or config.max_target_tokens
    )
    collate = Collator(model.tokenizer.pad_token_id)
    model.eval()
    total = len(records) if isinstance(records, Sequence) else None
    bar = tqdm(total=total, unit="doc", disable=not progress, desc="teacher-forced DEA")
    for chunk in batches(records, batch_size):
        with_claims = [r for r in chunk if r.claims.roots]
        result.no_claims += [r.id for r in chunk if not r.claims.roots]
        examples = [model.example(r.description, r.claims, result.max_length, result.max_target_tokens) for r in with_claims]
        parents = predict_parents(model, collate(examples)).tolist() if examples else []
        for record, example, row in zip(with_claims, examples, parents, strict=True):
            order = linearize(record.claims).claims
            kept = len(example["claim_open"])
            predicted = {order[i]: (order[p] if p >= 0 else None) for i, p in enumerate(row[:kept])}
            result.documents.append(DocumentDEA(
                record.id,
                dependency_edge_accuracy(kept_forest(record.claims, order[:kept]), predicted),
                dependency_edge_accuracy(record.claims, predicted),
                len(order),
                kept,
                predicted,
            ))
        bar.update(len(chunk))
        bar.set_postfix(dependents=sum(d.dea.correct.total for d in result.documents))
    bar.close()
    return result
