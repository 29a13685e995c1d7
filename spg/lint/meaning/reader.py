"""The restatement reader's decision: boosted trees over :data:`spg.lint.meaning.features.FEATURES`, its
threshold chosen on the dev split, and the ``restatement`` warnings it gives where the word rules gave none."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from spg.forest import Forest
from spg.lint.clauses import Reading
from spg.lint.finding import Finding
from spg.lint.meaning.features import FEATURES, SetFeatures
from spg.lint.meaning.vectors import DIRECTORY, Vectors, read_vectors

# the word rules' findings on a claim already say it repeats: the reader adds no second finding there
REPETITION_RULES = frozenset({"duplicate-claim", "not-further-limiting", "repeated-limitation"})


@dataclass(frozen=True)
class Reader:
    """Gradient-boosted regression trees over the features (scikit-learn's ``HistGradientBoostingClassifier``,
    exported as flat node arrays: a node is a leaf where ``left`` is -1), their bias, and the threshold on the
    probability of a restatement."""

    roots: tuple[int, ...]
    feature: tuple[int, ...]
    split: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]
    bias: float
    threshold: float
    vectors: Vectors

    def probability(self, x: list[float]) -> float:
        return float(self.probabilities(np.array([x]))[0])

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """P(restatement) for each row of ``x``: every tree walked for every row at once, a level at a time."""
        feature, split, child, value, depth = self._walk
        node = np.broadcast_to(np.array(self.roots), (len(x), len(self.roots)))
        # each row's feature f at flat index row * len(FEATURES) + f: a 1-d take, cheaper than x[rows, f]
        at = (np.arange(len(x)) * x.shape[1])[:, None]
        flat = x.ravel()
        for _ in range(depth):
            node = child.take(2 * node + (flat.take(at + feature.take(node)) <= split.take(node)))
        z = self.bias + value[node].sum(1)
        return 1 / (1 + np.exp(-np.clip(z, -50.0, 50.0)))

    @cached_property
    def _walk(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """The node arrays as one walk of the deepest tree's depth reads them: node n's children at ``child[2n]``
        (above its split, or NaN) and ``child[2n + 1]`` (at or below), and a leaf its own child both ways, so a row
        that reached one stays there while deeper trees go on (no test of which rows are done, level by level)."""
        left, right = np.array(self.left), np.array(self.right)
        leaf = left < 0
        n = np.arange(len(left))
        child = np.stack([np.where(leaf, n, right), np.where(leaf, n, left)], 1).ravel()
        depth = {root: 0 for root in self.roots}
        stack = list(self.roots)
        while stack:
            node = stack.pop()
            if not leaf[node]:
                for kid in (self.left[node], self.right[node]):
                    depth[kid] = depth[node] + 1
                    stack.append(kid)
        return (np.where(leaf, 0, self.feature), np.array(self.split), child, np.array(self.value),
                max(depth.values()))

    def scores(self, forest: Forest, readings: dict[int, Reading], above: dict[int, tuple[int, ...]]):
        """(claim number, probability, the claim it reads closest to) for each dependent claim it can read."""
        read = SetFeatures(forest, readings, above, self.vectors)
        got = []
        for index, claim in enumerate(forest.claims):
            if claim.parents and forest.by_num.get(claim.num) is claim:
                x = read.features(index)
                if x is not None:
                    got.append((claim.num, *x))
        if not got:
            return []
        p = self.probabilities(np.array([x for _, x, _ in got]))
        return [(num, float(q), closest) for (num, _, closest), q in zip(got, p)]

    def save(self, directory: Path) -> None:
        self.vectors.save(directory)
        data = {k: getattr(self, k) for k in ("bias", "threshold", "roots", "feature", "split", "left", "right", "value")}
        (directory / "reader.json").write_text(json.dumps({"features": FEATURES, **data}, separators=(",", ":")) + "\n",
                                               encoding="utf-8")


def read_reader(directory: Path) -> Reader:
    data = json.loads((directory / "reader.json").read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{directory}: a reader for other features ({data['features']}); rebuild it")
    nodes = {k: tuple(data[k]) for k in ("roots", "feature", "split", "left", "right", "value")}
    return Reader(**nodes, bias=data["bias"], threshold=data["threshold"], vectors=read_vectors(directory))


@lru_cache(maxsize=1)
def shipped_reader() -> Reader:
    return read_reader(DIRECTORY)


def restatement_findings(forest: Forest, readings: dict[int, Reading], above: dict[int, tuple[int, ...]],
                         found: list[Finding], reader: Reader | None = None) -> list[Finding]:
    """A ``restatement`` warning on each dependent claim the reader scores at or above its threshold and no
    repetition rule has flagged."""
    reader = reader or shipped_reader()
    flagged = {f.claim for f in found if f.rule in REPETITION_RULES}
    out = []
    for num, p, closest in reader.scores(forest, readings, above):
        if p >= reader.threshold and num not in flagged:
            out.append(Finding("restatement", "warning", num,
                               f"reads as saying again, in other words, what claim {closest} or the claims up its "
                               f"chain recite (restatement reader, score {p:.2f})"))
    return out
