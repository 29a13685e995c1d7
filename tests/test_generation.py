"""Generation on a tiny random model: pointer from the same pass, constrained forests, prompts, resumable runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from tiny import tiny_llama, tiny_tokenizer
from transformers import LogitsProcessorList

from spg.data import Record, load_records
from spg.evaluate import evaluate, read_prediction_file
from spg.files import marked
from spg.forest import Claim, Forest
from spg.generation.generator import ClaimGenerator, tagged_result
from spg.generation.pointer_decode import (
    DecodeSettings,
    Generated,
    StateRecorder,
    left_pad,
    pointer_parents,
    tagged_claims,
)
from spg.generation.prompts import ZERO_SHOT_INSTRUCTION
from spg.generation.runner import RESULT, Document, finished_ids, run
from spg.linearize import (
    DEP,
    DEP_END,
    EOT,
    IND,
    IND_END,
    SEP,
    STRUCTURE_TOKENS,
    cite_parents,
    parse_tagged,
    scored_text,
)
from spg.model.batch import INSTRUCTION
from spg.model.prompt import build_prompt
from spg.model.spg_model import SPGConfig, SPGModel
from spg.model.tokens import structure_token_ids
from spg.parse import claim_parents, parse_claims


@pytest.fixture(scope="module")
def spg():
    """A tiny SPG model that likes structure tokens, so short runs contain several trees and dependents."""
    model = SPGModel.from_base(SPGConfig(lora_r=4), base=tiny_llama(), tokenizer=tiny_tokenizer()).eval()
    tag_ids = torch.tensor(list(model.structure_ids.values()))

    def favour_tags(module, args, logits):
        logits[..., tag_ids] += 4.0
        return logits

    model.lm.get_output_embeddings().register_forward_hook(favour_tags)
    return model


def spg_generator(spg, max_new_tokens=48, constrained=True, redraws=4) -> ClaimGenerator:
    settings = DecodeSettings(max_new_tokens=max_new_tokens, temperature=1.0, redraws=redraws)
    return ClaimGenerator(spg.lm, spg.tokenizer, "spg", settings, INSTRUCTION, 512, spg, constrained)


DOCS = [Document("d1", "A chair with four legs and a seat."), Document("d2", "A lamp."), Document("d3", "A pen.")]


def test_step_states_equal_the_teacher_forced_states_of_the_output(spg):
    tok = spg.tokenizer
    prompts = [tok.encode("a longer prompt here"), tok.encode("x")]  # different lengths: left padding
    ids, mask = left_pad(prompts, tok.pad_token_id)
    torch.manual_seed(0)
    recorder = StateRecorder(spg, 12)
    out = spg.lm.generate(input_ids=ids, attention_mask=mask, max_new_tokens=12, min_new_tokens=12,
                          do_sample=True, pad_token_id=tok.pad_token_id, logits_processor=LogitsProcessorList([recorder]))
    states = recorder.states()
    assert states.shape[1] == 11  # the last generated token is never fed back
    for row, prompt in enumerate(prompts):
        full = torch.tensor([prompt + out[row, ids.shape[1]:].tolist()])
        with torch.no_grad():
            teacher = spg.lm(full, output_hidden_states=True).hidden_states[-1][0, len(prompt):]
        torch.testing.assert_close(states[row], teacher[:11], atol=1e-5, rtol=1e-4)


def test_pointer_takes_the_best_earlier_claim_of_the_same_tree_only(spg):
    tok = spg.tokenizer
    t = structure_token_ids(tok)
    a = tok.convert_tokens_to_ids("a")
    # claims: 0 ind | 1 dep | sep | 2 ind | 3 dep | 4 dep ; positions index the states
    ids = [t[IND], a, t[IND_END], t[DEP], a, t[DEP_END], t[SEP], t[IND], a, t[IND_END], t[DEP], a, t[DEP_END],
           t[DEP], a, t[DEP_END], t[EOT]]
    claims = tagged_claims(ids, t)
    assert [(c.kind, c.tree) for c in claims] == [("ind", 0), ("dep", 0), ("ind", 1), ("dep", 1), ("dep", 1)]
    states = torch.zeros(len(ids) - 1, 4)
    for pos in (2, 5, 9, 12):  # closing tags, as one-hot "identities" 0..3
        states[pos, [2, 5, 9, 12].index(pos)] = 1.0
    # Every <dep> prefers claim 1 (tree 0) most, then claim 3, then claim 2: the mask must overrule the scores.
    for pos in (3, 10, 13):
        states[pos] = torch.tensor([0.0, 9.0, 1.0, 5.0])

    def dot(h_dep, h_end):
        return h_dep @ h_end.T

    assert pointer_parents(ids, states, t, dot) == [None, 0, None, 2, 3]
    # Asked at each dependent's own closing tag instead, the <dep> states are not read: closing states that prefer
    # claim 3 (index 2) for claim 4 and claim 4 (index 3) for claim 5 give those parents whatever the <dep>s say.
    closing = torch.zeros(len(ids) - 1, 4)
    closing[2], closing[5], closing[9] = torch.tensor([1.0, 0, 0, 0]), torch.tensor([1.0, 0, 0, 0]), torch.eye(4)[2]
    closing[12], closing[15] = torch.tensor([0, 0, 5.0, 1.0]), torch.tensor([0, 0, 1.0, 5.0])
    assert pointer_parents(ids, closing, t, dot, query="close") == [None, 0, None, 2, 3]


def test_constrained_spg_outputs_are_valid_forests_for_every_seed(spg):
    # the checker off: it would redraw the random model's dependents, which as written ("<text> according to claim
    # 1") add no limitation, until none is left to exercise the pointer
    gen = spg_generator(spg, redraws=0)
    deps = 0
    for seed in range(6):
        torch.manual_seed(seed)
        for result in gen(DOCS):
            assert result["valid"], (seed, result["raw"], result["reasons"])
            assert result["raw"].endswith(EOT) and result["new_tokens"] <= 48
            deps += sum(p is not None for p in result["pointer_parents"])
    assert deps > 0, "the test model never produced a dependent claim; the pointer was not exercised"


def test_result_forest_takes_pointer_parents_and_keeps_text_citations_beside(spg):
    torch.manual_seed(1)
    gen = spg_generator(spg)
    for result in gen(DOCS):
        parse = cite_parents(parse_tagged(result["raw"], parents=result["pointer_parents"]).forest)
        assert result["forest"] == [{"num": c.num, "text": c.text, "parents": list(c.parents)} for c in parse]
        assert len(result["text_parents"]) == len(result["forest"])
        assert result["claims_text"].startswith("1. ")


def agree(result: dict) -> None:
    """The result's claims say in words what its forest says in structure, in every field a user reads."""
    for claim in result["forest"]:
        assert claim_parents(claim["text"], claim["num"]) == tuple(claim["parents"]), claim
    assert [(c.num, c.text, list(c.parents)) for c in parse_claims(result["claims_text"]).claims] == [
        (c["num"], c["text"], c["parents"]) for c in result["forest"]]


