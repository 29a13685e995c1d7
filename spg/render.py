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
