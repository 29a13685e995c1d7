"""A decode request: everything one decode of a batch of prompts takes, in one typed object.

:func:`spg.generation.pointer_decode.generate_batch` takes it, and hands it on as it is to the one-call path
(``_generate``) and to the checker's path (``_checked``), whose redraws decode a changed copy of it
(``dataclasses.replace``): a new decoding option is then one field here, not one more parameter on each function.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spg.generation.config import DecodeSettings

if TYPE_CHECKING:  # transformers' model code (modeling_utils: 1-2 s of imports) only where a model is built
    from transformers import PreTrainedModel, PreTrainedTokenizerBase
    from transformers.generation.streamers import BaseStreamer

    from spg.generation.constrained import StructureGrammar
    from spg.generation.redraw import ClaimCheck
    from spg.model.spg_model import SPGModel


@dataclass(frozen=True)
class DecodeRequest:
    """Left-padded batch generation with ``lm``: ``tagged``, the model writes the Eq. 1 sequence, so ``<eot>`` stops a
    row (otherwise plain text); with ``spg`` (whose ``lm`` it is), pointer parents from the same pass; with
    ``grammar``, structure-constrained; with ``row_temperatures``, each row sampled at its own temperature
    (``settings.temperature`` is then not used); with ``check`` (and ``settings.redraws``), the checker in the loop;
    with ``streamer``, tokens handed on as they are kept (one row: spg.generation.streaming; under the checker, the
    row's accepted tokens once it is settled, so that no rejected claim is shown)."""

    lm: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    prompts: Sequence[Sequence[int]]
    settings: DecodeSettings
    tagged: bool
    spg: SPGModel | None = None
    grammar: StructureGrammar | None = None
    row_temperatures: Sequence[float] | None = None
    check: ClaimCheck | None = None
    streamer: BaseStreamer | None = None
