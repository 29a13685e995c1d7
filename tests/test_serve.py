"""``spg serve`` over HTTP, no browser: the Check API, hostile requests against a real server process (each answered
with one clear 4xx line, and the server answers the next request), the suppression file, and the Draft stream's
plumbing with a scripted generator (the real model drafts in tests/test_serve_browser.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import requirement_missing

try:
    import httpx
    from starlette.testclient import TestClient
except ImportError:  # the serve and dev extras (scripts/setup.sh installs both): a failure under scripts/test.sh
    requirement_missing("the serve extra (starlette, uvicorn) or httpx", module_level=True)
import torch  # noqa: E402
from tiny import tiny_tokenizer  # noqa: E402

from spg.forest import Forest  # noqa: E402
from spg.generation.config import DecodeSettings, GenerateConfig  # noqa: E402
from spg.generation.generator import forest_json  # noqa: E402
from spg.generation.streaming import ClaimStreamer  # noqa: E402
from spg.parse import parse_claims  # noqa: E402
from spg.render import render  # noqa: E402
from spg.serve.app import CSP, Settings, build_app  # noqa: E402
from spg.serve.drafter import Drafter, Job  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CLAIMS = ("1. A chair comprising a seat and a back.\n"
          "2. The chair of claim 1, wherein the lever is red.\n"
          "3. The chair of claims 1 and 2, wherein the seat is soft.\n")


def twenty_claims() -> str:
    lines = ["1. A folding step stool comprising a frame, a step pivotally attached to the frame, and a lock."]
    lines += [f"{n}. The step stool of claim {n - 1}, wherein the lever {n} is attached to the step." for n in range(2, 21)]
    return "\n".join(lines)


# ---------------------------------------------------------------- a real server process


def start_server(cwd: Path, *args: str) -> tuple[subprocess.Popen, str]:
    """``spg serve --port 0`` in ``cwd``; returns the process and its address once the port answers."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "spg.cli", "serve", "--port", "0", *args], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()  # "spg serve: http://127.0.0.1:PORT/ (...)", printed once the port is taken
    if not line.startswith("spg serve: http://"):
        proc.kill()
        raise AssertionError(f"spg serve did not start: {line}{proc.stderr.read()}")
    return proc, line.split()[2].rstrip("/")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    proc, url = start_server(folder)
    yield url
    stop(proc)


def answers(url: str) -> None:
    """The server still works: a lint request right after gets its findings."""
    response = httpx.post(f"{url}/api/lint", json={"text": CLAIMS}, timeout=30)
    assert response.status_code == 200 and response.json()["claims"] == 3


def test_the_page_and_its_files_come_from_the_package_under_the_policy(server):
    page = httpx.get(f"{server}/", timeout=30)
    assert page.status_code == 200 and page.headers["content-security-policy"] == CSP
    assert "default-src 'none'" in CSP and "script-src 'self'" in CSP
    for src in ("/static/app.js", "/static/app.css", "/static/report.css"):
        assert src in page.text and httpx.get(server + src, timeout=30).status_code == 200
    assert "http://" not in page.text and "https://" not in page.text  # nothing from elsewhere


def test_pasted_claims_come_back_as_the_lint_report_body(server):
    response = httpx.post(f"{server}/api/lint", json={"text": CLAIMS, "name": "chair.txt"}, timeout=30)
    data = response.json()
    assert response.status_code == 200 and data["claims"] == 3
    rules = {f["rule"] for f in data["findings"]}
    assert "antecedent" in rules  # "the lever" has no antecedent
    assert '<div class="claim' in data["html"] and 'data-rule="antecedent"' in data["html"]
    assert data["summary"]["warning"] >= 1


def test_a_description_adds_the_support_check(server):
    plain = httpx.post(f"{server}/api/lint", json={"text": CLAIMS}, timeout=30).json()
    checked = httpx.post(f"{server}/api/lint", json={"text": CLAIMS, "description": "A stool with a leg."},
                         timeout=30).json()
    assert "description support: checked" in checked["html"] and "no description given" in plain["html"]


def test_reports_download_as_the_command_line_writes_them(server):
    html = httpx.post(f"{server}/api/report.html", json={"text": CLAIMS, "name": "chair.txt"}, timeout=30)
    assert html.status_code == 200 and 'filename="chair.lint.html"' in html.headers["content-disposition"]
    assert html.text.startswith("<!DOCTYPE html>") and "<script" not in html.text
    report = httpx.post(f"{server}/api/report.json", json={"text": CLAIMS}, timeout=30).json()
    assert len(report["claims"]) == 3 and report["summary"]["warning"] >= 1