def test_an_spg_claim_cites_the_parent_its_pointer_chose_and_the_raw_text_keeps_its_own_words():
    # issue 42: the text says "of claim 2" where the pointer chose claim 1; one claim names no parent at all, one
    # names two; claim 5 hangs under claim 2 after claim 4 (not Eq. 1 order), so nothing may be renumbered.
    raw = (f"{IND}A chair comprising a seat.{IND_END}{DEP}The chair of claim 1, wherein the seat is red.{DEP_END}"
           f"{DEP}The chair of claim 2, wherein the seat is round.{DEP_END}"
           f"{DEP}The chair of claim 1 or 2, further comprising a leg.{DEP_END}"
           f"{DEP}The chair, wherein the leg is steel.{DEP_END}{EOT}")
    pointer = [None, 0, 0, 0, 1]
    result = tagged_result(Generated([], raw, pointer))
    agree(result)
    assert [c["parents"] for c in result["forest"]] == [[], [1], [1], [1], [2]]
    assert result["forest"][2]["text"] == "The chair of claim 1, wherein the seat is round."
    assert result["forest"][4]["text"] == "The chair according to claim 2, wherein the leg is steel."
    assert result["text_parents"] == [[], [1], [2], [1, 2], []] and result["pointer_parents"] == pointer
    assert scored_text(raw).splitlines()[2] == "3. The chair of claim 2, wherein the seat is round."  # scored as written


