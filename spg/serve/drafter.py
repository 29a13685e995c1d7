"""The Draft tab's model: one drafting job at a time, in a queue, on a thread of its own.

The model is loaded by the first job (``spg serve`` answers in a second and pays the load only when a drafter asks),
then kept. Jobs run one after the other on a single worker thread: two drafts at once would only share the two CPU
cores and both finish later. Lint requests never come here (spg.serve.app runs them on the server's own threads),
so a draft never makes a check wait. A job reports what happens as events, ``(name, data)`` pairs handed to the
job's callback from the worker thread:

* ``queued`` ``{ahead}``: how many drafts are before this one, the running one included (sent at once, and again
  each time one of them starts or leaves the queue);
* ``loading`` ``{model}``: the first job loads the model; ``started`` ``{model, mode}``: decoding begins;
* ``claim`` ``{claims, html, seconds}``: a claim closed; the forest so far, linted against the description, as the
  lint report's body; ``seconds`` since the job started decoding;
* ``done`` ``{claims_text, forest, html, new_tokens, seconds, first_claim_seconds, cut_by_budget}``: the
  generator's result, whose parents are the pointer's and whose claims cite them (``claims_text`` is the same claim
  set as ``forest``: docs/generation.md, "One claim set per draft"); the ``claim`` events carry the claims as the
  model writes them, with the parents their text cites;
* ``error`` ``{message}``: one line; the server goes on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from spg.config import ConfigError, Invalid
from spg.errors import InputError
from spg.forest import Claim, Forest
from spg.lint import lint
from spg.lint.html import render_body

Event = Callable[[str, dict[str, Any]], None]


class Cancelled(Exception):
    """The drafter left (closed the page or the stream): decoding stops at its next token."""


@dataclass(eq=False)  # each job is itself: two drafts of one description are two places in the queue
class Job:
    description: str
    name: str
    emit: Event
    cancelled: threading.Event = field(default_factory=threading.Event)


def load_for(config):
    """The generator ``spg generate`` would load for ``config`` (one document per batch)."""
    from spg.generation.generator import load_generator

    try:
        config.check_available()  # what must exist (the model, its tokenizer's room for a prompt): checked now
        return load_generator(config.model, config.decode, zero_shot=config.zero_shot, constrained=config.constrained,
                              max_prompt_tokens=config.max_prompt_tokens, dtype=config.dtype, device=config.device)
    except Invalid as err:
        raise InputError(f"--model {config.model}: {err}") from None
    except (OSError, ValueError) as err:
        raise InputError(f"--model {config.model}: cannot load it ({' '.join(str(err).split())})") from None


class Drafter:
    """Runs drafting jobs one at a time. ``load`` builds the generator from ``config`` (tests pass a tiny one);
    at most ``max_waiting`` jobs wait behind the running one (a further one is refused: :meth:`submit`)."""

    def __init__(self, config, load: Callable[[Any], Any] = load_for, max_waiting: int = 8):
        self.config, self._load, self.max_waiting = config, load, max_waiting
        self._generator = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spg-draft")
        self._lock = threading.Lock()
        self._waiting: list[Job] = []  # in the order they run
        self._warming = False
        self._running: Job | None = None

    @property
    def model(self) -> str:
        return str(self.config.model)

    def submit(self, job: Job) -> None:
        """Queue ``job``; its ``queued`` event says how many are before it. A full queue is an InputError."""
        with self._lock:
            if len(self._waiting) >= self.max_waiting:
                raise InputError(f"{len(self._waiting)} drafts are waiting already; try again when one is done")
            self._waiting.append(job)
            ahead = len(self._waiting) - 1 + (self._running is not None)
        job.emit("queued", {"ahead": ahead})
        self._worker.submit(self._run, job)

    def leave(self, job: Job) -> None:
        """The drafter left ``job`` (closed the page or the stream): it stops at its next token, or never starts, and
        the drafts behind it move up."""
        job.cancelled.set()
        with self._lock:
            if job not in self._waiting:
                return
            self._waiting.remove(job)
        self._moved()

    def _moved(self) -> None:
        """The queue moved: each waiting job hears how many are now before it."""
        with self._lock:
            running = self._running is not None
            places = [(job, n + running) for n, job in enumerate(self._waiting)]
        for job, ahead in places:
            job.emit("queued", {"ahead": ahead})

    def warm_up(self) -> None:
        """Import the libraries drafting needs (torch, transformers: seconds) on the drafter's thread, once; not the
        model. The page asks for it when the Draft tab opens, so the first draft waits for the model's load alone;
        not at start-up, because an import holds the interpreter for up to a second at a time and a check sent
        meanwhile would wait as long (measured: 0.9 s)."""
        with self._lock:
            if self._warming:
                return
            self._warming = True
        self._worker.submit(_import_generation)

    def close(self) -> None:
        """Drop the waiting jobs and stop the running one at its next token (the server is stopping)."""
        self._worker.shutdown(wait=False, cancel_futures=True)
        running = self._running
        if running is not None:
            running.cancelled.set()

    def _run(self, job: Job) -> None:
        with self._lock:
            if job not in self._waiting:  # it left the queue (leave)
                return
            self._waiting.remove(job)
            self._running = job
        self._moved()
        try:
            self._draft(job)
        except Cancelled:
            pass
        except (InputError, ConfigError) as err:
            job.emit("error", {"message": " ".join(str(err).split())})
        except Exception as err:  # noqa: BLE001 - a bug ends this job, never the server
            job.emit("error", {"message": f"internal error ({type(err).__name__}: {' '.join(str(err).split())}); "
                                          "please report it"})
        finally:
            self._running = None

    def _draft(self, job: Job) -> None:
        import torch

        from spg.generation.runner import Document
        from spg.generation.streaming import ClaimStreamer

        if self._generator is None:
            job.emit("loading", {"model": self.model})
            self._generator = self._load(self.config)
        generator = self._generator
        restatement = self.config.decode.restatement  # as the checker in the loop reads the draft's claims
        job.emit("started", {"model": self.model, "mode": generator.mode})
        start = time.perf_counter()
        first: list[float] = []

        def on_claims(forest: Forest) -> None:
            seconds = time.perf_counter() - start
            first[:1] = first[:1] or [seconds]
            job.emit("claim", {"claims": len(forest.claims), "seconds": round(seconds, 3),
                               "html": render_body(lint(forest, job.description, restatement=restatement), job.name)})

        class Streamer(ClaimStreamer):
            def put(self, value) -> None:
                if job.cancelled.is_set():
                    raise Cancelled  # out of generate at the next token: the drafter is gone
                super().put(value)

        streamer = Streamer(generator.tokenizer, generator.mode == "spg", on_claims)
        torch.manual_seed(self.config.seed)  # as spg generate: the same description drafts the same claims
        result = generator([Document(job.name, job.description)], streamer=streamer)[0]
        forest = Forest.from_claims(_claims(result["forest"]))
        job.emit("done", {
            "claims_text": result["claims_text"], "forest": result["forest"], "new_tokens": result["new_tokens"],
            "cut_by_budget": result["cut_by_budget"], "seconds": round(time.perf_counter() - start, 3),
            "first_claim_seconds": round(first[0], 3) if first else None,
            "html": render_body(lint(forest, job.description, restatement=restatement), job.name),
        })


def _import_generation() -> None:
    import spg.generation.generator  # noqa: F401  (torch, transformers, peft)
    import spg.generation.streaming  # noqa: F401


def _claims(rows: list[dict]) -> list[Claim]:
    return [Claim(c["num"], c["text"], tuple(c["parents"])) for c in rows]
