"""``spg generate`` end to end on tiny saved models: SPG artefacts, zero-shot chat models, kill and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tiny import tiny_llama, tiny_tokenizer

from spg.cli import main
from spg.cli.generate import CLAIM_WIDTH, claim_lines, print_forest
from spg.docx import read_docx
from spg.errors import InputError
from spg.forest import Claim, Forest
from spg.generation.generator import forest_json
from spg.generation.pointer_decode import Generated
from spg.generation.runner import finished_ids
from spg.linearize import DEP, DEP_END, EOT, IND, IND_END
from spg.lint import lint_lines, tree_lines
from spg.model.spg_model import SPGConfig, SPGModel
from spg.parse import claim_parents, parse_claims

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    """A tiny chat model directory and a tiny SPG artefact trained from nothing on top of it."""
    root = tmp_path_factory.mktemp("models")
    base = root / "base"
    tiny_llama().save_pretrained(base)
    tiny_tokenizer().save_pretrained(base)
    spg = SPGModel.from_base(SPGConfig(base_model=str(base), lora_r=4))
    spg.save_pretrained(root / "spg")
    return {"base": base, "spg": root / "spg"}


def write_docs(path: Path, n: int) -> Path:
    with path.open("w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"doc{i}", "description": f"A chair number {i}.", "claims": "1. A chair."}) + "\n")
    return path


def ids_in(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines()]


def test_spg_artefact_generates_constrained_valid_forests_by_default(models, tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    docs = write_docs(tmp_path / "docs.jsonl", 3)
    code = main(["generate", "--model", str(models["spg"]), "--input", str(docs), "--output", str(out),
                 "--max-new-tokens", "24", "--temperature", "1.0", "--no-progress"])
    assert code == 0
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in results] == ["doc0", "doc1", "doc2"]
    # A random tiny model never ends a claim by itself within 24 tokens, so the grammar closes the last one at the
    # budget and it is left out (spg.generation.whole_claims): what is left is a valid forest or nothing.
    assert all(r["mode"] == "spg" and (r["valid"] or (not r["forest"] and r["cut_by_budget"])) for r in results)
    assert "== doc0 (spg" in capsys.readouterr().out


def test_chat_model_runs_zero_shot_on_a_text_file(models, tmp_path, capsys):
    text = tmp_path / "stool.txt"
    text.write_text("A folding stool with a gravity lock.")
    code = main(["generate", "--model", str(models["base"]), "--input", str(text), "--max-new-tokens", "16",
                 "--max-prompt-tokens", "1400", "--no-progress"])
    assert code == 0
    assert "== stool (zero-shot, " in capsys.readouterr().out


def test_descriptions_without_claims_are_generation_input(models, tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "stool", "description": "A folding stool with a gravity lock."}) + "\n")
    out = tmp_path / "out.jsonl"
    code = main(["generate", "--model", str(models["base"]), "--input", str(docs), "--output", str(out),
                 "--max-new-tokens", "4", "--no-progress"])
    assert code == 0
    assert ids_in(out) == ["stool"]


def test_each_output_is_printed_in_full_with_the_lint_diagnostics_and_antecedent_warnings(capsys):
    claims = [(1, "A chair comprising a seat.", []), (2, "The chair of claim 1, wherein the lever is red.", [1]),
              (3, "The chair of claim 9.", [9])]
    result = {"id": "d", "mode": "spg", "new_tokens": 9, "raw": "", "valid": False, "reasons": ["dangling parent"],
              "forest": [{"num": n, "text": t, "parents": p} for n, t, p in claims]}
    print_forest(result)
    out = capsys.readouterr().out.splitlines()
    forest = Forest.from_claims(Claim(n, t, tuple(p)) for n, t, p in claims)
    assert out == ["== d (spg, 9 new tokens)", "1. A chair comprising a seat.",
                   "2. The chair of claim 1, wherein the lever is red.", "3. The chair of claim 9.", "",
                   *lint_lines(forest), "invalid tagged output: dangling parent"]
    assert any("[missing-parent]" in line for line in out) and any("[antecedent]" in line for line in out)


def test_a_claim_set_the_checker_ended_says_so(capsys):
    result = {"id": "d", "mode": "spg", "new_tokens": 9, "raw": "", "valid": True, "ended_by_checker": True,
              "forest": [{"num": 1, "text": "A chair comprising a seat.", "parents": []}]}
    print_forest(result)
    out = capsys.readouterr().out
    assert "the checker ended the claim set after claim 1" in out and "`redraws`" in out


def test_with_the_reader_the_printed_lint_is_spg_lint_restatement_read_on_the_same_claims(tmp_path, capsys):
    from test_lint_meaning import RESTATED

    forest = parse_claims(RESTATED)
    result = {"id": "d", "mode": "zero-shot", "new_tokens": 9, "raw": RESTATED, "valid": None,
              "forest": forest_json(forest)}
    path = tmp_path / "claims.txt"
    path.write_text(RESTATED, encoding="utf-8")
    printed = {}
    for mode in ("rules", "read"):
        print_forest(result, restatement=mode)
        printed[mode] = capsys.readouterr().out.split("\n\n", 1)[1]  # after the claims in full
        assert main(["lint", "--no-config", "--restatement", mode, str(path)]) == 0
        assert printed[mode] == capsys.readouterr().out
    assert "[restatement]" in printed["read"] and "[restatement]" not in printed["rules"]


def test_the_restatement_flag_and_key_reach_the_checker_and_the_printed_lint(models, tmp_path, monkeypatch, capsys):
    import spg.cli.generate as generate_cli
    from spg.generation.redraw import ClaimCheck

    modes = {}
    reading, printing = ClaimCheck.reading.__func__, generate_cli.print_forest
    monkeypatch.setattr(ClaimCheck, "reading", classmethod(
        lambda cls, mode="rules": modes.setdefault("checker", mode) and reading(cls, mode)))
    monkeypatch.setattr(generate_cli, "print_forest", lambda result, description=None, restatement="rules": (
        modes.setdefault("printed", restatement), printing(result, description, restatement)))
    text = tmp_path / "stool.txt"
    text.write_text("A folding stool with a gravity lock.")
    config = tmp_path / "read.yaml"
    config.write_text("restatement: read\n")
    command = ["generate", "--model", str(models["spg"]), "--input", str(text), "--max-new-tokens", "8",
               "--no-progress"]
    for flags, mode in (([], "rules"), (["--config", str(config)], "read"), (["--config", str(config),
                        "--restatement", "rules"], "rules"), (["--restatement", "read"], "read")):
        modes.clear()
        assert main([*command, *flags]) == 0
        assert modes == {"checker": mode, "printed": mode}, flags
    capsys.readouterr()


def test_a_bad_restatement_value_names_the_file_and_the_key(tmp_path, capsys):
    config = tmp_path / "gen.yaml"
    config.write_text("restatement: reader\n")
    assert main(["generate", "--config", str(config), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "gen.yaml" in err and "restatement must be one of rules, read, got 'reader'" in err


def test_constrained_decoding_is_refused_for_a_zero_shot_model(models, tmp_path, capsys):
    text = tmp_path / "stool.txt"
    text.write_text("A stool.")
    code = main(["generate", "--model", str(models["base"]), "--input", str(text), "--constrained", "--no-progress"])
    assert code == 2
    assert "constrained decoding needs a trained SPG model" in capsys.readouterr().err


def test_missing_input_is_reported(tmp_path, capsys):
    assert main(["generate", "--input", str(tmp_path / "nope.jsonl"), "--no-progress"]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


@pytest.mark.slow  # a launched process, killed mid-run
def test_killed_run_resumes_to_exactly_one_output_per_document(models, tmp_path, capsys):
    docs = write_docs(tmp_path / "docs.jsonl", 24)
    out = tmp_path / "out.jsonl"
    args = ["generate", "--model", str(models["spg"]), "--input", str(docs), "--output", str(out),
            "--batch-size", "1", "--max-new-tokens", "16", "--no-progress"]
    cmd = [sys.executable, "-c", "import sys; from spg.cli import main; sys.exit(main(sys.argv[1:]))", *args]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if out.exists() and len(out.read_bytes().splitlines()) >= 3:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(finished_ids(out))  # also drops a line the kill cut short
    assert 3 <= done_before < 24
    assert main(args) == 0  # the re-run, in this process
    ids = ids_in(out)
    assert sorted(ids) == sorted(f"doc{i}" for i in range(24))
    assert len(ids) == len(set(ids))
    assert f"{done_before} already in" in capsys.readouterr().err


def test_shipped_configs_load_and_the_paper_one_has_the_paper_settings():
    from spg.generation.config import GenerateConfig

    paper = GenerateConfig.load(REPO / "configs/paper/generate.yaml")
    decode = paper.decode
    assert (decode.temperature, decode.do_sample, decode.max_new_tokens, paper.max_prompt_tokens) == (0.1, True, 1024, 7168)
    assert paper.constrained is False
    assert GenerateConfig.load(REPO / "configs/cpu/generate-smollm2.yaml").zero_shot


def test_unknown_config_setting_names_the_file_and_the_key(tmp_path, capsys):
    config = tmp_path / "gen.yaml"
    config.write_text("temprature: 0.5\n")
    assert main(["generate", "--config", str(config), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "gen.yaml" in err and "temprature" in err


def test_a_models_own_generate_yaml_sets_its_defaults_under_the_config_file_and_flags(models, tmp_path):
    from spg.cli import build_parser
    from spg.cli.generate import settings as _settings
    from spg.generation.config import GenerateConfig

    (models["spg"] / "generate.yaml").write_text("no_repeat_ngram_size: 16\nmax_new_tokens: 300\ntemperature: 0.2\n")
    try:
        flags = [("--model", "model", str(models["spg"]))]
        assert GenerateConfig.load(flags=flags).decode.no_repeat_ngram_size == 16
        base = [("--model", "model", str(models["base"]))]
        assert GenerateConfig.load(flags=base) == GenerateConfig(model=str(models["base"]))
        config_file = tmp_path / "g.yaml"
        config_file.write_text("max_new_tokens: 200\n")
        args = build_parser().parse_args(
            ["generate", "--config", str(config_file), "--model", str(models["spg"]), "--temperature", "0.5"]
        )
        decode = _settings(args).decode
        assert (decode.no_repeat_ngram_size, decode.max_new_tokens, decode.temperature) == (16, 200, 0.5)
    finally:
        (models["spg"] / "generate.yaml").unlink()


def test_a_stage2_artefact_without_tokenizer_files_uses_its_stage1_tokenizer(models, tmp_path):
    import shutil

    from spg.model.spg_model import SPGConfig as Config

    stage1 = tmp_path / "stage1"
    shutil.copytree(models["spg"], stage1)
    stage2 = tmp_path / "stage2"
    shutil.copytree(models["spg"], stage2)
    config = Config.load(stage2)
    config.stage1 = str(stage1)
    config.save(stage2)
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "special_tokens_map.json"):
        (stage2 / name).unlink(missing_ok=True)
    model = SPGModel.from_pretrained(stage2)
    assert model.tokenizer.convert_tokens_to_ids("<eot>") == model.structure_ids["<eot>"]


def test_an_unknown_shipped_name_is_not_a_shipped_model():
    from spg.model.config import shipped_path

    assert shipped_path("no-such-model") is None


@pytest.mark.slow
def test_the_readme_main_job_drafts_a_valid_forest_with_dependent_claims_with_the_shipped_model(tmp_path, capsys):
    """The README's main job (`spg generate` with no model and no input: the shipped spg-smollm2 on the example
    description), with the README's budget."""
    out = tmp_path / "out.jsonl"
    code = main(["generate", "--max-new-tokens", "256", "--output", str(out), "--no-progress"])
    assert code == 0
    [result] = [json.loads(line) for line in out.read_text().splitlines()]
    assert result["mode"] == "spg" and result["valid"], result["reasons"]
    assert any(claim["parents"] for claim in result["forest"]), result["raw"]
    assert "dependent" in capsys.readouterr().out


