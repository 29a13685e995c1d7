"""Claims as they close: a transformers streamer that hands the claims decoded so far to a callback each time
decoding closes one (``spg serve``'s Draft tab shows them before the document is done).

transformers' ``generate`` calls a streamer's ``put`` with the prompt, then with every token it keeps (several at a
time under prompt lookup); that is the one hook spg's decoding loop needs (``ClaimGenerator.__call__(docs,
streamer=...)``). A claim closes at its closing tag in tagged (SPG) output and at a line break in numbered plain
claims, as spg.generation.whole_claims reads them. The claims passed on carry the parents their text cites; the
pointer's parents are read when decoding is done and are in the generator's result, which replaces them.
"""

from __future__ import annotations

from collections.abc import Callable

from transformers import PreTrainedTokenizerBase
from transformers.generation.streamers import BaseStreamer

from spg.forest import Forest
from spg.generation.whole_claims import whole_plain
from spg.linearize import DEP_END, IND_END, parse_tagged
from spg.model.tokens import structure_token_ids
from spg.parse import parse_claims


class ClaimStreamer(BaseStreamer):
    """Calls ``on_claims(forest)`` with every claim closed so far, once per newly closed claim (or claims, when one
    ``put`` closes several). One row: ``spg serve`` drafts one description at a time."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, tagged: bool, on_claims: Callable[[Forest], None]):
        self.tokenizer, self.tagged, self.on_claims = tokenizer, tagged, on_claims
        self.ids: list[int] = []
        self.closed = 0  # claims already handed on
        self._prompt_seen = False
        if tagged:
            tags = structure_token_ids(tokenizer)
            self._closing = {tags[IND_END], tags[DEP_END]}

    def put(self, value) -> None:
        if not self._prompt_seen:  # generate's first call hands over the prompt
            self._prompt_seen = True
            return
        start = len(self.ids)
        self.ids += value.reshape(-1).tolist()
        forest = self._tagged_forest(start) if self.tagged else self._plain_forest()
        if forest is not None and len(forest.claims) > self.closed:
            self.closed = len(forest.claims)
            self.on_claims(forest)

    def end(self) -> None:
        """Nothing left to hand on: a claim still open when decoding stops was ended by the budget."""

    def _decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=not self.tagged, clean_up_tokenization_spaces=False)

    def _tagged_forest(self, start: int) -> Forest | None:
        closes = [pos for pos in range(start, len(self.ids)) if self.ids[pos] in self._closing]
        if not closes:
            return None
        return parse_tagged(self._decode(self.ids[: closes[-1] + 1])).forest

    def _plain_forest(self) -> Forest:
        whole, _ = whole_plain(self._decode(self.ids), ended_by_budget=True)  # the last line may be unfinished
        return parse_claims(whole)
