"""``spg serve``'s checks run in worker processes (spg/serve/worker.py, issue 42): a check whose client left is
stopped, one past the time limit is refused in one line, and the server stops under load without a traceback."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest
from conftest import requirement_missing
from test_serve import start_server

try:
    from starlette.testclient import TestClient
except ImportError:
    requirement_missing("the serve extra (starlette)", module_level=True)

from spg.serve.app import Settings, build_app  # noqa: E402
from spg.serve.worker import INLINE, CheckAbandoned, Checks  # noqa: E402


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_check_whose_client_left_has_its_worker_ended():
    checks = Checks(seconds=600)
    left = threading.Event()

    async def is_disconnected() -> bool:
        return left.is_set()

    async def scenario() -> int:
        # a large check that would run 10 minutes
        task = asyncio.create_task(checks.run(is_disconnected, INLINE + 1, time.sleep, 600))
        while not checks.running:
            await asyncio.sleep(0.01)
        (pid,) = checks.running
        assert not _gone(pid)
        left.set()
        with pytest.raises(CheckAbandoned):
            await task
        return pid

    pid = asyncio.run(scenario())
    assert _gone(pid) and not checks.running


def test_a_check_past_the_time_limit_is_refused_in_one_line(tmp_path):
    settings = Settings(max_body=2**20, suppression_file=tmp_path / ".spg-lint.yaml", check_seconds=0.001)
    client = TestClient(build_app(settings, None), base_url="http://127.0.0.1:8000")
    claims = "\n".join(["1. A widget comprising a frame, a lever and a bar."]
                       + [f"{n}. The widget of claim {n - 1}, wherein the lever is {n} mm long." for n in range(2, 1500)])
    assert len(claims) > INLINE  # a check that runs in a worker
    response = client.post("/api/lint", json={"text": claims})
    assert response.status_code == 503
    error = response.json()["error"]
    assert "\n" not in error and "longer than 0.001 s" in error and "--check-seconds" in error


def test_a_check_error_comes_back_as_the_server_answers_it(tmp_path):
    # raised in the worker, answered by the server as before: bad input is a 400 with its one line
    client = TestClient(build_app(Settings(max_body=2**20, suppression_file=tmp_path / "s.yaml"), None),
                        base_url="http://127.0.0.1:8000")
    response = client.post("/api/lint", json={"text": 12})
    assert response.status_code == 400 and response.json()["error"] == "the request's field 'text' must be text, got int"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the server's workers in /proc (Linux)")
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_server_stops_under_load_without_a_traceback(tmp_path, how):
    proc, url = start_server(tmp_path)
    # a 2 MB line: a check of many seconds, running when the server is told to stop
    text = "1. A widget comprising a frame, " + "the lever and a bar, " * 100_000 + "and a seat."
    threading.Thread(target=lambda: httpx.post(f"{url}/api/lint", json={"text": text}, timeout=120),
                     daemon=True).start()
    began = time.monotonic()
    workers: list[int] = []  # the server's grandchildren: the workers its fork server started
    while not workers and time.monotonic() - began < 120:
        time.sleep(0.05)
        workers = [w for c in _children(proc.pid) for w in _children(c)]
    assert workers, "no check started"
    proc.send_signal(how)
    proc.wait(timeout=60)
    stderr = proc.stderr.read()
    assert "Traceback" not in stderr and "ERROR" not in stderr and proc.returncode in (0, 130, -how), stderr
    assert all(_gone(pid) for pid in workers)