@pytest.mark.parametrize("request_kwargs, status, words", [
    ({"content": b'{"text": "1. A chair \xff\xfe."}', "headers": {"content-type": "application/json"}}, 400,
     "not UTF-8"),
    ({"content": b'{"text": ', "headers": {"content-type": "application/json"}}, 400, "not valid JSON"),
    ({"json": {"text": 7}}, 400, "field 'text' must be text"),
    ({"json": ["1. A chair."]}, 400, "must be a JSON object"),
    ({"json": {"text": "1. A chair.", "suppressions": {"ignore": ["no-such-rule"]}}}, 400, "unknown rule"),
    ({"json": {"text": '"\\ud800"', "name": "c.json"}}, 400, "lone surrogate"),
    ({"content": "text=1. A chair.", "headers": {"content-type": "application/x-www-form-urlencoded"}}, 415,
     "expected a JSON request"),
])
def test_bad_lint_requests_get_one_clear_line_and_the_server_goes_on(server, request_kwargs, status, words):
    response = httpx.post(f"{server}/api/lint", timeout=30, **request_kwargs)
    assert response.status_code == status
    message = response.json()["error"]
    assert words in message and "\n" not in message and "Traceback" not in message
    answers(server)


def test_a_50_mb_upload_is_refused_before_it_is_read(server):
    response = httpx.post(f"{server}/api/upload?name=big.docx", content=b"\0" * (50 * 2**20),
                          headers={"content-type": "application/octet-stream"}, timeout=60)
    assert response.status_code == 413 and "10.0 MB" in response.json()["error"]
    answers(server)


def test_an_upload_without_a_length_is_cut_at_the_limit(server):
    def chunks():
        for _ in range(50):
            yield b"x" * 2**20

    response = httpx.post(f"{server}/api/upload?name=big.txt", content=chunks(),
                          headers={"content-type": "application/octet-stream"}, timeout=60)
    assert response.status_code == 413
    answers(server)


def test_a_text_upload_that_is_not_utf8_names_its_line(server):
    response = httpx.post(f"{server}/api/upload?name=claims.txt", content=b"1. A chair.\n2. A st\xf6ol.\n",
                          headers={"content-type": "application/octet-stream"}, timeout=30)
    assert response.status_code == 400 and response.json()["error"].startswith("claims.txt line 2: byte 0xf6")
    answers(server)


def test_a_text_upload_comes_back_as_text(server):
    response = httpx.post(f"{server}/api/upload?name=claims.txt&kind=claims", content=CLAIMS.encode(),
                          headers={"content-type": "application/octet-stream"}, timeout=30)
    assert response.status_code == 200 and response.json() == {"name": "claims.txt", "docx": False, "text": CLAIMS,
                                                               "description": ""}


def test_requests_from_other_sites_are_refused(server):
    other = httpx.post(f"{server}/api/lint", json={"text": CLAIMS}, headers={"origin": "http://evil.example"},
                       timeout=30)
    assert other.status_code == 403
    rebound = httpx.get(f"{server}/", headers={"host": "evil.example"}, timeout=30)
    assert rebound.status_code == 403
    answers(server)


