"""``spg serve``'s checks, each in a worker process of its own with a time limit (issue 42).

A check run on the server's thread pool could not be stopped: a 1 MB paste kept a thread (and a core) busy long after
its client left, and stopping the server then waited on it and printed the thread's traceback. Here each check runs
in a process forked from a small fork server that has imported the checker (a few milliseconds to start, no import
per check); the request waits for it without holding a thread, and the process is killed when the client leaves,
when the time limit passes (the client gets one clear 503 line) or when the server stops. At most one check per core
runs at once; the others wait their turn, and leave the queue when their client leaves. A check of at most
:data:`INLINE` characters (what a page sends while a drafter types) runs on a thread as before: its work is bounded
by its size (linear, docs/lint.md "Size classes"), and a worker would cost it more than the check itself.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

# what a worker runs: imported once by the fork server, so that a check starts without importing them
PRELOAD = ["spg.lint", "spg.lint.html", "spg.lint.source", "spg.serve.app"]
POLL = 0.1  # seconds between looks at whether the client is still there
INLINE = 64_000  # characters: a check this small runs on a thread (well under a second on a busy 2-core machine)


class CheckAbandoned(Exception):
    """The client left, or the server is stopping, before its check ended; its worker is gone."""


class CheckTooLong(Exception):
    """A check ran past the time limit; its worker is gone."""


def _work(conn: Connection, fn: Callable[..., Any], args: tuple) -> None:
    # Ctrl-C reaches every process of the terminal's group: the server stops its workers itself, without their
    # tracebacks
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        answer = ("ok", fn(*args))
    except BaseException as err:  # noqa: BLE001 - sent to the server, which answers it as it answers its own
        answer = ("raised", err)
    try:
        conn.send(answer)
    except Exception:  # noqa: BLE001 - what does not pickle is sent as text
        conn.send(("raised", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))
    conn.close()


class Checks:
    """Runs a function of a check in a worker process; see the module docstring. ``seconds``: the time limit of one
    check (from when it starts, not while it waits its turn); ``workers``: how many run at once."""

    def __init__(self, seconds: float, workers: int | None = None) -> None:
        self.seconds = seconds
        self.workers = workers or os.cpu_count() or 1
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(PRELOAD)
        self._turns: asyncio.Semaphore | None = None  # made in the server's event loop, at the first check
        self.running: dict[int, multiprocessing.process.BaseProcess] = {}  # pid → worker
        # whether the server is stopping (spg.cli.serve sets it): a check then ends at once, so that the server
        # stops within its grace period instead of cancelling requests (a traceback each)
        self.stopping: Callable[[], bool] = lambda: False

    def warm_up(self) -> None:
        """Start the fork server now (it imports the checker), not at the first large check: while a worker starts
        the server cannot tell it to stop."""
        from multiprocessing import forkserver

        forkserver.ensure_running()

    async def run(self, is_disconnected: Callable[[], Any], size: int, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker (on a thread if ``size``, the characters checked, is at most :data:`INLINE`): its
        value, or what it raised. ``is_disconnected``: an async callable (Starlette's ``request.is_disconnected``).
        Raises :class:`CheckAbandoned` or :class:`CheckTooLong`."""
        if size <= INLINE:
            return await asyncio.to_thread(fn, *args)
        if self._turns is None:
            self._turns = asyncio.Semaphore(self.workers)
        while True:  # a turn, unless the client leaves first
            try:
                await asyncio.wait_for(self._turns.acquire(), POLL)
                break
            except asyncio.TimeoutError:
                if self.stopping() or await is_disconnected():
                    raise CheckAbandoned from None
        try:
            return await self._in_worker(is_disconnected, fn, args)
        finally:
            self._turns.release()

    async def _in_worker(self, is_disconnected: Callable[[], Any], fn: Callable[..., Any], args: tuple) -> Any:
        loop = asyncio.get_running_loop()
        receiving, sending = self.context.Pipe(duplex=False)
        worker = self.context.Process(target=_work, args=(sending, fn, args), daemon=True)
        ready = asyncio.Event()
        try:
            await asyncio.to_thread(worker.start)  # a few ms, but a socket round trip with the fork server
            sending.close()
            self.running[worker.pid] = worker
            loop.add_reader(receiving.fileno(), ready.set)
            deadline = time.monotonic() + self.seconds
            while not ready.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CheckTooLong
                try:
                    await asyncio.wait_for(ready.wait(), min(POLL, left))
                except asyncio.TimeoutError:
                    if self.stopping() or await is_disconnected():
                        raise CheckAbandoned from None
            loop.remove_reader(receiving.fileno())
            try:
                kind, value = await asyncio.to_thread(receiving.recv)
            except EOFError:  # killed from outside (out of memory): no answer came
                raise RuntimeError(f"the check's worker ended without an answer (exit {worker.exitcode})") from None
        finally:
            if worker.pid is not None:
                loop.remove_reader(receiving.fileno())
                self._stop(worker)
            receiving.close()
        if kind == "raised":
            raise value
        return value

    def _stop(self, worker: multiprocessing.process.BaseProcess) -> None:
        """End a worker (at once, if it is still checking) and reap it."""
        if worker.is_alive():
            worker.kill()
        worker.join()
        self.running.pop(worker.pid, None)
