"""A forest back to numbered claim text, as a patent prints it."""

from __future__ import annotations

from spg.forest import Forest
from spg.linearize import canonical


def render(forest: Forest) -> str:
    """Numbered claim text ("1. A method ... 2. The method of claim 1, ...") in Eq. 1 order, one per line.

    Claims are numbered in serialisation order and every back-reference names the forest's
    parents under that numbering, so parsing the result gives the same forest back.
    """
    return "\n".join(f"{c.num}. {c.text}" for c in canonical(forest).claims)


def numbered(forest: Forest) -> str:
    """The claims one per line as numbered, in their own order ("1. A method ...\\n2. The method of claim 1, ...").

    Unlike :func:`render`, nothing is renumbered, reordered or rewritten: a drafted claim set reads, downloads and
    prints as the same claims its forest holds (``spg generate``'s ``claims_text``).
    """
    return "\n".join(f"{c.num}. {c.text}" for c in forest.claims)
