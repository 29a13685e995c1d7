"""``spg serve``'s web app: one page (spg/serve/static) and the JSON and event-stream API it calls.

Every answer to bad input is a 4xx with ``{"error": one line}`` naming what was wrong and what was expected (the
command line's contract, spg.cli); nothing of the user's is changed (the only file the app writes is the suppression
file, on request, and only one spg wrote or a new one: spg.files); and the server goes on serving. Request bodies
are limited (``max_body``, checked against Content-Length before anything is read, and counted as it is read).

Lint requests run on the server's thread pool, drafts on the drafter's own thread (spg.serve.drafter), so a check
never waits for a draft. The page is served from the package with a Content-Security-Policy: the HTML report's
(``default-src 'none'``, inline styles) plus the page's own script and requests to this server; nothing is fetched
from anywhere else. Requests from other sites are refused: a POST must come from this page's origin (or name none,
as scripts and tests do), JSON must be sent as JSON (which a cross-site form cannot), and on a loopback address the
Host header must name the loopback (a DNS-rebinding page cannot reach the server under another name).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from spg.config import ConfigError, read_yaml
from spg.data import DataError
from spg.errors import InputError, decode_utf8, parse_json, shown
from spg.files import write_text
from spg.forest import Forest
from spg.lint import LintResult, lint, report_json
from spg.lint.html import CSP as REPORT_CSP
from spg.lint.html import CSS, render_body, render_html
from spg.lint.source import claim_set_of, description_of, docx_claims, is_docx
from spg.lint.suppress import claim_key, suppressions_of
from spg.serve.drafter import Drafter, Job
from spg.serve.kept import KeptDocuments
from spg.serve.worker import CheckAbandoned, Checks, CheckTooLong

CSP = (REPORT_CSP.replace("style-src 'unsafe-inline'", "style-src 'self' 'unsafe-inline'")
       + "; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
SUPPRESSIONS_KIND = "lint-suppressions"  # the marker of a suppression file spg serve wrote (spg.files)
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
STATIC = {"app.js": "text/javascript", "app.css": "text/css"}
KEPT_DOCUMENTS = 4  # opened Word documents kept for their commented copy (spg.serve.kept)
WORD_AT_ONCE = 2  # Word documents read at once: the server's memory for them is at most twice one's peak


class HttpError(Exception):
    """Bad input, answered with ``status`` and ``{"error": message}``."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message

    def __reduce__(self):  # raised in a check's worker process (spg.serve.worker) and answered by the server
        return HttpError, (self.status, self.message)


@dataclass
class Settings:
    max_body: int = 10 * 2**20  # bytes of one request's body
    suppression_file: Path = field(default_factory=lambda: Path(".spg-lint.yaml"))
    host: str = "127.0.0.1"
    check_seconds: float = 60.0  # the longest one /api/lint check may run (spg.serve.worker)
    restatement: str = "rules"  # spg lint --restatement: read adds the restatement reader's warnings to every check


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n:,} bytes"


