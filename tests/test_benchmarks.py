"""benchmarks/ as products: every script answers --help and finds the shared data through SPG_DATA_DIR
(benchmarks/common.py), never through a path written into it (docs/investigations.md)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

SCRIPTS = sorted(p for p in (REPO / "benchmarks").rglob("*.py") if p.name != "common.py")


def test_no_benchmark_writes_the_shared_data_path_into_itself():
    assert len(SCRIPTS) >= 13
    for script in SCRIPTS:
        assert "../shared" not in script.read_text(encoding="utf-8"), f"{script}: use common.shared_file"


# Runs each script as ``python SCRIPT --help`` would (as __main__, its folder first on sys.path, in an empty folder
# of its own with SPG_DATA_DIR there), one after another in one process, and prints a JSON line per script: a
# process per script spent most of its ~2-8 s importing torch and transformers, over a minute of CI in all.
HELP_DRIVER = """
import contextlib, io, json, os, runpy, sys
for script, folder in json.loads(sys.argv[1]):
    out, err, code = io.StringIO(), io.StringIO(), 0
    os.chdir(folder)
    os.environ["SPG_DATA_DIR"] = folder
    sys.argv, saved_path = [script, "--help"], list(sys.path)
    sys.path.insert(0, os.path.dirname(script))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except BaseException as failure:
            code, _ = 1, print(repr(failure), file=err)
    sys.path[:] = saved_path
    print(json.dumps([script, code, out.getvalue(), err.getvalue()]), file=sys.__stdout__, flush=True)
"""


@pytest.fixture(scope="module")
def help_runs(tmp_path_factory) -> dict:
    """Every script's ``--help`` (:data:`HELP_DRIVER`): script -> (exit code, stdout, stderr)."""
    jobs = [(str(script), str(tmp_path_factory.mktemp("help"))) for script in SCRIPTS]
    done = subprocess.run([sys.executable, "-c", HELP_DRIVER, json.dumps(jobs)], capture_output=True, text=True,
                          timeout=600)
    answers = {Path(script): (code, out, err) for script, code, out, err in map(json.loads, done.stdout.splitlines())}
    assert len(answers) == len(SCRIPTS), done.stderr[-2000:]
    return answers


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(REPO / "benchmarks")))
def test_every_benchmark_answers_help(script, help_runs):
    code, out, err = help_runs[script]
    assert code == 0 and out.startswith("usage:"), err[-2000:]


def _expanded(pattern: str) -> set[str]:
    """``a{1,2}b`` → {a1b, a2b}, every brace group in turn (the cards name a family of files this way)."""
    head, brace, rest = pattern.partition("{")
    if not brace:
        return {pattern}
    options, _, tail = rest.partition("}")
    return {head + o + t for o in options.split(",") for t in _expanded(tail)}


def test_the_sets_sit_apart_from_the_scripts_each_on_a_card():
    # a labelled set beside the scripts, or one no card describes, is data nobody can tell the origin of
    folder = REPO / "benchmarks" / "sets"
    assert not sorted((REPO / "benchmarks").glob("*.jsonl")), "labelled and written sets belong in benchmarks/sets/"
    named = {n if n.endswith(".jsonl") else n + ".jsonl" for token in re.findall(r"`([^`\s]+)`",
             (folder / "README.md").read_text(encoding="utf-8")) for n in _expanded(token)}
    sets = sorted(p.name for p in folder.glob("*.jsonl"))
    assert len(sets) >= 29 and [s for s in sets if s not in named] == []


FIVE_KINDS = {"error-free", "non-distinctive repetition", "preamble inconsistency", "verbose redundancy",
              "broadening or contradicting"}
TWO_KINDS = {"error-free", "non-distinctive repetition"}


@pytest.mark.parametrize(("name", "sides", "size", "kinds"), [
    ("lint_next_claim_devset.jsonl", ("train", "dev"), 240, FIVE_KINDS),
    ("lint_next_claim_devset2.jsonl", ("train",), 250, FIVE_KINDS),
    ("lint_next_claim_devset3.jsonl", ("test",), 245, FIVE_KINDS),
    ("lint_next_claim_devset4.jsonl", ("test",), 200, FIVE_KINDS),
    ("lint_next_claim_devset5.jsonl", ("train",), 200, TWO_KINDS),
    ("lint_next_claim_devset6.jsonl", ("test",), 105, TWO_KINDS),
])
def test_each_written_next_claim_reads_as_claim_k_plus_1_of_a_document_of_its_side(name, sides, size, kinds,
                                                                                    uspto_path):
    # the blind sets are scored against the shared claim sets; a row that no longer fits its document would be
    # scored as something else (docs/lint.md, "Next claims written with errors")
    import json

    from spg.data import checker_split, load_records
    from spg.parse import parse_claims

    documents = {r.id: r for r in load_records(uspto_path)}
    rows = [json.loads(line) for line in (REPO / "benchmarks" / "sets" / name).read_text(encoding="utf-8").splitlines()]
    assert len(rows) == size and {r["category"] for r in rows} == kinds
    for r in rows:
        assert checker_split(r["id"]) in sides, r["id"]
        nums = {c.num for c in documents[r["id"]].claims.claims}
        (claim,) = parse_claims(r["candidate"]).claims
        assert claim.num == r["k"] + 1 and r["k"] in nums, (r["id"], r["k"])
        assert all(p in nums and p <= r["k"] for p in claim.parents), (r["id"], r["k"], claim.parents)


@pytest.mark.slow
def test_the_size_benchmark_measures_every_class_in_a_process_of_its_own():
    # the figures themselves are the script's to print (docs/lint.md), never a test's to time
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "lint_sizes.py"), "--quick"], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines()[1:-1]]
    assert [r[0] for r in rows] == [name for name in ("line", "flat", "chained", "citations", "json")
                                    for _ in range(2)], done.stdout
    assert all(float(r[2]) > 0 and float(r[5]) > 0 for r in rows) and all("/3" in r[4] for r in rows[1::2])