def generate_args(models: dict[str, Path], docs: Path, out: Path, *extra: str) -> list[str]:
    return ["generate", "--model", str(models["spg"]), "--input", str(docs), "--output", str(out), "--greedy",
            "--batch-size", "1", "--max-new-tokens", "16", "--no-progress", *extra]


def test_sharded_generation_merges_into_the_unsharded_output_and_resumes(models, tmp_path, capsys):
    docs = write_docs(tmp_path / "docs.jsonl", 7)
    whole, sharded = tmp_path / "whole.jsonl", tmp_path / "sharded.jsonl"
    assert main(generate_args(models, docs, whole)) == 0
    assert main(generate_args(models, docs, sharded, "--shard", "1/3")) == 0
    first = ids_in(sharded)
    assert 0 < len(first) < 7  # one shard's documents only, merged as soon as that shard ended
    for shard in ("0/3", "2/3"):
        assert main(generate_args(models, docs, sharded, "--shard", shard)) == 0
    assert sorted(sharded.read_text().splitlines()) == sorted(whole.read_text().splitlines())  # the same results
    assert ids_in(sharded)[: len(first)] == first  # shard 1's, merged when it ended, in input order
    assert ids_in(tmp_path / "sharded.shard-1-of-3.jsonl") == first
    capsys.readouterr()
    assert main(generate_args(models, docs, sharded, "--shard", "0/3")) == 0  # a re-run: nothing left to do
    assert "0 generated" in capsys.readouterr().err
    assert sorted(sharded.read_text().splitlines()) == sorted(whole.read_text().splitlines())


