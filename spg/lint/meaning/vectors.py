"""Static word vectors distilled from all-MiniLM-L6-v2, read with numpy alone (no torch, no tokenizer library).

Every WordPiece of the encoder's vocabulary was passed alone through it ([CLS] piece [SEP]) and its output state
PCA-reduced (``benchmarks/train_antecedent_judge.py``'s ``piece_vectors``: the model2vec method, whose PyPI package
would bring a second tokenizer path into lint for the same table). A word is the mean of its pieces (BERT's greedy
WordPiece split, :func:`spg.lint.antecedent.judge.wordpieces`), a text the mean of its words, compared by cosine.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from spg.lint.antecedent.judge import wordpieces

DIRECTORY = Path(__file__).resolve().parents[2] / "pretrained" / "restatement-reader"


class Vectors:
    """One vector per WordPiece (float16 on disk, float32 here) and the words read so far."""

    def __init__(self, pieces: list[str], table: np.ndarray) -> None:
        self.vocab = {p: i for i, p in enumerate(pieces)}
        self.table = table.astype(np.float32)
        self.unknown = self.vocab["[UNK]"]
        self.words: dict[str, np.ndarray] = {}

    @property
    def dims(self) -> int:
        return self.table.shape[1]

    def word(self, word: str) -> np.ndarray:
        got = self.words.get(word)
        if got is None:
            got = self.words[word] = self.table[wordpieces(word, self.vocab, self.unknown)].mean(0)
        return got

    def unit(self, words) -> np.ndarray:
        """The mean of the words' vectors, of length 1 (zeros for no word)."""
        if not words:
            return np.zeros(self.dims, np.float32)
        v = np.add.reduce([self.word(w) for w in words]) if len(words) > 1 else self.word(words[0])
        n = float(np.sqrt(v @ v))
        return v / n if n else v

    def units(self, words) -> np.ndarray:
        """Each word's vector of length 1, one row per word."""
        m = np.stack([self.word(w) for w in words]) if words else np.zeros((0, self.dims), np.float32)
        n = np.sqrt((m * m).sum(1, keepdims=True))
        return m / np.where(n > 0, n, 1)

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / "vectors.npy", self.table.astype(np.float16))
        pieces = sorted(self.vocab, key=self.vocab.get)
        (directory / "pieces.txt").write_text("\n".join(pieces) + "\n", encoding="utf-8")


def read_vectors(directory: Path) -> Vectors:
    pieces = (directory / "pieces.txt").read_text(encoding="utf-8").split("\n")[:-1]
    table = np.load(directory / "vectors.npy")
    if table.shape[0] != len(pieces):
        raise ValueError(f"{directory}: {table.shape[0]} vectors for {len(pieces)} pieces; rebuild it")
    return Vectors(pieces, table)


@lru_cache(maxsize=1)
def shipped_vectors() -> Vectors:
    return read_vectors(DIRECTORY)