def test_unconstrained_output_may_be_invalid_but_is_reported(spg):
    gen = spg_generator(spg, max_new_tokens=16, constrained=False)
    torch.manual_seed(0)
    results = [r for _ in range(4) for r in gen(DOCS)]
    invalid = [r for r in results if not r["valid"]]
    assert invalid and all(r["reasons"] for r in invalid)


def test_zero_shot_output_is_parsed_by_the_claim_parser():
    tok, model = tiny_tokenizer(), tiny_llama()
    gen = ClaimGenerator(model, tok, "zero-shot", DecodeSettings(max_new_tokens=20), ZERO_SHOT_INSTRUCTION, 1400)
    torch.manual_seed(0)
    (result,) = gen([Document("z", "A chair.")])
    assert result["pointer_parents"] is None and result["valid"] is None
    assert STRUCTURE_TOKENS[0] not in result["raw"]
    assert result["new_tokens"] <= 20


def test_prompt_is_cut_in_the_description_to_the_budget():
    tok = tiny_tokenizer()
    long = "word " * 2000
    ids = build_prompt(tok, long, 1300, ZERO_SHOT_INSTRUCTION)
    assert len(ids) == 1300
    text = tok.decode(ids)
    assert ZERO_SHOT_INSTRUCTION in text and text.rstrip().endswith("assistant")
    assert len(build_prompt(tok, "short", 1300, ZERO_SHOT_INSTRUCTION)) < 1300


def test_zero_shot_instruction_asks_for_parent_references_and_narrowing():
    for phrase in ("independent claim", "dependent claim", "of claim 1", "narrows"):
        assert phrase in ZERO_SHOT_INSTRUCTION


def fake_result(doc: Document) -> dict:
    return {"id": doc.id, "mode": "zero-shot", "raw": doc.description, "claims_text": f"1. A {doc.description}",
            "new_tokens": 3}


def fake_generate(batch):
    return [fake_result(d) for d in batch]


def test_rerun_skips_finished_ids_and_cuts_off_its_own_torn_last_line(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps(marked(RESULT, fake_result(DOCS[0]))) + "\n" + '{"spg": "result", "id": "d2", "clai')
    summary = run(DOCS, fake_generate, out, batch_size=2, progress=False)
    assert summary.already_done == 1 and summary.written == 2
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["id"] for r in lines) == ["d1", "d2", "d3"]
    assert run(DOCS, fake_generate, out, batch_size=2, progress=False).written == 0


def test_the_longest_documents_are_decoded_first_and_the_results_keep_input_order(tmp_path):
    docs = [Document("short", "a"), Document("long", "a b c d"), Document("mid", "a b"), Document("mid2", "c d")]
    batches = []

    def recording(batch):
        batches.append([d.id for d in batch])
        return fake_generate(batch)

    out = tmp_path / "out.jsonl"
    summary = run(docs, recording, out, batch_size=2, progress=False, length=lambda d: len(d.description))
    assert batches == [["long", "mid"], ["mid2", "short"]]  # ties keep input order
    assert [r["id"] for r in summary.results] == ["short", "long", "mid", "mid2"]
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["long", "mid", "mid2", "short"]


def test_a_document_whose_length_fails_is_decoded_last_and_reported_by_id(capsys):
    def length(doc):
        if doc.id == "d2":
            raise ValueError("odd text")
        return len(doc.description)

    def generate(batch):
        if any(d.id == "d2" for d in batch):
            raise ValueError("odd text")
        return fake_generate(batch)

    summary = run(DOCS, generate, None, batch_size=1, progress=False, length=length)
    assert [r["id"] for r in summary.results] == ["d1", "d3"] and summary.bad == ["d2"]
    assert "skipped d2" in capsys.readouterr().err


