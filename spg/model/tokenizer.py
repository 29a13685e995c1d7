"""A model folder's tokenizer, read once per process and without transformers' model registry.

``AutoTokenizer`` finds a tokenizer's class through transformers' registry of every model, which it builds by
reading each model's source files: ~0.5 s idle, 2 s on the loaded 2-core CPU, before any tokenizer is read
(docs/generation.md, "Start-up"). A folder whose ``tokenizer_config.json`` names the ``tokenizers``-library class
(``TokenizersBackend``, alias ``PreTrainedTokenizerFast``: what every spg artefact and ready form saves) is read
with that class directly, the class ``AutoTokenizer`` would pick; any other folder goes through ``AutoTokenizer``.

``spg generate`` counts the prompt frame before loading a model (spg.generation.prompts) and then decodes with the
same tokenizer: :func:`shared_tokenizer` hands both the one instance. It is for reading only; code that adds
tokens or sets a pad token loads its own (spg.model.backbone.load_backbone, SPGModel.from_pretrained).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

TOKENIZERS_CLASSES = ("TokenizersBackend", "PreTrainedTokenizerFast")


def tokenizers_class(folder: Path) -> bool:
    """Whether ``folder``'s tokenizer is the ``tokenizers``-library class, read from its ``tokenizer.json``."""
    config = folder / "tokenizer_config.json"
    named = json.loads(config.read_text(encoding="utf-8")).get("tokenizer_class") if config.is_file() else None
    return named in TOKENIZERS_CLASSES and (folder / "tokenizer.json").is_file()


def load_tokenizer(folder: str | Path) -> PreTrainedTokenizerBase:
    """A fresh tokenizer read from ``folder`` (see the module docstring)."""
    folder = Path(folder)
    if tokenizers_class(folder):
        from transformers.tokenization_utils_tokenizers import PreTrainedTokenizerFast

        return PreTrainedTokenizerFast.from_pretrained(str(folder))
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))


def shared_tokenizer(folder: str | Path) -> PreTrainedTokenizerBase:
    """``folder``'s tokenizer, read at the first call of this process and handed out again after (read-only use;
    a file of the folder changed since is read anew)."""
    folder = Path(folder).resolve()
    stamps = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(folder.iterdir()) if p.is_file())
    return _shared(folder, stamps)


@lru_cache(maxsize=4)
def _shared(folder: Path, stamps: tuple) -> PreTrainedTokenizerBase:
    return load_tokenizer(folder)