def test_a_busy_port_is_one_line_and_exit_2(server):
    port = server.rsplit(":", 1)[1]
    done = subprocess.run([sys.executable, "-m", "spg.cli", "serve", "--port", port], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"--port {port}: cannot listen there" in done.stderr


def test_bad_settings_are_one_line_before_the_server_starts(tmp_path):
    (tmp_path / "bad.yaml").write_text("ignore: [no-such-rule]\n")
    for args, words in ((["--model", str(tmp_path / "nope")], "no such local folder"),
                        (["--lint-config", "bad.yaml"], "bad.yaml: 'ignore': unknown rule 'no-such-rule'"),
                        (["--host", "nosuchhost.invalid"], "--host nosuchhost.invalid: not an address"),
                        (["--port", "70000"], "--port must be 0 to 65535"),
                        (["--max-upload-mb", "0"], "--max-upload-mb must be above 0")):
        done = subprocess.run([sys.executable, "-m", "spg.cli", "serve", *args], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, done.stderr


# ---------------------------------------------------------------- suppressions, in process


def app_client(tmp_path: Path, drafter: Drafter | None = None) -> TestClient:
    settings = Settings(max_body=2**20, suppression_file=tmp_path / ".spg-lint.yaml")
    return TestClient(build_app(settings, drafter), base_url="http://127.0.0.1:8000")


def test_a_suppression_is_applied_at_once_and_written_only_when_saved(tmp_path):
    client = app_client(tmp_path)
    suppressions = {"per-claim": {"2": ["antecedent"]}}
    before = client.post("/api/lint", json={"text": CLAIMS}).json()
    after = client.post("/api/lint", json={"text": CLAIMS, "suppressions": suppressions}).json()
    assert after["summary"]["suppressed"] == 1 and after["summary"]["warning"] == before["summary"]["warning"] - 1
    assert not (tmp_path / ".spg-lint.yaml").exists()
    saved = client.post("/api/suppressions", json={"suppressions": suppressions})
    assert saved.status_code == 200
    text = (tmp_path / ".spg-lint.yaml").read_text()
    assert text.startswith("# spg lint-suppressions\n") and "antecedent" in text
    # the saved file now applies to every check, and spg lint reads it
    assert client.post("/api/lint", json={"text": CLAIMS}).json()["summary"]["suppressed"] == 1
    from spg.lint.suppress import read_suppressions

    assert read_suppressions(tmp_path / ".spg-lint.yaml").per_claim == {2: frozenset({"antecedent"})}


def test_the_pages_suppression_is_keyed_by_the_claims_words_and_stays_on_it_after_renumbering(tmp_path):
    client = app_client(tmp_path)
    key = client.post("/api/lint", json={"text": CLAIMS}).json()["keys"]["2"]  # what the page's suppress sends
    entry = {"claim": 2, "key": key, "rules": ["antecedent"]}
    session = client.post("/api/lint", json={"text": CLAIMS, "suppressions": {"per-claim-text": [entry]}}).json()
    assert session["summary"]["suppressed"] == 1
    for _ in range(2):  # saved twice: one entry in the file
        assert client.post("/api/suppressions", json={"suppressions": {"per-claim-text": [entry]}}).status_code == 200
    path = tmp_path / ".spg-lint.yaml"
    assert client.get("/api/info").json()["file_suppressions"] == {"per-claim-text": [entry]}
    renumbered = tmp_path / "renumbered.txt"  # a claim inserted before claim 2; the citations renumbered with it
    renumbered.write_text("1. A chair comprising a seat and a back.\n2. The chair of claim 1, wherein the handle is "
                          "blue.\n3. The chair of claim 1, wherein the lever is red.\n4. The chair of claims 1 and 3, "
                          "wherein the seat is soft.\n")
    after = client.post("/api/lint", json={"text": renumbered.read_text()}).json()
    assert [(f["claim"], f["term"]) for f in after["findings"] if f["rule"] == "antecedent"] == [(2, "the handle")]
    assert after["summary"]["suppressed"] == 1
    cli = subprocess.run([sys.executable, "-m", "spg.cli", "lint", "--json", "--config", str(path), str(renumbered)],
                         capture_output=True, text=True, timeout=120)
    report = json.loads(cli.stdout)  # spg lint reads the saved file the same way
    assert [f["claim"] for f in report["findings"] if f["rule"] == "antecedent"] == [2]
    assert report["claims"][2]["key"] == key and report["summary"]["suppressed"] == 1


def test_a_suppression_file_the_user_wrote_is_never_rewritten(tmp_path):
    own = "# my suppressions\nignore: [means-plus-function]\n"
    (tmp_path / ".spg-lint.yaml").write_text(own)
    client = app_client(tmp_path)
    assert client.get("/api/info").json()["file_suppressions"] == {"ignore": ["means-plus-function"]}
    refused = client.post("/api/suppressions", json={"suppressions": {"accept-terms": ["the lever"]}})
    assert refused.status_code == 409
    assert "spg never writes over a file it did not write" in refused.json()["error"]
    assert "the lever" in refused.json()["error"]  # the lines to add by hand
    assert (tmp_path / ".spg-lint.yaml").read_text() == own


@pytest.mark.parametrize("body", [
    {"text": 123}, {}, {"suppressions": None}, {"suppressions": {}}, {"suppressions": 5}, {"suppressions": ["x"]},
    {"suppressions": {"ignore": [], "accept-terms": [], "per-claim-text": []}},
    {"suppressions": {"ignore": ["antecedent"]}, "text": "1. A chair."},
    {"suppressions": {"per-claim": {"2": "antecedent"}}}, {"suppressions": {"per-claim": {"two": ["antecedent"]}}},
    {"suppressions": {"ignore": "antecedent"}}, {"suppressions": {"ignore": ["no-such-rule"]}},
    {"suppressions": {"lines": ["antecedent"]}},
], ids=repr)
def test_a_save_request_of_the_wrong_shape_is_400_and_leaves_the_file_as_it_was(tmp_path, body):
    client = app_client(tmp_path)
    assert client.post("/api/suppressions", json={"suppressions": {"ignore": ["empty"]}}).status_code == 200
    path = tmp_path / ".spg-lint.yaml"
    before, stat, info = path.read_bytes(), path.stat(), client.get("/api/info").json()
    response = client.post("/api/suppressions", json=body)
    error = response.json()["error"]
    assert response.status_code == 400 and "\n" not in error and ("suppressions" in error or "per-claim" in error)
    after = path.stat()
    assert path.read_bytes() == before and (after.st_ino, after.st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)
    assert client.get("/api/info").json() == info  # the server's copy of the file unchanged too
    path.unlink()
    assert client.post("/api/suppressions", json=body).status_code == 400 and not path.exists()


def test_a_20_claim_check_has_every_claim(tmp_path):
    """The request benchmarks/serve.py times (its round trip is measured there, not here)."""
    data = app_client(tmp_path).post("/api/lint", json={"text": twenty_claims()}).json()
    assert data["claims"] == 20 and data["html"].count('<div class="claim') == 20


# ---------------------------------------------------------------- drafting: the stream, the queue


CLAIM_TEXT = ("1. A folding step stool comprising a frame and a step.\n"
              "2. The step stool of claim 1, wherein the step is plastic.\n"
              "3. The step stool of claim 1, wherein the frame is aluminium.\n")


class ScriptedGenerator:
    """Stands in for the model: "decodes" a fixed plain claim set a few tokens at a time through the streamer, as
    transformers' generate does (the prompt first), optionally waiting on ``gate`` before it starts."""

    mode = "zero-shot"

    def __init__(self, gate: threading.Event | None = None, text: str = CLAIM_TEXT):
        self.tokenizer = tiny_tokenizer()
        self.gate, self.text = gate, text

    def __call__(self, docs, streamer=None):
        if self.gate is not None:
            assert self.gate.wait(30)
        ids = self.tokenizer.encode(self.text, add_special_tokens=False)
        streamer.put(torch.tensor([[1, 2, 3]]))  # the prompt
        for start in range(0, len(ids), 5):
            streamer.put(torch.tensor(ids[start : start + 5]))
        forest = parse_claims(self.text)
        return [{"id": docs[0].id, "claims_text": render(forest), "forest": forest_json(forest), "new_tokens": len(ids),
                 "cut_by_budget": ""}]


def events_of(response) -> list[tuple[str, dict]]:
    out, name = [], None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            out.append((name, json.loads(line[6:])))
    return out


def test_claims_stream_in_as_they_close_each_one_linted(tmp_path):
    drafter = Drafter(GenerateConfig(), load=lambda config: ScriptedGenerator())
    client = app_client(tmp_path, drafter)
    with client.stream("POST", "/api/draft", json={"description": "A step stool with a frame and a step."}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = events_of(r)
    names = [n for n, _ in events]
    assert names == ["queued", "loading", "started", "claim", "claim", "claim", "done"]
    claims = [d for n, d in events if n == "claim"]
    assert [c["claims"] for c in claims] == [1, 2, 3]  # each claim once it closed, never a half claim
    assert 'id="claim-1"' in claims[0]["html"] and 'id="claim-2"' not in claims[0]["html"]
    assert "description support: checked" in claims[0]["html"]  # linted against the description
    done = events[-1][1]
    assert done["claims_text"] == render(parse_claims(CLAIM_TEXT)) and done["first_claim_seconds"] is not None
    # a second draft reuses the loaded model
    with client.stream("POST", "/api/draft", json={"description": "Another stool."}) as r:
        assert "loading" not in [n for n, _ in events_of(r)]


def test_a_check_never_waits_behind_a_draft(tmp_path):
    gate = threading.Event()
    drafter = Drafter(GenerateConfig(), load=lambda config: ScriptedGenerator(gate))
    client = app_client(tmp_path, drafter)
    seen: list[list[str]] = []

    def draft():
        with client.stream("POST", "/api/draft", json={"description": "A stool."}) as r:
            seen.append([n for n, _ in events_of(r)])

    thread = threading.Thread(target=draft)
    thread.start()
    try:
        time.sleep(0.3)  # the draft holds the model (it waits on the gate)
        assert client.post("/api/lint", json={"text": CLAIMS}).json()["claims"] == 3  # answered meanwhile
        assert not seen
    finally:
        gate.set()
        thread.join(30)
    assert seen and seen[0][-1] == "done"


def test_drafts_queue_one_at_a_time_and_a_full_queue_is_refused(tmp_path):
    gate = threading.Event()
    drafter = Drafter(GenerateConfig(), load=lambda config: ScriptedGenerator(gate), max_waiting=1)
    client = app_client(tmp_path, drafter)
    results: dict[int, list[str]] = {}

    def draft(n: int):
        with client.stream("POST", "/api/draft", json={"description": "A stool."}) as r:
            results[n] = [name for name, _ in events_of(r)]

    first = threading.Thread(target=draft, args=(1,))
    first.start()
    time.sleep(0.3)
    second = threading.Thread(target=draft, args=(2,))
    second.start()
    time.sleep(0.3)
    refused = client.post("/api/draft", json={"description": "A third stool."})
    gate.set()
    first.join(30)
    second.join(30)
    assert refused.status_code == 400 and "drafts are waiting" in refused.json()["error"]
    assert results[1][-1] == results[2][-1] == "done"


def test_a_queued_draft_hears_how_many_are_before_it_as_the_queue_moves():
    gates = {name: threading.Event() for name in ("a", "b", "c", "d")}

    class Gated(ScriptedGenerator):  # each draft waits on its own gate
        def __call__(self, docs, streamer=None):
            assert gates[docs[0].id].wait(30)
            return super().__call__(docs, streamer)

    drafter = Drafter(GenerateConfig(), load=lambda config: Gated())
    events: dict[str, list[tuple[str, dict]]] = {name: [] for name in gates}

    def submit(name: str) -> Job:
        job = Job("A stool.", name, lambda event, data: events[name].append((event, data)))
        drafter.submit(job)
        return job

    def until(name: str, event: str) -> None:
        deadline = time.monotonic() + 30
        while event not in [e for e, _ in events[name]]:
            assert time.monotonic() < deadline, events[name]
            time.sleep(0.01)

    def ahead(name: str) -> list[int]:
        return [data["ahead"] for event, data in events[name] if event == "queued"]

    submit("a")
    until("a", "started")  # a runs, held at its gate
    submit("b")
    c = submit("c")
    assert ahead("a") == [0] and ahead("b") == [1] and ahead("c") == [2]
    gates["a"].set()
    until("b", "started")  # a is done, b runs: c moves up
    assert ahead("b") == [1] and ahead("c") == [2, 1]
    submit("d")
    assert ahead("d") == [2]
    drafter.leave(c)  # c's page closed while it waited: d moves up, c never starts
    assert ahead("d") == [2, 1]
    gates["b"].set()
    until("d", "started")  # its own start is the news: no "queued" after it
    assert ahead("d") == [2, 1]
    gates["d"].set()
    until("d", "done")
    assert "started" not in [e for e, _ in events["c"]] and events["c"][-1] == ("queued", {"ahead": 1})
    drafter.close()


def test_an_empty_description_is_refused(tmp_path):
    client = app_client(tmp_path, Drafter(GenerateConfig(), load=lambda config: ScriptedGenerator()))
    response = client.post("/api/draft", json={"description": "  \n"})
    assert response.status_code == 400 and "description is empty" in response.json()["error"]


def test_a_model_that_fails_to_load_is_one_line_and_the_next_draft_tries_again(tmp_path):
    calls = []

    def load(config):
        calls.append(1)
        if len(calls) == 1:
            from spg.errors import InputError

            raise InputError("--model x: cannot load it (no config.json)")
        return ScriptedGenerator()

    client = app_client(tmp_path, Drafter(GenerateConfig(), load=load))
    with client.stream("POST", "/api/draft", json={"description": "A stool."}) as r:
        events = events_of(r)
    assert events[-1] == ("error", {"message": "--model x: cannot load it (no config.json)"})
    with client.stream("POST", "/api/draft", json={"description": "A stool."}) as r:
        assert events_of(r)[-1][0] == "done"


def test_the_streamer_hands_on_tagged_claims_at_their_closing_tags():
    from tiny import tiny_llama

    from spg.model.tokens import add_structure_tokens

    tokenizer = tiny_tokenizer()
    add_structure_tokens(tokenizer, tiny_llama())
    seen: list[Forest] = []
    streamer = ClaimStreamer(tokenizer, tagged=True, on_claims=seen.append)
    text = "<ind>A chair comprising a seat.</ind><dep>The chair of claim 1, wherein the seat is red.</dep><eot>"
    ids = tokenizer.encode(text, add_special_tokens=False)
    streamer.put(torch.tensor([[7, 7]]))
    for tok in ids:
        streamer.put(torch.tensor([tok]))
    assert [len(f.claims) for f in seen] == [1, 2]
    assert seen[1].claims[1].parents == (1,) and seen[1].claims[1].text.startswith("The chair of claim 1")


# ---------------------------------------------------------------- Word documents


DOCX_CLAIMS = [(1, "A chair comprising: a seat; and a back."), (2, "The chair of claim 1, wherein the lever is red."),
               (3, "The chair of claim 1, wherein the seat is soft.")]


def upload(url: str, name: str, data: bytes, kind: str = "claims") -> httpx.Response:
    return httpx.post(f"{url}/api/upload?name={name}&kind={kind}", content=data,
                      headers={"content-type": "application/octet-stream"}, timeout=60)


def zip_bomb() -> bytes:
    """A .docx whose document part is 30 MB of zeros, deflated to under a megabyte."""
    import io
    import zipfile

    from docx_files import claims_document

    source = zipfile.ZipFile(io.BytesIO(claims_document(DOCX_CLAIMS, "numbered")))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for member in source.infolist():
            big = member.filename == "word/document.xml"
            package.writestr(member.filename, b"<" + bytes(30 * 2**20) if big else source.read(member))
    return out.getvalue()


@pytest.mark.parametrize("kind", ["docx", "text"])
def test_the_pages_json_download_is_spg_lint_json_of_the_same_file(tmp_path, kind):
    """docs/serve.md: the page's JSON is ``spg lint --json``'s. The page opens the file (/api/upload), fills in its
    description, and asks for the JSON with what it holds (and, for a Word document, the document itself)."""
    import base64

    from docx_files import claims_document

    data = (claims_document(DOCX_CLAIMS, "after-description") if kind == "docx"
            else "\n".join(f"{n}. {text}" for n, text in DOCX_CLAIMS).encode())
    path = tmp_path / f"chair.{'docx' if kind == 'docx' else 'txt'}"
    path.write_bytes(data)
    client = app_client(tmp_path)
    opened = client.post(f"/api/upload?name={path.name}&kind=claims", content=data,
                         headers={"content-type": "application/octet-stream"}).json()
    request = {"text": opened["text"], "name": path.name, "description": opened["description"],
               "suppressions": {"ignore": [], "accept-terms": [], "per-claim-text": []}}  # the page's, none made
    if kind == "docx":
        request["docx"] = base64.b64encode(data).decode()
    page = client.post("/api/report.json", json=request)
    cli = subprocess.run([sys.executable, "-m", "spg.cli", "lint", "--json", "--no-config", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert page.status_code == 200 and cli.returncode in (0, 1), cli.stderr
    assert json.loads(page.content) == json.loads(cli.stdout)
    report = json.loads(page.content)
    assert report["findings"] and all(("paragraph" in c) == (kind == "docx") for c in report["claims"])
    assert report["summary"]["description_checked"] == (kind == "docx")


def test_the_restatement_setting_gives_the_checks_what_spg_lint_gives_with_it(tmp_path):
    """spg serve --restatement: the page's findings are spg lint's with the same --restatement."""
    from test_lint_meaning import RESTATED  # claim 4 says claim 2 again in other words: the reader alone flags it

    path = tmp_path / "claims.txt"
    path.write_text(RESTATED, encoding="utf-8")
    rules = {}
    for mode in ("rules", "read"):
        settings = Settings(max_body=2**20, suppression_file=tmp_path / ".spg-lint.yaml", restatement=mode)
        client = TestClient(build_app(settings, None), base_url="http://127.0.0.1:8000")
        page = client.post("/api/report.json", json={"text": RESTATED, "name": path.name})
        cli = subprocess.run([sys.executable, "-m", "spg.cli", "lint", "--json", "--no-config", "--restatement", mode,
                              str(path)], capture_output=True, text=True, timeout=120)
        assert page.status_code == 200 and cli.returncode == 0, cli.stderr
        assert json.loads(page.content) == json.loads(cli.stdout)
        checked = client.post("/api/lint", json={"text": RESTATED}).json()["findings"]
        rules[mode] = [(f["rule"], f["claim"]) for f in checked if f["rule"] == "restatement"]
    assert rules == {"rules": [], "read": [("restatement", 4)]}


def test_the_restatement_setting_reaches_the_drafts_as_spg_generate_takes_it(tmp_path):
    """spg serve --restatement (or the --config key; the flag wins) sets the drafts' restatement as spg generate's:
    the checker in the loop reads the draft so (the generator's settings) and so does the report of each draft."""
    from test_lint_meaning import RESTATED

    from spg.cli import build_parser
    from spg.cli.serve import _generate_config

    config = tmp_path / "read.yaml"
    config.write_text("restatement: read\n")
    for flags, mode in (([], "rules"), (["--config", str(config)], "read"),
                        (["--config", str(config), "--restatement", "rules"], "rules"), (["--restatement", "read"], "read")):
        assert _generate_config(build_parser().parse_args(["serve", *flags])).decode.restatement == mode, flags
    found = {}
    for mode in ("rules", "read"):
        drafter = Drafter(GenerateConfig(decode=DecodeSettings(restatement=mode)),
                          load=lambda config: ScriptedGenerator(text=RESTATED))
        with app_client(tmp_path, drafter).stream("POST", "/api/draft", json={"description": "A composition."}) as r:
            events = events_of(r)
        found[mode] = ["restatement reader, score" in d["html"] for n, d in events if n in ("claim", "done")]
    assert found == {"rules": [False] * 5, "read": [False] * 3 + [True] * 2}


@pytest.mark.parametrize("layout", ["numbered", "auto", "after-description", "table", "tracked"])
def test_an_uploaded_docx_gives_the_claims_the_text_path_reads(server, layout):
    from docx_files import claims_document

    from spg.docx import read_docx

    data = claims_document(DOCX_CLAIMS, layout)
    response = upload(server, "chair.docx", data)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["docx"] is True and body["text"] == read_docx(data, "chair.docx").claims_text
    checked = httpx.post(f"{server}/api/lint", json={"text": body["text"], "name": "chair.docx"}, timeout=30).json()
    assert checked["claims"] == 3 and any(f["rule"] == "antecedent" and f["claim"] == 2 for f in checked["findings"])


@pytest.mark.parametrize("name, data, words", [
    ("bomb.docx", None, "zip bomb"),
    ("claims.docx", b"1. A chair.\n", "not a zip package"),
    ("claims.docx", b"PK\x03\x04" + b"\0" * 200, "expected a Word document"),
])
def test_a_hostile_docx_is_one_clear_line_and_the_server_goes_on(server, name, data, words):
    response = upload(server, name, zip_bomb() if data is None else data)
    assert response.status_code == 400
    message = response.json()["error"]
    assert words in message and name in message and "\n" not in message and "Traceback" not in message
    answers(server)


def test_a_docx_without_claims_says_so(server):
    import docx as python_docx
    from docx_files import saved

    document = python_docx.Document()
    document.add_paragraph("A description and nothing else.")
    response = upload(server, "notes.docx", saved(document))
    assert response.status_code == 400 and "no claims found in the Word document" in response.json()["error"]
    # the same file is a fine description for the Draft tab
    described = upload(server, "notes.docx", saved(document), kind="description")
    assert described.status_code == 200 and described.json()["text"].strip() == "A description and nothing else."


def test_the_commented_docx_has_each_finding_as_a_comment_and_the_upload_is_unchanged(server):
    import base64
    import io

    import docx as python_docx
    from docx_files import claims_document

    data = claims_document(DOCX_CLAIMS, "numbered")
    original = bytes(data)
    text = upload(server, "chair.docx", data).json()["text"]
    findings = httpx.post(f"{server}/api/lint", json={"text": text, "name": "chair.docx"}, timeout=30).json()
    response = httpx.post(f"{server}/api/commented.docx", timeout=60, json={
        "docx": base64.b64encode(data).decode(), "name": "chair.docx", "text": text})
    assert response.status_code == 200, response.text
    assert 'filename="chair.commented.docx"' in response.headers["content-disposition"]
    comments = list(python_docx.Document(io.BytesIO(response.content)).comments)
    assert len(comments) == len(findings["findings"]) >= 1
    assert any("lever" in c.text for c in comments)
    assert data == original
    # a suppressed finding is not commented
    suppressed = httpx.post(f"{server}/api/commented.docx", timeout=60, json={
        "docx": base64.b64encode(data).decode(), "name": "chair.docx", "suppressions": {"ignore": ["antecedent"]}})
    assert len(list(python_docx.Document(io.BytesIO(suppressed.content)).comments)) < len(comments)


def test_the_commented_copy_of_any_docx_that_opens_comes_back(server):
    """Issue 42: a 9 MB document opens (under the 10 MB request limit) but sent back in base64 it was 12 MB and
    refused (413). The page asks for the kept document by the token its upload answered."""
    import io

    import docx as python_docx
    from docx_files import claims_document, with_parts

    data = with_parts(claims_document(DOCX_CLAIMS, "numbered"), 1, 9 * 2**20, kind="photo")
    assert 9 * 2**20 < len(data) < 10 * 2**20
    opened = upload(server, "big.docx", data)
    assert opened.status_code == 200, opened.text
    response = httpx.post(f"{server}/api/commented.docx", timeout=120, json={"token": opened.json()["token"]})
    assert response.status_code == 200, response.text
    assert 'filename="big.commented.docx"' in response.headers["content-disposition"]
    assert any("lever" in c.text for c in python_docx.Document(io.BytesIO(response.content)).comments)
    gone = httpx.post(f"{server}/api/commented.docx", timeout=30, json={"token": "not-a-token"})
    assert gone.status_code == 410 and "open it again" in gone.json()["error"]


def test_kept_documents_are_the_latest_few_for_a_while():
    from spg.serve.kept import KeptDocuments

    now = [0.0]
    kept = KeptDocuments(max_bytes=10, count=2, seconds=60, clock=lambda: now[0])
    a, b = kept.keep("a.docx", b"aaaa"), kept.keep("b.docx", b"bbbb")
    assert kept.get(a) == ("a.docx", b"aaaa")
    c = kept.keep("c.docx", b"cc")  # a third: the oldest goes
    assert kept.get(a) is None and kept.get(b) == ("b.docx", b"bbbb")
    d = kept.keep("d.docx", b"d" * 9)  # over the bytes: the oldest go until it fits
    assert kept.get(b) is None and kept.get(c) is None and kept.get(d) == ("d.docx", b"d" * 9)
    now[0] = 61.0
    assert kept.get(d) is None


def test_drafted_claims_download_as_a_docx_that_reads_back(server):
    import io

    from spg.docx import read_docx

    response = httpx.post(f"{server}/api/claims.docx", json={"text": CLAIM_TEXT}, timeout=60)
    assert response.status_code == 200
    back = read_docx(response.content, "claims.docx")
    assert parse_claims(back.claims_text).claims == parse_claims(CLAIM_TEXT).claims
    assert io.BytesIO(response.content).read(2) == b"PK"
    empty = httpx.post(f"{server}/api/claims.docx", json={"text": ""}, timeout=30)
    assert empty.status_code == 400 and "no claims to write" in empty.json()["error"]


def test_the_generator_hands_every_kept_token_to_the_streamer():
    """The one hook in the decoding loop: ClaimGenerator(docs, streamer=...) reaches transformers' generate, prompt
    lookup on (the CPU's default), so the streamer sees the prompt, then exactly the tokens the result holds."""
    from tiny import tiny_llama
    from transformers.generation.streamers import BaseStreamer

    from spg.generation.config import DecodeSettings
    from spg.generation.generator import ClaimGenerator
    from spg.generation.prompts import ZERO_SHOT_INSTRUCTION
    from spg.generation.runner import Document

    class Recorder(BaseStreamer):
        def __init__(self):
            self.puts: list[list[int]] = []

        def put(self, value):
            self.puts.append(value.reshape(-1).tolist())

        def end(self):
            self.puts.append([])

    generator = ClaimGenerator(tiny_llama().eval(), tiny_tokenizer(), "zero-shot",
                               DecodeSettings(max_new_tokens=12, do_sample=False), ZERO_SHOT_INSTRUCTION, 2048)
    recorder = Recorder()
    result = generator([Document("d", "1. A chair. 1. A chair. 1. A chair.")], streamer=recorder)[0]
    prompt, *steps, end = recorder.puts
    assert end == [] and len(prompt) == result["prompt_tokens"]
    assert sum(len(s) for s in steps) == result["new_tokens"] == 12
