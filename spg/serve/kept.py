"""Word documents the page opened, kept a while so that their commented copy can be asked for by a token.

The page once sent the document back in base64 inside the JSON request: a third larger, so a document that opened
(the request limit, ``--max-upload-mb``) could not come back (issue 42). Kept here instead, the copy is asked for
with a token the upload answered. What is kept is bounded: the latest ``count`` documents, ``max_bytes`` together,
each for ``seconds``; a request after that, or after a restart, is told to open the document again. Only the event
loop calls this (the upload and the commented copy read and keep it between awaits), so there is no lock.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable


class KeptDocuments:
    def __init__(self, max_bytes: int, count: int = 4, seconds: float = 1800.0,
                 clock: Callable[[], float] = time.monotonic):
        self.max_bytes, self.count, self.seconds, self.clock = max_bytes, count, seconds, clock
        self.documents: OrderedDict[str, tuple[float, str, bytes]] = OrderedDict()  # token → (kept at, name, bytes)

    def keep(self, name: str, data: bytes) -> str:
        """A new token for ``data``; the oldest documents go when there are too many or they weigh too much."""
        token = secrets.token_urlsafe(18)
        self.documents[token] = (self.clock(), name, data)
        self._expire()
        while len(self.documents) > self.count or sum(len(d) for _, _, d in self.documents.values()) > self.max_bytes:
            self.documents.popitem(last=False)
        return token

    def get(self, token: str) -> tuple[str, bytes] | None:
        """(name, bytes) of a document still kept, None for one that is not (never kept, expired, pushed out)."""
        self._expire()
        kept = self.documents.get(token)
        return None if kept is None else kept[1:]

    def _expire(self) -> None:
        while self.documents and self.clock() - next(iter(self.documents.values()))[0] > self.seconds:
            self.documents.popitem(last=False)
