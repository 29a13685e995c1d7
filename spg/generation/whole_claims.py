"""Only whole claims: a claim that the token budget ended is never printed or written as a claim.

A row that reaches ``max_new_tokens`` before its model stops has a last claim the budget, not the model, ended:
under structure-constrained decoding the grammar closes it and writes ``<eot>`` in the budget's last two steps
(:mod:`spg.generation.constrained`), so "The step stool of claim" would become claim 7; without the grammar the
claim is simply left open. :func:`whole_tagged` and :func:`whole_plain` split such a row at its last whole claim:
what comes before is the output (``raw``, the forest, the pointer's parents), what comes after is kept apart
(``cut_by_budget`` in spg generate's results). A row that stopped within the budget is whole as it is.

Where a claim ends: at its closing tag for tagged (SPG) sequences, at a line break for numbered plain claims (the
zero-shot prompt asks for one claim per line, and the boundary temperature and loop control read plain claims the
same way). A claim the grammar closed at the last step the budget allowed is dropped even if the model might have
closed it there itself: once text is masked the two cannot be told apart.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def whole_tagged(
    ids: Sequence[int], budget: int, closing: Collection[int], eot: int, constrained: bool
) -> tuple[list[int], list[int]]:
    """``ids`` (a generated tagged row, cut at its ``<eot>``) as (whole claims, the part the budget cut).

    A constrained row keeps its ``<eot>`` after the last whole claim, so it stays a valid forest (as a training
    target cut at its token cap keeps its whole claims and its end marker: spg.model.batch). An unconstrained row
    that the budget ended never had an ``<eot>`` and gets none.
    """
    ids = list(ids)
    if len(ids) < budget:
        return ids, []
    if ids[-1] == eot:
        if not constrained:
            return ids, []  # the model ended the forest at the budget's last step
        # The grammar closed the last claim at the budget's second-to-last step: the whole claims end before it.
        last = _last_closing(ids[:-2], closing)
        return ids[: last + 1] + [eot], ids[last + 1 : -1]
    last = _last_closing(ids, closing)
    return ids[: last + 1], ids[last + 1 :]


def _last_closing(ids: Sequence[int], closing: Collection[int]) -> int:
    """Position of the last closing tag in ``ids``; -1 when there is none (no claim is whole)."""
    return max((pos for pos, tok in enumerate(ids) if tok in closing), default=-1)


def whole_plain(text: str, ended_by_budget: bool) -> tuple[str, str]:
    """Plain numbered claims as (whole claims, the part the budget cut): the cut claim is the unfinished last line."""
    if not ended_by_budget:
        return text, ""
    end = text.rfind("\n") + 1
    return text[:end], text[end:]
