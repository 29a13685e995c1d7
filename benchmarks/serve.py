"""``spg serve``'s three time goals (issue 33; docs/serve.md), measured in one run:

* **start-up**: from launching ``spg serve --port 0`` until its page answers (the model is not loaded; goal < 3 s);
  min-max over ``--repeat`` starts;
* **lint round trip**: a 20-claim check from the shared USPTO set posted to ``/api/lint`` until its report body
  is back, over one kept-alive connection (median and max of ``--requests``; goal < 200 ms); the same again while a
  draft is decoding, since checks never wait behind one; and ``--concurrent`` such checks sent at once while a
  draft decodes, each in a worker process of its own (spg/serve/worker.py; issue 42's goal: under 2 s each);
* **first drafted claim**: from posting a description to the Draft tab's API on a freshly started server (the
  model loads then) until the first ``claim`` event: sent at once, and sent ``--paste-seconds`` after the page
  opened the Draft tab (which has the server import torch and transformers meanwhile: spg.serve.drafter); beside
  the wall time of the main job, ``spg generate --max-new-tokens 256`` on the same description, which shows its
  claims when it ends (goal: the first drafted claim is there before that).

    .venv/bin/python benchmarks/serve.py [--repeat 3] [--requests 50]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

from common import REPO, shared_records

ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def start(*args: str) -> tuple[subprocess.Popen, str, float]:
    """A server on a free port; returns it, its address and the seconds until its page answered."""
    import httpx

    began = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "spg.cli", "serve", "--port", "0", *args], cwd=REPO, env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    if not line.startswith("spg serve: http://"):
        sys.exit(f"error: spg serve did not start: {line}{proc.stderr.read()}")
    url = line.split()[2].rstrip("/")
    while True:
        try:
            if httpx.get(url + "/", timeout=5).status_code == 200:
                return proc, url, time.perf_counter() - began
        except httpx.TransportError:
            time.sleep(0.01)


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=30)


def twenty_claims() -> str:
    """The first 20 claims of the first shared USPTO document that has 20 or more."""
    from spg.render import render

    record = next(r for r in shared_records() if len(r.claims) >= 20)
    text = render(record.claims)
    return "\n".join(text.splitlines()[:20])


def round_trips(url: str, text: str, n: int) -> list[float]:
    import httpx

    times = []
    with httpx.Client(timeout=30) as client:
        client.post(url + "/api/lint", json={"text": text})  # a first request opens the connection
        for _ in range(n):
            began = time.perf_counter()
            reply = client.post(url + "/api/lint", json={"text": text})
            times.append(time.perf_counter() - began)
            assert reply.status_code == 200 and reply.json()["claims"] == 20, reply.text[:300]
    return times


def at_once(url: str, text: str, n: int) -> list[float]:
    """``n`` lint round trips sent together, each on its own connection; the seconds of each."""
    import httpx

    ready, times = threading.Barrier(n), [0.0] * n

    def one(k: int) -> None:
        with httpx.Client(timeout=120) as client:
            ready.wait()
            began = time.perf_counter()
            reply = client.post(url + "/api/lint", json={"text": text})
            times[k] = time.perf_counter() - began
            assert reply.status_code == 200 and reply.json()["claims"] == 20, reply.text[:300]

    threads = [threading.Thread(target=one, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


def first_claim(url: str, description: str, events: list[tuple[float, str]]) -> None:
    """Posts a draft and records (seconds since posting, event name) for each event until it is done."""
    import httpx

    began = time.perf_counter()
    with httpx.stream("POST", url + "/api/draft", json={"description": description}, timeout=600) as reply:
        for line in reply.iter_lines():
            if line.startswith("event: "):
                events.append((time.perf_counter() - began, line[7:]))
                if line[7:] in ("done", "error"):
                    return


def draft(url: str, description: str, text: str, checks: int, concurrent: int = 0) -> float | None:
    """A draft on a server that has not drafted yet (the model loads for it), with ``checks`` lint round trips sent
    while it decodes, then ``concurrent`` at once; prints its events and returns the seconds until its first claim."""
    events: list[tuple[float, str]] = []
    drafting = threading.Thread(target=first_claim, args=(url, description, events))
    drafting.start()
    while checks and not any(name == "started" for _, name in events) and drafting.is_alive():
        time.sleep(0.05)
    busy = round_trips(url, text, checks) if checks and drafting.is_alive() else []
    crowd = at_once(url, text, concurrent) if concurrent and drafting.is_alive() else []
    drafting.join()
    if busy:
        print(f"  while a draft decodes: median {statistics.median(busy) * 1000:.0f} ms, max "
              f"{max(busy) * 1000:.0f} ms over {len(busy)} requests")
    if crowd:
        print(f"  {len(crowd)} checks sent at once while a draft decodes: median {statistics.median(crowd):.2f} s, "
              f"max {max(crowd):.2f} s (goal < 2 s each)")
    print("  draft events (s since posting): " + ", ".join(f"{name} {t:.2f}" for t, name in events))
    first = next((t for t, name in events if name == "claim"), None)
    print(f"  first drafted claim after {first:.2f} s" if first is not None else "  no claim was drafted")
    return first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="server starts to time")
    parser.add_argument("--requests", type=int, default=50, help="lint round trips to time")
    parser.add_argument("--concurrent", type=int, default=50, help="lint requests sent at once during a draft")
    parser.add_argument("--no-draft", action="store_true",
                        help="only start-up and the checks (the --concurrent ones without a draft): no model is loaded")
    parser.add_argument("--paste-seconds", type=float, default=20,
                        help="seconds between opening the Draft tab and sending the description (the second draft)")
    args = parser.parse_args()
    from spg.cli.generate import example_path

    description = example_path().read_text()
    text = twenty_claims()

    starts = []
    for _ in range(args.repeat):
        proc, url, seconds = start()
        starts.append(seconds)
        stop(proc)
    print(f"start-up until the page answers: {min(starts):.2f}-{max(starts):.2f} s over {args.repeat} starts "
          "(goal < 3 s)")

    proc, url, _ = start("--max-new-tokens", "256")
    try:
        idle = round_trips(url, text, args.requests)
        print(f"20-claim lint round trip: median {statistics.median(idle) * 1000:.0f} ms, max {max(idle) * 1000:.0f} ms "
              f"over {args.requests} requests (goal < 200 ms)")
        if args.no_draft:
            crowd = at_once(url, text, args.concurrent)
            print(f"{len(crowd)} checks sent at once, no draft: median {statistics.median(crowd):.2f} s, max "
                  f"{max(crowd):.2f} s (goal < 2 s each)")
            return
        first = draft(url, description, text, min(args.requests, 20), args.concurrent)
    finally:
        stop(proc)
    proc, url, _ = start("--max-new-tokens", "256")
    try:
        import httpx

        httpx.post(url + "/api/warm", timeout=30)  # what the page does when the Draft tab opens
        time.sleep(args.paste_seconds)
        print(f"the Draft tab opened {args.paste_seconds:.0f} s before the description was sent:")
        warm_first = draft(url, description, text, 0)
    finally:
        stop(proc)

    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "spg.cli", "generate", "--max-new-tokens", "256", "--no-progress"],
                          cwd=REPO, env=ENV, capture_output=True, text=True)
    main_job = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"error: spg generate failed: {done.stderr.strip()[-500:]}")
    print(f"main job (spg generate --max-new-tokens 256, its claims shown at the end): {main_job:.2f} s wall")
    for label, seconds in (("sent at once", first), ("Draft tab opened first", warm_first)):
        if seconds is not None:
            print(f"first drafted claim ({label}) / main job's first claim: {seconds / main_job:.2f}")
    print(json.dumps({"startup_s": starts, "lint_ms_median": statistics.median(idle) * 1000,
                      "first_claim_s": first, "warm_first_claim_s": warm_first, "main_job_s": main_job}))


if __name__ == "__main__":
    main()