def test_a_shard_is_a_rule_on_the_document_id():
    from spg.generation.runner import shard_of

    ids = [f"US{i}" for i in range(400)]
    shards = [shard_of(i, 4) for i in ids]
    assert shards == [shard_of(i, 4) for i in ids] and set(shards) == {0, 1, 2, 3}
    assert min(shards.count(s) for s in range(4)) > 60  # roughly balanced


def test_a_multi_process_launch_shards_by_rank_and_a_bad_shard_is_one_clear_line(tmp_path, monkeypatch, capsys):
    from spg.cli.generate import parse_shard

    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    assert parse_shard(None) == (1, 2)
    assert parse_shard("0/4") == (0, 4)
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setenv("RANK", "0")
    assert parse_shard(None) is None
    monkeypatch.setenv("WORLD_SIZE", "two")
    with pytest.raises(InputError, match="WORLD_SIZE='two'"):
        parse_shard(None)
    monkeypatch.setenv("WORLD_SIZE", "1")
    docs = write_docs(tmp_path / "docs.jsonl", 2)
    assert main(["generate", "--input", str(docs), "--output", str(tmp_path / "o.jsonl"), "--shard", "4/4"]) == 2
    assert "--shard 4/4: expected I/N with 0 <= I < N" in capsys.readouterr().err
    assert main(["generate", "--input", str(docs), "--shard", "0/2"]) == 2
    assert "needs --output" in capsys.readouterr().err


