"""Only whole claims: the claim the token budget ended is left out of what spg prints and writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from tiny import tiny_llama, tiny_tokenizer

from spg.data import Record
from spg.evaluate import evaluate, read_prediction_file
from spg.forest import Claim, Forest
from spg.generation.generator import ClaimGenerator
from spg.generation.pointer_decode import DecodeSettings
from spg.generation.prompts import ZERO_SHOT_INSTRUCTION
from spg.generation.runner import Document, run
from spg.generation.whole_claims import whole_plain, whole_tagged
from spg.linearize import DEP_END, EOT, IND_END, cite_parents, parse_tagged
from spg.model.batch import INSTRUCTION
from spg.model.spg_model import SPGConfig, SPGModel

# token ids for the pure functions: OPEN_I <ind>, I_END </ind>, OPEN_D <dep>, D_END </dep>, END <eot>, 5.. text
OPEN_I, I_END, OPEN_D, D_END, END = 1, 2, 3, 4, 9
CLOSING = {I_END, D_END}


def test_a_row_that_stopped_within_the_budget_is_whole_as_it_is():
    ids = [OPEN_I, 5, I_END, OPEN_D, 6, D_END, END]
    assert whole_tagged(ids, 8, CLOSING, END, constrained=True) == (ids, [])
    assert whole_plain("1. A chair.\n2. The chair", ended_by_budget=False) == ("1. A chair.\n2. The chair", "")


def test_the_claim_the_grammar_closed_at_the_budget_is_dropped_and_the_forest_keeps_its_end():
    ids = [OPEN_I, 5, I_END, OPEN_D, 6, 7, D_END, END]  # </dep> and <eot> forced in the budget's last two steps
    kept, cut = whole_tagged(ids, 8, CLOSING, END, constrained=True)
    assert kept == [OPEN_I, 5, I_END, END] and cut == [OPEN_D, 6, 7, D_END]


def test_unconstrained_rows_ended_by_the_budget_stop_at_their_last_closing_tag_without_an_end():
    ids = [OPEN_I, 5, I_END, OPEN_D, 6, 7]
    assert whole_tagged(ids, 6, CLOSING, END, constrained=False) == ([OPEN_I, 5, I_END], [OPEN_D, 6, 7])
    natural = [OPEN_I, 5, I_END, OPEN_D, 6, D_END, END]  # the model itself ended at the last step
    assert whole_tagged(natural, 7, CLOSING, END, constrained=False) == (natural, [])


def test_when_no_claim_fits_nothing_is_kept_as_a_claim():
    ids = [OPEN_I, 5, 6, I_END, END]
    assert whole_tagged(ids, 5, CLOSING, END, constrained=True) == ([END], [OPEN_I, 5, 6, I_END])


def test_plain_claims_ended_by_the_budget_lose_their_unfinished_last_line():
    assert whole_plain("1. A chair.\n2. The chair of", ended_by_budget=True) == ("1. A chair.\n", "2. The chair of")
    assert whole_plain("1. A chair.\n", ended_by_budget=True) == ("1. A chair.\n", "")


@pytest.fixture(scope="module")
def spg():
    """A tiny SPG model that likes structure tokens, with an adapter that changes its outputs."""
    torch.manual_seed(0)
    model = SPGModel.from_base(SPGConfig(lora_r=4), base=tiny_llama(), tokenizer=tiny_tokenizer()).eval()
    tag_ids = torch.tensor(list(model.structure_ids.values()))
    eot = model.structure_ids[EOT]

    def favour_tags(module, args, logits):
        logits[..., tag_ids] += 4.0
        logits[..., eot] -= 8.0  # forests long enough that a short budget ends them
        return logits

    model.lm.get_output_embeddings().register_forward_hook(favour_tags)
    return model


DOCS = [Document("d1", "A chair with four legs and a seat."), Document("d2", "A lamp."), Document("d3", "A pen.")]


def greedy(spg, budget: int) -> list[dict]:
    settings = DecodeSettings(max_new_tokens=budget, do_sample=False, redraws=0)  # the budget cut alone: no redraws
    return ClaimGenerator(spg.lm, spg.tokenizer, "spg", settings, INSTRUCTION, 512, spg, True)(DOCS)


def claims_of(result: dict) -> list[tuple[str, list[int]]]:
    return [(c["text"], c["parents"]) for c in result["forest"]]


def test_a_budget_ending_mid_claim_leaves_the_claims_the_model_writes_with_a_larger_budget(spg):
    short, long = greedy(spg, 40), greedy(spg, 120)
    assert any(r["cut_by_budget"] for r in short), "no row was cut: the test does not exercise the budget"
    for cut, whole in zip(short, long, strict=True):
        n = len(cut["forest"])
        assert len(whole["forest"]) > n or not cut["cut_by_budget"]
        assert claims_of(cut) == claims_of(whole)[:n]  # greedy: the same whole claims, the same pointer parents
        assert cut["pointer_parents"] == whole["pointer_parents"][:n] and len(cut["text_parents"]) == n
        assert cut["new_tokens"] == 40 or not cut["cut_by_budget"]


def test_constrained_outputs_with_a_cut_claim_stay_valid_forests_of_whole_claims(spg):
    results = greedy(spg, 40)
    assert any(r["cut_by_budget"] and r["forest"] for r in results)
    for result in results:
        assert result["raw"].endswith(EOT)
        assert result["valid"] or not result["forest"], result["reasons"]
        parsed = cite_parents(parse_tagged(result["raw"], parents=result["pointer_parents"]).forest)
        assert [c.text for c in parsed.claims] == [c["text"] for c in result["forest"]]


def test_the_summary_counts_the_claims_the_budget_ended_and_evaluate_reads_only_whole_claims(spg, tmp_path: Path):
    settings = DecodeSettings(max_new_tokens=40, do_sample=False, redraws=0)
    generator = ClaimGenerator(spg.lm, spg.tokenizer, "spg", settings, INSTRUCTION, 512, spg, True)
    out = tmp_path / "out.jsonl"
    summary = run(DOCS, generator, out, batch_size=3, progress=False)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary.cut_claims == sum(bool(r["cut_by_budget"]) for r in lines) > 0
    gold = Forest.from_claims([Claim(1, "A chair comprising a seat."), Claim(2, "The chair of claim 1, wherein x.", (1,))])
    system = read_prediction_file(out)
    report = evaluate([system], [Record(d.id, d.description, gold, gold_links=True) for d in DOCS],
                      bertscore=False, progress=False)
    assert report.rows[0].valid == 1.0  # whole claims and their pointer parents: every forest valid
    assert [system.predictions[r["id"]].raw for r in lines] == [r["raw"] for r in lines]


def test_zero_shot_output_ended_by_the_budget_loses_its_unfinished_line():
    tok, model = tiny_tokenizer(), tiny_llama()
    newline = tok.encode("\n", add_special_tokens=False)

    def favour_newlines(module, args, logits):
        logits[..., newline] += 2.0
        return logits

    model.get_output_embeddings().register_forward_hook(favour_newlines)
    generator = ClaimGenerator(model, tok, "zero-shot", DecodeSettings(max_new_tokens=30, temperature=1.0),
                               ZERO_SHOT_INSTRUCTION, 1400)
    cut_lines = 0
    for seed in range(8):
        torch.manual_seed(seed)
        (result,) = generator([Document("z", "A chair.")])
        full = result["raw"] + result["cut_by_budget"]
        if result["new_tokens"] == 30:
            assert result["raw"] == full[: full.rfind("\n") + 1]
            cut_lines += bool(result["raw"] and result["cut_by_budget"])
        else:
            assert not result["cut_by_budget"]
    assert cut_lines, "no output had both a whole line and a cut one: the test does not exercise the budget"


@pytest.mark.slow
def test_the_shipped_model_leaves_out_the_claim_its_budget_ends_and_keeps_the_whole_ones():
    """The README's main job cut short: the shipped model on the example description, greedy, with a budget that
    ends mid-claim, against the same decoding with a larger budget."""
    import dataclasses

    from spg.cli.generate import example_path
    from spg.generation.config import GenerateConfig
    from spg.generation.generator import load_generator

    def shipped(budget: int) -> DecodeSettings:  # the shipped model's own decoding (generate.yaml), greedy
        # the checker off: a budget that cuts a claim is what is tested, not which claims the checker lets through
        return dataclasses.replace(GenerateConfig.load().decode, max_new_tokens=budget, do_sample=False, redraws=0)

    docs = [Document("example", example_path().read_text())]
    generator = load_generator("spg-smollm2", shipped(192), max_prompt_tokens=1280,
                               device="cpu")
    (short,) = generator(docs)
    (long,) = dataclasses.replace(generator, settings=shipped(384))(docs)
    assert short["cut_by_budget"] and short["new_tokens"] == 192, short["raw"]
    n = len(short["forest"])
    assert 0 < n < len(long["forest"])
    assert claims_of(short) == claims_of(long)[:n] and short["pointer_parents"] == long["pointer_parents"][:n]
    assert short["valid"] and short["raw"].endswith(EOT)
    begun = short["cut_by_budget"].removesuffix(DEP_END).removesuffix(IND_END)  # the grammar's closing tag
    assert long["raw"].startswith(short["raw"][: -len(EOT)] + begun)  # the cut claim, as the model began it