async def _body(request: Request, limit: int) -> bytes:
    too_big = f"the upload is larger than {_size(limit)}, the most spg serve takes (--max-upload-mb)"
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise HttpError(413, f"the upload is {_size(int(length))}; {too_big.removeprefix('the upload is ')}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HttpError(413, too_big)
        chunks.append(chunk)
    return b"".join(chunks)


async def _json(request: Request, limit: int) -> dict[str, Any]:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HttpError(415, f"expected a JSON request (Content-Type: application/json), got {shown(kind or 'none')}")
    text = decode_utf8(await _body(request, limit), "the request")
    try:
        value = parse_json(text, "the request")
    except json.JSONDecodeError as e:
        raise HttpError(400, f"the request is not valid JSON ({e.msg}: line {e.lineno}, column {e.colno})") from None
    if not isinstance(value, dict):
        raise HttpError(400, f"the request must be a JSON object, got {type(value).__name__}")
    return value


def _text(data: dict[str, Any], key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        got = "nothing" if value is None else type(value).__name__
        raise HttpError(400, f"the request's field '{key}' must be text, got {got}")
    return value


def _claim_keys(forest: Forest) -> dict[int, str]:
    """Each claim number's claim_key(): what the page's *suppress* keys the claim's suppression by."""
    return {c.num: claim_key(c) for c in reversed(forest.claims)}  # the first of two claims with one number


def _docx_bytes(data: dict[str, Any]) -> bytes:
    """The Word document a request sends back (base64 in ``docx``): the page keeps the file, the server does not."""
    try:
        return base64.b64decode(_text(data, "docx"), validate=True)
    except binascii.Error:
        raise HttpError(400, "the request's field 'docx' must be the document in base64") from None


def _merged(*layers: Any) -> dict[str, Any]:
    """Suppression mappings (a file's, a request's) as one: lists (per-claim-text's entries too) joined without
    repeats, per-claim rules by claim.
    The request's claim numbers arrive as JSON keys (text) and are read back as numbers."""
    out: dict[str, Any] = {}
    for layer in layers:
        if not layer:
            continue
        if not isinstance(layer, dict):
            raise HttpError(400, "the request's field 'suppressions' must be a mapping of ignore, accept-terms and "
                                 "per-claim")
        for key, value in layer.items():
            if key == "per-claim" and isinstance(value, dict):
                claims = out.setdefault(key, {})
                for num, rules in value.items():
                    num = int(num) if isinstance(num, str) and num.isdigit() else num
                    # not a list: passed on as it is, for suppressions_of to say what was expected
                    claims[num] = list(dict.fromkeys([*claims.get(num, []), *rules])) if isinstance(rules, list) \
                        else rules
            elif isinstance(value, list) and isinstance(out.get(key, []), list):
                # repr, not the value, names an entry: per-claim-text entries are mappings, which do not hash
                out[key] = list({repr(v): v for v in [*out.get(key, []), *value]}.values())
            else:
                out[key] = value  # not a list: suppressions_of says what was expected
    return out


def _to_save(data: dict[str, Any]) -> dict[str, Any]:
    """A save request's suppressions: ``{"suppressions": {...}}`` and nothing else, the mapping not empty. Anything
    else (``{"text": 123}``, no suppressions) is refused before the file is touched, not saved as the file's own."""
    value, other = data.get("suppressions"), sorted(set(data) - {"suppressions"})
    if other or not isinstance(value, dict) or not any(value.values()):
        got = (f"a field '{shown(other[0])}'" if other
               else f"'suppressions' as {type(value).__name__}" if value and not isinstance(value, dict)
               else "no suppressions")
        raise HttpError(400, 'expected {"suppressions": {...}} holding ignore, accept-terms, per-claim-text or '
                             f"per-claim entries to save, got {got}")
    return value


class App:
    """The routes' state: settings, the suppression file's own suppressions, the drafter."""

    def __init__(self, settings: Settings, drafter: Drafter | None):
        self.settings, self.drafter = settings, drafter
        path = settings.suppression_file
        self.file_suppressions = read_yaml(path) if path.is_file() else {}
        suppressions_of(self.file_suppressions, str(path))  # a malformed file stops spg serve before it starts
        static = resources.files("spg.serve").joinpath("static")
        self.static = {name: static.joinpath(name).read_bytes() for name in ("index.html", *STATIC)}
        self.kept = KeptDocuments(KEPT_DOCUMENTS * settings.max_body, KEPT_DOCUMENTS)  # for their commented copy
        self.word_at_once = asyncio.Semaphore(WORD_AT_ONCE)
        self.checks = Checks(settings.check_seconds)

    async def _word(self, read, *args):
        """``read(*args)``, which opens a Word document, on the thread pool, at most WORD_AT_ONCE at a time: each
        may hold what spg.docx bounds a document to (docs/serve.md), the others wait for their turn."""
        async with self.word_at_once:
            return await run_in_threadpool(read, *args)

    def __getstate__(self) -> dict[str, Any]:
        """What a check's worker process gets of this state (spg.serve.worker): not the drafter, the workers, the kept
        Word documents nor the event loop's semaphore."""
        left_out = ("drafter", "checks", "static", "kept", "word_at_once")
        return {k: v for k, v in self.__dict__.items() if k not in left_out}

    # ---- reading requests

    def _check(self, data: dict[str, Any]) -> tuple[LintResult, str]:
        name = _text(data, "name", "pasted claims") or "pasted claims"
        description = _text(data, "description", "").strip() or None
        suppressions = suppressions_of(_merged(self.file_suppressions, data.get("suppressions")),
                                       "the request's suppressions")
        claim_set = claim_set_of(name, _text(data, "text"))
        return lint(claim_set.forest, description or claim_set.description, suppressions, terms=True,
                    restatement=self.settings.restatement), name

    # ---- routes

    async def page(self, request: Request) -> Response:
        return Response(self.static["index.html"], media_type="text/html; charset=utf-8")

    async def static_file(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name == "report.css":
            return Response(CSS, media_type="text/css")
        if name not in STATIC:
            raise HttpError(404, f"no such file: /static/{shown(name)}")
        return Response(self.static[name], media_type=STATIC[name])

    async def info(self, request: Request) -> Response:
        return JSONResponse({
            "model": self.drafter.model if self.drafter else None, "max_body": self.settings.max_body,
            "suppression_file": str(self.settings.suppression_file), "file_suppressions": self.file_suppressions,
        })

    async def check(self, request: Request) -> Response:
        data = await _json(request, self.settings.max_body)
        try:
            size = sum(len(v) for v in data.values() if isinstance(v, str))
            answer = await self.checks.run(request.is_disconnected, size, lint_answer, self, data)
        except CheckAbandoned:
            if self.checks.stopping():
                raise HttpError(503, "spg serve is stopping; the check did not finish") from None
            return Response(status_code=204)  # nobody is there to read it
        except CheckTooLong:
            raise HttpError(503, f"the check took longer than {self.settings.check_seconds:g} s, the most spg serve "
                                 "gives one (--check-seconds); check a claim set this large with spg lint") from None
        return JSONResponse(answer)

    async def report_html(self, request: Request) -> Response:
        data = await _json(request, self.settings.max_body)
        result, name = await run_in_threadpool(self._check, data)
        return _download(render_html(result, name), "text/html; charset=utf-8", _stem(name) + ".lint.html")

    def _original(self, data: dict[str, Any]) -> tuple[str, bytes]:
        """(name, bytes) of the Word document a request names: the one the upload answered ``token`` for (kept a
        while: spg.serve.kept), or one sent in base64 in ``docx`` (scripts; a third larger, within the request
        limit)."""
        if "token" not in data:
            return _text(data, "name", "claims.docx"), _docx_bytes(data)
        kept = self.kept.get(_text(data, "token"))
        if kept is None:
            raise HttpError(410, f"the Word document is no longer kept (spg serve keeps the last {KEPT_DOCUMENTS} "
                                 f"opened, {self.kept.seconds / 60:.0f} minutes each, none after a restart); "
                                 "open it again")
        return kept

    async def report_json(self, request: Request) -> Response:
        """``spg lint --json``'s report; with the Word document the claims came from (``token`` or ``docx``, as for
        the commented copy), its claims as the command line reads them and each claim's and finding's
        ``paragraph``."""
        data = await _json(request, self.settings.max_body)
        opened, original = self._original(data) if "token" in data or "docx" in data else ("", None)

        def run() -> tuple[str, str]:
            paragraphs = None
            if original is not None:
                doc = docx_claims(original, opened)
                data["text"], paragraphs = doc.claims_text, doc.claim_paragraphs
            result, name = self._check(data)
            return json.dumps(report_json(result, paragraphs), ensure_ascii=False, indent=1), name

        text, name = await (self._word(run) if original is not None else run_in_threadpool(run))
        return _download(text, "application/json", _stem(name) + ".lint.json")

    async def renumber(self, request: Request) -> Response:
        """The editor's claims renumbered with no forward reference, citations updated (:mod:`spg.renumber`)."""
        data = await _json(request, self.settings.max_body)

        def run() -> dict[str, Any]:
            from spg.renumber import renumber_text

            claim_set = claim_set_of(_text(data, "name", "pasted claims") or "pasted claims", _text(data, "text"))
            return {"text": renumber_text(claim_set.forest)}

        return JSONResponse(await run_in_threadpool(run))

    async def upload(self, request: Request) -> Response:
        """A claims or description file (text or .docx, the raw bytes as the body) as text for the page."""
        name = request.query_params.get("name", "upload")
        kind = request.query_params.get("kind", "claims")
        if kind not in ("claims", "description"):
            raise HttpError(400, f"kind must be claims or description, got {shown(kind)}")
        data = await _body(request, self.settings.max_body)
        if not data:
            raise HttpError(400, f"{shown(name)}: the file is empty; expected {kind}")
        if kind == "description":
            text = await self._word(description_of, name, data)
            return JSONResponse({"name": name, "docx": is_docx(name, data), "text": text, "description": ""})
        if is_docx(name, data):
            doc = await self._word(docx_claims, data, name)
            return JSONResponse({"name": name, "docx": True, "text": doc.claims_text, "description": doc.description,
                                 "token": self.kept.keep(name, data)})
        return JSONResponse({"name": name, "docx": False, "text": decode_utf8(data, name), "description": ""})

    async def commented_docx(self, request: Request) -> Response:
        """A Word document with each finding as a comment: the one ``token`` or ``docx`` names (:meth:`_original`)."""
        from spg.docx import commented_docx

        data = await _json(request, self.settings.max_body)
        name, original = self._original(data)

        def run() -> bytes:
            doc = docx_claims(original, name)
            result, _ = self._check({**data, "text": doc.claims_text})
            return commented_docx(original, result.findings, doc.claim_paragraphs, name=name)

        return _download(await self._word(run), DOCX, _stem(name) + ".commented.docx")

    async def claims_docx(self, request: Request) -> Response:
        """Drafted claims (``text``, numbered claims) as a Word document."""
        from spg.docx import claims_docx

        data = await _json(request, self.settings.max_body)
        forest = claim_set_of("drafted claims", _text(data, "text")).forest
        if not forest.claims:
            raise HttpError(400, "no claims to write; expected numbered claims")
        title = _text(data, "title", "") or None
        return _download(await run_in_threadpool(claims_docx, forest, title), DOCX, "claims.docx")

    async def save_suppressions(self, request: Request) -> Response:
        """The file's suppressions and the page's, written to the suppression file (only spg's own, or a new one)."""
        data = await _json(request, self.settings.max_body)
        merged = _merged(self.file_suppressions, _to_save(data))
        path = self.settings.suppression_file
        suppressions_of(merged, "the request's suppressions")  # checked before anything is written
        text = yaml.safe_dump(merged, sort_keys=False, allow_unicode=True) if merged else "{}\n"
        try:
            await run_in_threadpool(write_text, path, SUPPRESSIONS_KIND, text)
        except InputError as err:
            raise HttpError(409, f"{err}; add these lines to it yourself:\n{text}") from None
        self.file_suppressions = merged
        return JSONResponse({"path": str(path), "file_suppressions": merged})

    async def warm(self, request: Request) -> Response:
        """The Draft tab opened: the drafter imports its libraries now (spg.serve.drafter.Drafter.warm_up)."""
        if self.drafter is not None:
            self.drafter.warm_up()
        return JSONResponse({"warming": self.drafter is not None})

    async def draft(self, request: Request) -> Response:
        """Claims drafted for ``description``, as server-sent events (spg.serve.drafter lists them)."""
        if self.drafter is None:
            raise HttpError(503, "drafting is off in this server")
        data = await _json(request, self.settings.max_body)
        description = _text(data, "description")
        if not description.strip():
            raise HttpError(400, "the description is empty; expected the patent's description to draft claims for")
        loop, events = asyncio.get_running_loop(), asyncio.Queue()

        def emit(name: str, payload: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(events.put_nowait, (name, payload))

        job = Job(description, _text(data, "name", "draft") or "draft", emit)
        self.drafter.submit(job)  # a full queue: InputError, a 4xx before the stream starts

        async def stream() -> AsyncIterator[str]:
            try:
                while True:
                    name, payload = await events.get()
                    yield f"event: {name}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"
                    if name in ("done", "error"):
                        return
            finally:  # the page left, or the job ended: a job still queued or decoding stops
                self.drafter.leave(job)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


def lint_answer(state: App, data: dict[str, Any]) -> dict[str, Any]:
    """/api/lint's answer to ``data``, in a worker process (spg.serve.worker) given a copy of the routes' state."""
    result, name = state._check(data)
    return {"html": render_body(result, name), "summary": result.summary(), "claims": len(result.forest),
            "findings": [f.to_dict() for f in result.findings], "keys": _claim_keys(result.forest)}


def _stem(name: str) -> str:
    """A download's file name from the input's: its last part without the extension, in safe characters."""
    stem = Path(name.replace("\\", "/")).name
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)[:80] or "claims"


def _download(content: str | bytes, media_type: str, filename: str) -> Response:
    return Response(content, media_type=media_type,
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def _refused(request: Request, settings: Settings) -> HttpError | None:
    """A request from elsewhere than this server's own page (see the module docstring)."""
    host = request.headers.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if settings.host in LOOPBACK and name not in LOOPBACK:
        return HttpError(403, f"Host {shown(host)}: this server answers on its loopback address only")
    origin = request.headers.get("origin")
    if request.method == "POST" and origin is not None and origin != f"http://{host}":
        return HttpError(403, f"a request from {shown(origin)}: this server answers its own page only")
    return None


def build_app(settings: Settings, drafter: Drafter | None) -> Starlette:
    state = App(settings, drafter)

    def guarded(endpoint):
        async def handle(request: Request) -> Response:
            try:
                refused = _refused(request, settings)
                if refused:
                    raise refused
                response = await endpoint(request)
            except HttpError as err:
                response = JSONResponse({"error": err.message}, status_code=err.status)
            except (InputError, DataError, ConfigError) as err:
                response = JSONResponse({"error": " ".join(str(err).split())}, status_code=400)
            except Exception as err:  # noqa: BLE001 - a bug answers 500 in one line; the server goes on
                message = f"internal error ({type(err).__name__}: {' '.join(str(err).split())}); please report it"
                response = JSONResponse({"error": message}, status_code=500)
            response.headers.update({"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                                     "Referrer-Policy": "no-referrer"})
            return response

        return handle

    routes = [
        Route("/", guarded(state.page)),
        Route("/static/{name}", guarded(state.static_file)),
        Route("/api/info", guarded(state.info)),
        Route("/api/lint", guarded(state.check), methods=["POST"]),
        Route("/api/report.html", guarded(state.report_html), methods=["POST"]),
        Route("/api/report.json", guarded(state.report_json), methods=["POST"]),
        Route("/api/upload", guarded(state.upload), methods=["POST"]),
        Route("/api/renumber", guarded(state.renumber), methods=["POST"]),
        Route("/api/commented.docx", guarded(state.commented_docx), methods=["POST"]),
        Route("/api/claims.docx", guarded(state.claims_docx), methods=["POST"]),
        Route("/api/suppressions", guarded(state.save_suppressions), methods=["POST"]),
        Route("/api/draft", guarded(state.draft), methods=["POST"]),
        Route("/api/warm", guarded(state.warm), methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    app.state.checks = state.checks  # told by spg.cli.serve when the server stops (spg.serve.worker)
    return app