def test_the_batch_is_4_documents_on_the_cpu_and_16_on_a_gpu_unless_set():
    from spg.generation.config import GenerateConfig

    assert GenerateConfig().batch_size_on("cpu") == 4
    assert GenerateConfig().batch_size_on("cuda") == 16
    assert GenerateConfig(batch_size=7).batch_size_on("cuda") == 7
    assert GenerateConfig.load().batch_size is None  # the shipped model leaves it to the device


def test_documents_are_decoded_longest_first_unless_switched_off():
    from spg.cli import build_parser
    from spg.cli.generate import settings as _settings

    assert _settings(build_parser().parse_args(["generate"])).sort_by_length is True
    assert _settings(build_parser().parse_args(["generate", "--no-sort-by-length"])).sort_by_length is False


def test_a_long_claim_is_printed_whole_wrapped_under_its_number():
    text = "A chair comprising " + ", ".join(f"a leg-{i} fixed to the seat-frame" for i in range(20)) + "."
    lines = claim_lines(Forest.from_claims([Claim(1, text, ())]))
    assert len(lines) == 1 and "\n" in lines[0]
    rows = lines[0].split("\n")
    assert all(len(r) <= CLAIM_WIDTH for r in rows) and all(r.startswith("   ") for r in rows[1:])
    assert " ".join(r.strip() for r in rows) == "1. " + text


