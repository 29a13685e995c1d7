"""``spg serve``: the checker and the drafter in a browser, a local web app (docs/serve.md).

Settings and the suppression file are checked, and the port taken, before the server starts; the model is only
named here and loads at the first draft, so the page answers in about a second.
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from spg.cli.command import add_command
from spg.errors import InputError, shown
from spg.lint.check import RESTATEMENT_MODES
from spg.lint.suppress import CONFIG_NAME, find_config

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "serve", run,
                    summary="check and draft claims in a browser (a local web app)",
                    description="""
        Start a local web app with two tabs. Check: paste or open claims (text, JSON or Word .docx) and see the claim
        tree and every finding as you type; suppress a finding with a click (saved to the suppression file only when
        you press Save); download the HTML report, the JSON, or your .docx with each finding as a Word comment. Draft:
        paste or open a description (text or .docx) and watch claims appear as the model writes them, each checked as
        it closes; download them as text or .docx. The model loads at the first draft; one draft runs at a time, others
        wait in a queue, and checks never wait for a draft. Only this computer can reach the app unless --host says
        otherwise; stop it with Ctrl-C.""")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only; 0.0.0.0 lets every computer "
                        "that can reach this one use the app, without any login)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0: any free port)")
    p.add_argument("--model", help="the drafting model, as spg generate takes it: SPG artefact dir or HF chat model "
                                   "name/path (default: the shipped spg-smollm2)")
    p.add_argument("--config", metavar="FILE", help="YAML file with generation settings, as spg generate --config")
    p.add_argument("--max-new-tokens", type=int, help="generation budget per draft (default: the model's settings)")
    p.add_argument("--lint-config", metavar="FILE",
                   help=f"suppression file: read at start, written by Save (default: the nearest {CONFIG_NAME} in "
                        f"this folder or above, else ./{CONFIG_NAME}); spg writes only a new file or one it wrote")
    p.add_argument("--max-upload-mb", type=float, default=10.0,
                   help="largest request the app takes: an uploaded file, pasted claims (default 10)")
    p.add_argument("--restatement", choices=RESTATEMENT_MODES,
                   help="as spg lint --restatement: rules (default) or read, which adds the learned restatement "
                        "reader's warnings to every check, and has the drafts' checker redraw a claim it flags, as "
                        "spg generate --restatement (docs/lint.md, 'The restatement reader'; config key restatement)")
    p.add_argument("--check-seconds", type=float, default=60.0,
                   help="longest one check may run, in a worker process of its own; past it the page gets one line "
                        "saying so (default 60); a check whose page left is stopped at once")


def _generate_config(args: argparse.Namespace):
    """spg generate's settings for the drafts (model settings < --config < flags), values checked; the model is
    looked for (a folder, a shipped name) but its tokenizer and weights are read at the first draft."""
    from spg.config import Invalid, check_model, flags_from, load_config
    from spg.generation.config import GenerateConfig, model_settings
    from spg.model.config import EMBEDDED
    from spg.pretrained import SHIPPED

    flags = flags_from(args, GenerateConfig)
    model = load_config(GenerateConfig, args.config, flags=flags, checked=False).model
    config = load_config(GenerateConfig, args.config, flags=flags, base=model_settings(model))
    try:
        check_model("--model", config.model, shipped=(EMBEDDED, *SHIPPED))
    except Invalid as err:
        raise InputError(str(err)) from None
    return config


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, taken now so that a busy port is one line before anything starts."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as e:
        raise InputError(f"--host {shown(host)}: not an address of this computer ({e}); expected e.g. 127.0.0.1") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise InputError(f"--host {shown(host)} --port {port}: cannot listen there ({e.strerror or e}); "
                         "expected a free port (--port 0 picks one)") from None
    return sock


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise InputError(f"--port must be 0 to 65535, got {args.port}")
    if not args.max_upload_mb > 0:
        raise InputError(f"--max-upload-mb must be above 0, got {args.max_upload_mb}")
    if not args.check_seconds > 0:
        raise InputError(f"--check-seconds must be above 0, got {args.check_seconds}")
    config = _generate_config(args)
    suppression_file = Path(args.lint_config) if args.lint_config else (find_config(Path.cwd()) or Path(CONFIG_NAME))
    try:
        import uvicorn

        from spg.serve.app import Settings, build_app
    except ImportError as e:
        raise InputError(f"spg serve needs the serve extra ({e.name} is missing); install it with "
                         "pip install 'spg[serve]'") from None
    from spg.serve.drafter import Drafter

    settings = Settings(int(args.max_upload_mb * 2**20), suppression_file, args.host, args.check_seconds,
                        config.decode.restatement)
    drafter = Drafter(config)
    app = build_app(settings, drafter)  # reads the suppression file: a malformed one is bad input, now
    sock = _listen(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown_host = f"[{host}]" if ":" in host else host
    print(f"spg serve: http://{shown_host}:{port}/ (model {config.model}, loaded at the first draft; suppressions: "
          f"{suppression_file}; Ctrl-C stops)", file=sys.stderr, flush=True)
    if args.host not in LOOPBACK:
        print(f"spg serve: warning: listening on {args.host}: anyone who can reach this computer can use the app",
              file=sys.stderr, flush=True)
    try:
        # an open draft stream must not hold Ctrl-C up: the drafter stops at its next token (Drafter.close)
        server_config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
        server = uvicorn.Server(server_config)
        app.state.checks.stopping = lambda: server.should_exit  # running checks end at once (spg.serve.worker)
        app.state.checks.warm_up()
        server.run(sockets=[sock])
    finally:
        drafter.close()
        sock.close()
    return 0
