"""Static word vectors distilled from all-MiniLM-L6-v2, read with numpy alone (no torch, no tokenizer library).

Every WordPiece of the encoder's vocabulary was passed alone through it ([CLS] piece [SEP]) and its output state
PCA-reduced (``benchmarks/train_antecedent_judge.py``'s ``piece_vectors``: the model2vec method, whose PyPI package
would bring a second tokenizer path into lint for the same table). A word is the mean of its pieces (BERT's greedy
WordPiece split, :func:`spg.lint.antecedent.judge.wordpieces`), a text the mean of its words, compared by cosine.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import chain
from pathlib import Path

import numpy as np

from spg.lint.antecedent.judge import wordpieces

DIRECTORY = Path(__file__).resolve().parents[2] / "pretrained" / "restatement-reader"


class Vectors:
    """One vector per WordPiece (float16 on disk, float32 here) and the words read so far, each a row of
    :attr:`rows` (its vector) and of :attr:`unit_rows` (of length 1), so that a claim's words are one lookup."""

    def __init__(self, pieces: list[str], table: np.ndarray) -> None:
        self.vocab = {p: i for i, p in enumerate(pieces)}
        self.table = table.astype(np.float32)
        self.unknown = self.vocab["[UNK]"]
        self.words: dict[str, int] = {}
        self.rows = np.zeros((1024, self.dims), np.float32)
        self.unit_rows = np.zeros((1024, self.dims), np.float32)

    @property
    def dims(self) -> int:
        return self.table.shape[1]

    def ids(self, words) -> list[int]:
        """The row of each word, read (the mean of its pieces) where first met."""
        out = list(map(self.words.get, words))  # most words are met again: one lookup each
        if None not in out:
            return out
        new = list(dict.fromkeys(w for w, row in zip(words, out) if row is None))  # numbered in the order met
        start = len(self.words)
        while start + len(new) > len(self.rows):  # full: twice the room
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
            self.unit_rows = np.concatenate([self.unit_rows, np.zeros_like(self.unit_rows)])
        # an empty word (never a content word) reads as unknown, not as the mean of nothing
        pieces = [wordpieces(word, self.vocab, self.unknown) or [self.unknown] for word in new]
        counts = np.fromiter(map(len, pieces), np.intp, len(pieces))
        # each word's mean of its pieces, summed in one call (row by row, as mean(0) sums them) and divided in float32
        means = np.add.reduceat(self.table[np.fromiter(chain.from_iterable(pieces), np.intp, int(counts.sum()))],
                                np.cumsum(counts) - counts)
        means /= counts.astype(np.float32)[:, None]
        # each length as ``v @ v`` gives it (BLAS's dot, to the last bit), all in one call: a stack of 1 x 1 products
        lengths = np.sqrt(np.matmul(means[:, None, :], means[:, :, None]).ravel())
        end = start + len(new)
        self.rows[start:end] = means
        self.unit_rows[start:end] = means / np.where(lengths > 0, lengths, 1)[:, None]
        self.words.update(zip(new, range(start, end)))
        return list(map(self.words.get, words))

    def units(self, groups: list[list[int]]) -> np.ndarray:
        """The mean vector of each group of word rows, of length 1 (zeros for an empty group), one row per group."""
        counts = np.fromiter(map(len, groups), np.intp, len(groups))
        sums = np.zeros((len(groups), self.dims), np.float32)
        total = int(counts.sum())
        if total:
            # numpy reads a list of indices number by number: an array of them, made in one call, is taken faster
            flat = np.fromiter(chain.from_iterable(groups), np.intp, total)
            nonempty = counts > 0
            sums[nonempty] = np.add.reduceat(self.rows[flat], (np.cumsum(counts) - counts)[nonempty])
        n = np.sqrt((sums * sums).sum(1, keepdims=True))
        return sums / np.where(n > 0, n, 1)

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