# An SPG output whose words and pointer disagree (issue 42): claims 3 and 4 say "of claim 2", the pointer chose
# claim 1; claim 5 names no parent and the pointer chose claim 2.
DISAGREEING = (f"{IND}A chair comprising a seat and a back.{IND_END}"
               f"{DEP}The chair of claim 1, wherein the seat is round.{DEP_END}"
               f"{DEP}The chair of claim 2, wherein the back is tall.{DEP_END}"
               f"{DEP}The chair of claim 2, wherein the seat is red.{DEP_END}"
               f"{DEP}The chair, wherein the back is red.{DEP_END}{EOT}")
POINTER = [None, 0, 0, 0, 1]


def test_one_draft_says_one_claim_set_in_its_record_printout_and_word_document(models, tmp_path, capsys, monkeypatch):
    import spg.generation.generator as generator

    def decoded(request):  # the model's output, as generate_batch returns it
        return [Generated([], DISAGREEING, POINTER) for _ in request.prompts]

    monkeypatch.setattr(generator, "generate_batch", decoded)
    (tmp_path / "chair.txt").write_text("A chair has a seat and a back.")
    out, word = tmp_path / "r.jsonl", tmp_path / "claims.docx"
    code = main(["generate", "--model", str(models["spg"]), "--input", str(tmp_path / "chair.txt"), "--output", str(out),
                 "--docx", str(word), "--no-progress"])
    assert code == 0
    (result,) = [json.loads(line) for line in out.read_text().splitlines()]
    claims = [(c["num"], c["text"], tuple(c["parents"])) for c in result["forest"]]
    assert [p for _, _, p in claims] == [(), (1,), (1,), (1,), (2,)] and result["pointer_parents"] == POINTER
    assert result["raw"] == DISAGREEING  # the model's words, for scoring
    for num, text, parents in claims:
        assert claim_parents(text, num) == parents, text
    assert [(c.num, c.text, c.parents) for c in parse_claims(result["claims_text"]).claims] == claims
    assert [(c.num, c.text, c.parents) for c in parse_claims(read_docx(word.read_bytes(), "c").claims_text).claims] == claims
    printed = capsys.readouterr().out
    forest = Forest.from_claims(Claim(*c) for c in claims)
    assert printed.splitlines()[1:6] == claim_lines(forest)
    assert "\n".join(tree_lines(forest)) in printed


def test_a_draft_with_no_claims_writes_no_claims_document_and_exits_1(models, tmp_path, capsys):
    (tmp_path / "chair.txt").write_text("A chair has a seat.")
    word = tmp_path / "claims.docx"
    # A random tiny model closes no claim in 6 tokens: the token budget ends claim 1 (spg.generation.whole_claims).
    code = main(["generate", "--model", str(models["spg"]), "--input", str(tmp_path / "chair.txt"), "--docx", str(word),
                 "--max-new-tokens", "6", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and not word.exists()
    assert [line for line in err.splitlines() if "claims.docx" in line] == [
        f"{word}: not written: the draft of chair has no claims (the token budget ended claim 1; a larger "
        "--max-new-tokens gives more)"]


def test_the_printout_reports_what_spg_lint_reports_with_the_description(tmp_path, capsys):
    claims = [(1, "A chair comprising a seat and a gimbal.", ()), (2, "The chair of claim 1, wherein the seat is red.", (1,))]
    description = "A chair has a seat, which is red."
    result = {"id": "d", "mode": "spg", "new_tokens": 9, "raw": "", "valid": True,
              "forest": [{"num": n, "text": t, "parents": list(p)} for n, t, p in claims]}
    print_forest(result, description)
    printed = capsys.readouterr().out.splitlines()
    (tmp_path / "c.txt").write_text("\n".join(f"{n}. {t}" for n, t, _ in claims))
    (tmp_path / "d.txt").write_text(description)
    main(["lint", "--no-config", "--description", str(tmp_path / "d.txt"), str(tmp_path / "c.txt")])
    linted = capsys.readouterr().out.splitlines()
    assert any("[description-support]" in line and "gimbal" in line for line in linted)
    assert printed[4:] == linted
