"""Whether an introduction's words support a reference's, word by word: a head with every modifier before it, a
compound spelt open or closed, an element recited again in its bare words."""

from __future__ import annotations

from spg.lint.antecedent.chunks import _Chunk
from spg.lint.antecedent.words import _CONTRAST


def _contradicts(mods: tuple[str, ...], introduced: list[_Chunk]) -> bool:
    """Whether a positional modifier of a reference excludes every introduction of its head in scope."""
    for m in mods:
        group = _CONTRAST.get(m)
        if (
            group is not None
            and not any(m in c.words for c in introduced)
            and any(_CONTRAST.get(w) == group for c in introduced for w in c.words[:-1])
        ):
            return True
    return False


def _ends_with(words: tuple[str, ...], head: str) -> bool:
    """Whether a phrase ends in ``head``, or would have but for a participle after it ("a layer covering …")."""
    last = len(words) - 1
    return any(w == head and (j == last or words[j + 1].endswith(("ing", "ed"))) for j, w in enumerate(words))


def _supports(intro: _Chunk, head: str, mods: tuple[str, ...]) -> bool:
    """Whether ``intro`` holds ``head`` with every modifier in ``mods`` before it ("a first panel element" supports
    "the element", "the panel" and "the first panel element", not "the second panel element")."""
    words = intro.words
    if not mods:
        return head in words or head in intro.parts
    for j in range(len(words) - 1, 0, -1):
        if words[j] == head:
            before = words[:j]
            for m in mods:
                if m not in before:
                    break
            else:
                return True
    return False


def _spells(words: tuple[str, ...], target: str, headed: bool = False) -> bool:
    """Whether consecutive words (or hyphenated parts) of ``words``, ending at the end of a word (with ``headed``,
    of the last word), join to ``target``."""
    if target not in "".join(words).replace("-", ""):  # what they join to is part of that: most are rejected in C
        return False
    parts = [(part, m == len(w.split("-")) - 1) for w in words for m, part in enumerate(w.split("-"))]
    for end in range(len(parts) - 1, -1, -1):
        if not parts[end][1]:
            continue
        if headed and end < len(parts) - 1:
            break
        joined = ""
        for i in range(end, -1, -1):
            joined = parts[i][0] + joined
            if joined == target:
                return True
            if len(joined) >= len(target):
                break
    return False


def _stem(verb: str) -> str:
    """ "determining", "determined" → "determin": what a gerund, a participle and a nominalisation share."""
    return verb[:-3] if verb.endswith("ing") else verb[:-2] if verb.endswith("ed") else verb


# nouns ending as postpositive adjectives do ("a cable", "a turntable")
_ABLE_NOUNS = frozenset({"table", "cable", "variable", "vegetable", "consumable", "disposable", "deliverable",
                         "receivable", "collectible", "syllable", "stable", "turntable", "timetable", "constable"})
# what opens the object of a participle right after it ("a vector encoding a protein", "a liquid filling at least a
# majority of the grooves", "a frame holding each wheel"): a noun is not followed so
_OBJECT_OPENERS = frozenset({"the", "a", "an", "said", "each", "at", "one"})


def _bare(ch: _Chunk, tokens: tuple[str, ...]) -> tuple[str, ...]:
    """An element's words as a drafter recites the element again on its own: without a last postpositive adjective
    ("inner element rotatable" → "inner element"), or without a last "-ing" word that an adverb before it or an
    object after it (:data:`_OBJECT_OPENERS`) shows to be a participle, not a noun ("an articulating joint assembly
    rotatably coupling the first member …" → "articulating joint assembly", "a vector encoding a protein" → "vector";
    "a drive coupling" keeps its noun)."""
    words = ch.words
    if len(words) > 1 and words[-1].endswith(("able", "ible")) and words[-1] not in _ABLE_NOUNS:
        return words[:-1]
    if len(words) > 1 and words[-1].endswith("ing") and (
        ch.adverb_last or (ch.end < len(tokens) and tokens[ch.end].lower() in _OBJECT_OPENERS)
    ):
        return words[:-1]
    return words