def test_empty_descriptions_are_reported_by_id_and_not_written(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    summary = run([Document("ok", "a seat"), Document("blank", "  ")], fake_generate, out, 4, progress=False)
    assert summary.bad == ["blank"]
    assert "blank" in capsys.readouterr().err
    assert finished_ids(out) == {"ok"}


def test_a_foreign_file_is_not_appended_to(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("not json\n")
    with pytest.raises(ValueError, match="line 1"):
        finished_ids(out)


def test_generate_then_evaluate_end_to_end(spg, tmp_path):
    """generate → forest → spg.evaluate on gold claim sets: every output valid, DEA computed."""
    gen = spg_generator(spg)
    out = tmp_path / "gen.jsonl"
    torch.manual_seed(3)
    run(DOCS, gen, out, batch_size=2, progress=False)

    gold = Forest.from_claims([Claim(1, "A chair comprising a seat."), Claim(2, "The chair of claim 1, wherein x.", (1,))])
    references = [Record(d.id, d.description, gold, gold_links=True) for d in DOCS]
    report = evaluate([read_prediction_file(out)], references, bertscore=False, progress=False)
    (row,) = report.rows
    assert row.n == 3 and row.missing == 0
    assert row.valid == 1.0
    assert row.dea is not None


def test_an_output_the_forest_code_cannot_read_is_kept_raw_and_the_run_goes_on(spg, monkeypatch):
    import spg.generation.generator as generator

    def broken(out):
        raise KeyError(4)

    monkeypatch.setattr(generator, "tagged_result", broken)
    torch.manual_seed(0)
    results = spg_generator(spg)(DOCS)
    assert len(results) == len(DOCS)
    assert all(r["valid"] is False and "KeyError" in r["reasons"][0] and r["raw"] for r in results)


def test_static_and_dynamic_kv_caches_give_the_same_greedy_outputs_and_pointer_parents(spg):
    outputs = {}
    for cache in ("static", "dynamic"):
        settings = DecodeSettings(max_new_tokens=40, do_sample=False, cache_implementation=cache)
        gen = ClaimGenerator(spg.lm, spg.tokenizer, "spg", settings, INSTRUCTION, 512, spg, True)
        outputs[cache] = [(r["raw"], r["pointer_parents"]) for r in gen(DOCS)]
    assert outputs["static"] == outputs["dynamic"]
    assert any(parents for _, parents in outputs["static"])  # the comparison covers pointer decisions


def test_auto_kv_cache_is_static_only_where_the_step_is_compiled_and_unknown_ones_are_refused():
    from spg.generation.pointer_decode import kv_cache

    assert kv_cache(DecodeSettings(), "cuda") == "static"  # transformers then compiles the step
    assert kv_cache(DecodeSettings(compile=False), "cuda") == "dynamic"
    assert kv_cache(DecodeSettings(), "cpu") == "dynamic"
    assert kv_cache(DecodeSettings(cache_implementation="static"), "cpu") == "static"
    with pytest.raises(ValueError, match="cache_implementation must be"):
        kv_cache(DecodeSettings(cache_implementation="paged"), "cpu")


DEVICES = ["cpu", *(["cuda"] if torch.cuda.is_available() else [])]


def tag_loving_spg(device: str = "cpu") -> SPGModel:
    """A fresh copy of the ``spg`` fixture's model, for tests that change it (merging) or move it."""
    torch.manual_seed(0)
    model = SPGModel.from_base(SPGConfig(lora_r=4), base=tiny_llama(), tokenizer=tiny_tokenizer()).to(device).eval()
    tag_ids = torch.tensor(list(model.structure_ids.values()), device=device)

    def favour_tags(module, args, logits):
        logits[..., tag_ids] += 4.0
        return logits

    model.lm.get_output_embeddings().register_forward_hook(favour_tags)
    for name, param in model.lm.named_parameters():  # LoRA B starts at zero: give the adapter an effect to merge
        if "lora_B" in name:
            torch.nn.init.normal_(param, std=0.05)
    return model


def greedy_results(model: SPGModel, constrained: bool = True, docs: list[Document] = DOCS, **settings) -> list[dict]:
    decode = DecodeSettings(max_new_tokens=40, do_sample=False, **settings)
    return ClaimGenerator(model.lm, model.tokenizer, "spg", decode, INSTRUCTION, 512, model, constrained)(docs)


def greedy_outputs(model: SPGModel, **settings) -> list[tuple[str, list | None]]:
    return [(r["raw"], r["pointer_parents"]) for r in greedy_results(model, **settings)]


def test_a_merged_adapter_gives_the_same_greedy_outputs_and_pointer_parents():
    model = tag_loving_spg()
    apart = greedy_outputs(model)
    model.lm.merge_adapter()
    assert greedy_outputs(model) == apart
    assert any(parents for _, parents in apart)  # the comparison covers pointer decisions


@pytest.mark.parametrize("device", DEVICES)
def test_compiled_decoding_gives_the_eager_outputs_and_pointer_parents_from_one_traced_graph(device):
    """transformers compiles the decoding step for a static cache on CUDA (inductor, CUDA graphs); on the CPU the
    same tracing is forced with dynamo's eager backend. The pointer states are read outside the compiled step."""
    from torch._dynamo.utils import counters
    from transformers import CompileConfig

    model = tag_loving_spg(device)
    # the checker off: a redraw decodes one document at its own length, a graph of its own (docs/generation.md)
    eager = greedy_outputs(model, compile=False, redraws=0)
    config = CompileConfig(fullgraph=True, backend="inductor" if device == "cuda" else "eager")
    config._compile_all_devices = True  # transformers compiles on accelerators only unless told
    model.lm.generation_config.compile_config = config
    torch._dynamo.reset()
    counters.clear()
    try:
        compiled = greedy_outputs(model, compile=True, cache_implementation="static", redraws=0)
    finally:
        torch._dynamo.reset()
    assert compiled == eager
    assert any(parents for _, parents in eager)
    assert counters["stats"]["unique_graphs"] == 1  # one graph for every step: no re-tracing as states pile up


def test_a_prompt_measured_to_sort_is_tokenised_once_and_decoded_as_it_would_be_unsorted(spg, monkeypatch):
    import spg.generation.generator as generator_module

    calls = []

    def counting(*args, **kwargs):
        calls.append(args[1])
        return build_prompt(*args, **kwargs)

    settings = DecodeSettings(max_new_tokens=12, do_sample=False)
    generator = ClaimGenerator(spg.lm, spg.tokenizer, "spg", settings, INSTRUCTION, 512, spg, True)
    unsorted = run(DOCS, generator, None, batch_size=2, progress=False).results
    monkeypatch.setattr(generator_module, "build_prompt", counting)
    sorted_ = run(DOCS, generator, None, batch_size=2, progress=False, length=generator.prompt_length).results
    assert len(calls) == len(DOCS)  # measured once, not again when decoded
    assert [(r["id"], r["raw"], r["pointer_parents"]) for r in sorted_] == [
        (r["id"], r["raw"], r["pointer_parents"]) for r in unsorted
    ]
    assert not generator._measured  # every measured prompt was taken by its batch


@pytest.mark.parametrize("longest_first", [True, False])
def test_batches_decoded_longest_first_share_one_compiled_step(longest_first):
    """transformers sizes each call's static cache to the longest prompt so far, so batches decoded longest first all
    get the first batch's cache, and its compiled step; a longer batch later is a new shape, traced again."""
    from torch._dynamo.utils import counters
    from transformers import CompileConfig

    model = tag_loving_spg()
    config = CompileConfig(fullgraph=True, backend="eager")
    config._compile_all_devices = True  # transformers compiles on accelerators only unless told
    model.lm.generation_config.compile_config = config
    settings = DecodeSettings(max_new_tokens=8, do_sample=False, cache_implementation="static")
    generator = ClaimGenerator(model.lm, model.tokenizer, "spg", settings, INSTRUCTION, 512, model, True)
    docs = [Document("short", "A pen."), Document("long", "A chair with four legs, a seat and a back rest " * 4)]
    torch._dynamo.reset()
    counters.clear()
    try:
        run(docs, generator, None, batch_size=1, progress=False, length=generator.prompt_length if longest_first else None)
    finally:
        torch._dynamo.reset()
    assert counters["stats"]["unique_graphs"] == (1 if longest_first else 2)


@pytest.mark.parametrize("device", DEVICES)
def test_constrained_pointer_generation_runs_where_the_model_is_and_stays_valid(device):
    model = tag_loving_spg(device)
    results = greedy_results(model)
    assert all(r["valid"] for r in results)
    assert any(r["pointer_parents"] for r in results)
    assert model.last_hidden_state.device.type == device  # the states the pointer read came from the device


@pytest.mark.skipif(not torch.cuda.is_available(), reason="transformers defers the stop check on accelerators only")
def test_a_deferred_stop_check_gives_the_same_outputs_and_pointer_parents():
    model = tag_loving_spg("cuda")
    assert greedy_outputs(model, defer_stop_check=True) == greedy_outputs(model, defer_stop_check=False)


@pytest.mark.slow
def test_the_shipped_model_decodes_the_same_with_its_adapter_merged_and_a_static_cache(uspto_path):
    """The throughput settings against the ones spg used before them, on the real model (float32, CPU)."""
    from spg.generation.generator import load_generator

    docs = [Document("example", (Path(__file__).parents[1] / "spg/examples/folding_step_stool.txt").read_text())]
    docs += [Document(r.id, r.description) for r in list(load_records(uspto_path))[:1]]
    outputs = []
    for fast in (False, True):
        # the checker off: these settings must decode alike, and a redraw reads the prompt again where the cache is
        # static (docs/generation.md, "Checker in the loop")
        settings = DecodeSettings(max_new_tokens=96, do_sample=False, cache_implementation="static" if fast else "dynamic",
                                  merge_adapters=fast, compile=fast, defer_stop_check=fast, redraws=0)
        generator = load_generator("spg-smollm2", settings, max_prompt_tokens=512, device="cpu")
        assert generator.lm.device.type == "cpu" and next(generator.spg.pointer.parameters()).device.type == "cpu"
        outputs.append([(r["raw"], r["pointer_parents"]) for r in generator(docs)])
    assert outputs[0] == outputs[1]
    assert any(parents and any(p is not None for p in parents) for _, parents in outputs[0])


def forward_widths(model: SPGModel) -> list[int]:
    """The number of positions of every forward of ``model.lm`` from now on (a hook records them)."""
    widths: list[int] = []
    model.lm.get_output_embeddings().register_forward_pre_hook(lambda module, args: widths.append(args[0].shape[1]))
    return widths


@pytest.mark.parametrize("constrained", [True, False])
def test_prompt_lookup_drafts_give_the_same_greedy_outputs_and_pointer_parents(constrained):
    model = tag_loving_spg()
    widths = forward_widths(model)
    one_by_one = [greedy_outputs(model, prompt_lookup_tokens=0, constrained=constrained, docs=[d]) for d in DOCS]
    steps = len(widths)
    drafted = [greedy_outputs(model, prompt_lookup_tokens=10, constrained=constrained, docs=[d]) for d in DOCS]
    assert drafted == one_by_one
    assert any(parents for (_, parents), in one_by_one) or not constrained  # it covers pointer decisions
    assert max(widths[steps:][1:]) > 1 and len(widths) - steps < steps  # drafts were checked, in fewer forwards


def test_step_states_under_prompt_lookup_equal_the_teacher_forced_states_of_the_output():
    from spg.generation.drafts import drafting

    model = tag_loving_spg()
    tok = model.tokenizer
    torch.manual_seed(0)
    base = torch.randint(3, 200, (12,)).tolist()  # no 3-gram twice: the first draft comes from the copy below
    greedy = dict(do_sample=False, pad_token_id=tok.pad_token_id)
    ahead = model.lm.generate(input_ids=torch.tensor([base]), max_new_tokens=6, min_new_tokens=6, **greedy)
    # what the model will write, also written in the prompt: the first forward's drafts are kept, and a transformers
    # model returns the states of the logits it keeps only, not the prompt's
    prompt = base + ahead[0, len(base) :].tolist() + base
    ids = torch.tensor([prompt])
    widths = forward_widths(model)
    recorder = StateRecorder(model, 24)
    with drafting(5, 3):
        out = model.lm.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=24,
                                min_new_tokens=24, prompt_lookup_num_tokens=5,
                                logits_processor=LogitsProcessorList([recorder]), **greedy)
    generated = out.shape[1] - ids.shape[1]
    states = recorder.states(generated)
    assert states.shape[1] == generated - 1
    assert 1 < widths[0] < len(prompt)  # the first forward checked drafts and returned only the kept logits' states
    assert out[0, len(prompt) : len(prompt) + 5].tolist() == ahead[0, len(base) : len(base) + 5].tolist()  # kept
    with torch.no_grad():
        teacher = model.lm(out, output_hidden_states=True).hidden_states[-1][0, len(prompt) : out.shape[1] - 1]
    torch.testing.assert_close(states[0], teacher, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_sampling_with_prompt_lookup_gives_valid_forests_up_to_a_tight_budget(seed):
    model = tag_loving_spg()
    decode = DecodeSettings(max_new_tokens=12, temperature=1.0, prompt_lookup_tokens=10)
    gen = ClaimGenerator(model.lm, model.tokenizer, "spg", decode, INSTRUCTION, 512, model, True)
    torch.manual_seed(seed)
    (result,) = gen(DOCS[:1])
    assert result["valid"] or result["cut_by_budget"], result["reasons"]


def test_prompt_lookup_is_on_for_one_document_on_the_cpu_unless_set():
    from spg.generation.pointer_decode import AUTO_PROMPT_LOOKUP, prompt_lookup_tokens

    auto = DecodeSettings()
    assert prompt_lookup_tokens(auto, "cpu", 1, "dynamic") == AUTO_PROMPT_LOOKUP
    assert prompt_lookup_tokens(auto, "cpu", 4, "dynamic") == 0  # transformers drafts for one row only
    assert prompt_lookup_tokens(auto, "cuda", 1, "dynamic") == 0  # GPUs keep their compiled step
    assert prompt_lookup_tokens(DecodeSettings(prompt_lookup_tokens=4), "cuda", 1, "dynamic") == 4
    assert prompt_lookup_tokens(DecodeSettings(prompt_lookup_tokens=4), "cuda", 1, "static") == 0
    assert prompt_lookup_tokens(DecodeSettings(prompt_lookup_tokens=0), "cpu", 1, "dynamic") == 0


@pytest.mark.parametrize("seed", range(3))
def test_prompt_lookup_drafts_give_the_same_sampled_outputs(seed):
    model = tag_loving_spg()
    outputs = []
    for drafted in (0, 5):
        decode = DecodeSettings(max_new_tokens=40, temperature=1.0, prompt_lookup_tokens=drafted)
        torch.manual_seed(seed)
        (result,) = ClaimGenerator(model.lm, model.tokenizer, "spg", decode, INSTRUCTION, 512, model, True)(DOCS[:1])
        outputs.append((result["raw"], result["pointer_parents"]))
    assert outputs[0] == outputs[1]


def test_deterministic_decoding_is_eager_on_a_dynamic_cache_with_deterministic_kernels(tmp_path, monkeypatch):
    # issue 41: `deterministic: true` (a GenerateConfig key) for GPU runs that must repeat; checked on a GPU by
    # benchmarks/decode_gpu.sh, here only what it switches
    from spg.generation.config import GenerateConfig
    from spg.generation.pointer_decode import kv_cache
    from spg.model import runtime

    (tmp_path / "det.yaml").write_text("deterministic: true\n")
    settings = GenerateConfig.load(tmp_path / "det.yaml").decode
    assert settings.deterministic and not settings.compiled
    assert kv_cache(settings, "cuda") == "dynamic"  # no compiled step, so no static cache for it
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    before = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    try:
        runtime.deterministic()
        assert torch.are_deterministic_algorithms_enabled() and torch.backends.cudnn.deterministic
        assert runtime.os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])
        torch.backends.cudnn.deterministic = False
