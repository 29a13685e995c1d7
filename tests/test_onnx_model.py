"""The onnx runtime on a tiny SPG model exported with onnxruntime-genai's builder: transformers' generate, the
grammar and the pointer's hidden states work on it as on the PyTorch model."""

import importlib.util

import pytest
import torch
from conftest import requirement_missing
from tiny import tiny_llama, tiny_tokenizer

if importlib.util.find_spec("onnxruntime_genai") is None:
    requirement_missing("onnxruntime-genai (spg's cpu extra)", module_level=True)

from spg.generation.generator import ClaimGenerator  # noqa: E402
from spg.generation.pointer_decode import DecodeSettings, StateRecorder, generate_batch  # noqa: E402
from spg.generation.request import DecodeRequest  # noqa: E402
from spg.generation.runner import Document  # noqa: E402
from spg.model.batch import INSTRUCTION  # noqa: E402
from spg.model.onnx_model import OnnxCausalLM  # noqa: E402
from spg.model.ready import exported as export_of  # noqa: E402
from spg.model.spg_model import SPGConfig, SPGModel  # noqa: E402


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(merged model folder, SPG model on its ONNX export), the export cached in a temporary $SPG_CACHE."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPG_CACHE", str(tmp_path_factory.mktemp("cache")))
        torch_spg = SPGModel.from_base(SPGConfig(lora_r=4), base=tiny_llama(hidden_size=64), tokenizer=tiny_tokenizer())
        folder = tmp_path_factory.mktemp("merged")
        merged = torch_spg.merge_and_unload()
        merged.save_pretrained(folder)
        torch_spg.tokenizer.save_pretrained(folder)
        lm = OnnxCausalLM(merged.config, export_of(folder))
        lm.generation_config = merged.generation_config
        spg = SPGModel(lm, torch_spg.tokenizer, torch_spg.pointer, torch_spg.spg_config)
        tag_ids = torch.tensor(list(spg.structure_ids.values()))

        def favour_tags(module, args, logits):  # short runs then hold several claims, so the pointer is exercised
            logits[..., tag_ids] += 4.0
            return logits

        spg.lm.get_output_embeddings().register_forward_hook(favour_tags)
        yield folder, spg


def test_step_states_the_pointer_reads_are_the_onnx_models_teacher_forced_states(exported):
    _, spg = exported
    ids = torch.tensor([spg.tokenizer.encode("a step stool")])
    recorder = StateRecorder(spg, 10)
    out = spg.lm.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=10, min_new_tokens=10,
                          do_sample=False, logits_processor=[recorder], pad_token_id=0)
    spg.lm(input_ids=out, attention_mask=torch.ones_like(out))  # one forward over the finished sequence
    forced = spg.last_hidden_state[0, ids.shape[1] : out.shape[1] - 1]
    torch.testing.assert_close(recorder.states()[0], forced, atol=1e-4, rtol=1e-4)


def test_constrained_decoding_on_onnx_gives_valid_forests_with_pointer_parents(exported):
    _, spg = exported
    # the checker off: it would redraw the random model's dependents (as given, "<text> according to claim 1", they
    # add no limitation) until none is left for the pointer
    gen = ClaimGenerator(spg.lm, spg.tokenizer, "spg", DecodeSettings(max_new_tokens=40, temperature=1.0, redraws=0),
                         INSTRUCTION, 512, spg, True)
    results = []
    for seed in range(3):  # a few draws, so that some hold dependent claims for the pointer
        torch.manual_seed(seed)
        results += gen([Document("d1", "A chair with four legs."), Document("d2", "A lamp.")])
    assert all(r["valid"] for r in results), [r["reasons"] for r in results]
    assert any(p is not None for r in results for p in r["pointer_parents"])


def test_a_batch_decodes_in_one_run_per_step_each_row_as_it_decodes_alone(exported):
    _, spg = exported
    prompts = [spg.tokenizer.encode("a longer prompt here"), spg.tokenizer.encode("x"),
               spg.tokenizer.encode("a prompt")]  # lengths differ: left padding
    greedy = DecodeSettings(max_new_tokens=8, min_new_tokens=8, do_sample=False, prompt_lookup_tokens=0)
    scores = []
    hook = spg.lm.get_output_embeddings().register_forward_hook(lambda m, a, out: scores.append(out[:, -1].clone()))
    try:
        together = generate_batch(DecodeRequest(spg.lm, spg.tokenizer, prompts, greedy, tagged=False))
        runs = len(scores)
        alone = [generate_batch(DecodeRequest(spg.lm, spg.tokenizer, [p], greedy, tagged=False))[0] for p in prompts]
    finally:
        hook.remove()
    assert [o.ids for o in together] == [o.ids for o in alone]
    assert runs == 8  # the prompts' run (row by row inside it) and 7 steps, each for the whole batch
    by_row = [torch.stack(scores[runs + 8 * row : runs + 8 * (row + 1)])[:, 0] for row in range(len(prompts))]
    for row, alone_scores in enumerate(by_row):  # the same logits, bit for bit, as the row alone
        assert torch.equal(torch.stack(scores[:runs])[:, row], alone_scores)


def test_the_sessions_workers_do_not_spin_between_steps(exported):
    # spinning workers hold the cores that torch's logits processors need between two ONNX runs
    _, spg = exported
    options = spg.lm.session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_an_export_is_found_again_by_the_models_content(exported):
    folder, _ = exported
    first = export_of(folder)
    stamp = (first / "model.onnx").stat().st_mtime_ns
    assert export_of(folder) == first and (first / "model.onnx").stat().st_mtime_ns == stamp


def test_auto_on_the_cpu_decodes_a_ready_model_on_its_export_kept_beside_the_ready_form(tmp_path, monkeypatch):
    import spg.model.ready as ready
    from spg.generation.generator import load_generator
    from spg.model.config import ModelSource, describe
    base = tmp_path / "base"
    tiny_llama(hidden_size=64).save_pretrained(base)
    tiny_tokenizer().save_pretrained(base)
    SPGModel.from_base(SPGConfig(base_model=str(base), lora_r=4)).save_pretrained(tmp_path / "spg")
    monkeypatch.setenv("SPG_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(ModelSource, "has_ready_forms", property(lambda source: bool(source.chain)))  # taken for
    monkeypatch.setattr(ready, "_base_identity", lambda name: {"tiny": name})  # the embedded backbone
    settings = DecodeSettings(max_new_tokens=40, do_sample=False)
    generator = load_generator(str(tmp_path / "spg"), settings, device="cpu")
    assert isinstance(generator.lm, OnnxCausalLM)
    root = ready.ready_forms(describe(tmp_path / "spg"), torch.float32).root
    assert [p.name for p in root.iterdir() if p.name.startswith("onnx-")]  # beside the merged form, not in a tempdir

    def no_export(hf_dir, target):
        assert target.is_dir(), "exported again"
        return target

    monkeypatch.setattr(ready, "export", no_export)
    again = load_generator(str(tmp_path / "spg"), settings, device="cpu")
    assert isinstance(again.lm, OnnxCausalLM) and len(again([Document("d1", "A chair.")])) == 1


def test_prompt_lookup_drafts_on_onnx_give_the_same_greedy_outputs_and_pointer_parents(exported):
    # a drafted token the model does not keep is dropped from ONNX Runtime's key/value buffers (OnnxCache.crop)
    _, spg = exported
    widths = []
    hook = spg.lm.get_output_embeddings().register_forward_pre_hook(lambda m, args: widths.append(args[0].shape[1]))
    doc = Document("d", "a hinge and a hinge pin; the hinge pin in the hinge; a hinge and a hinge pin")
    outputs = {}
    try:
        for drafted in (0, 10):
            settings = DecodeSettings(max_new_tokens=40, do_sample=False, prompt_lookup_tokens=drafted, redraws=0)
            widths.clear()
            (out,) = ClaimGenerator(spg.lm, spg.tokenizer, "spg", settings, INSTRUCTION, 512, spg, True)([doc])
            outputs[drafted] = (out["raw"], out["pointer_parents"], len(widths), max(widths[1:]))
    finally:
        hook.remove()
    assert outputs[10][:2] == outputs[0][:2]
    assert any(p is not None for p in outputs[0][1])
    assert outputs[10][2] < outputs[0][2] and outputs[10][3] > 1  # fewer forwards, some checking drafts


def test_the_onnx_cache_forgets_dropped_drafts_and_keeps_its_buffers():
    from spg.model.onnx_model import OnnxCache

    cache = OnnxCache(reserve=8)
    cache.room_for(["k"], (1, 2, 4), 10)
    buffer = cache.buffers["k"]
    cache.length = 10
    cache.crop(-3)  # transformers passes minus the drafted positions it drops
    assert cache.get_seq_length() == 7
    cache.room_for(["k"], (1, 2, 4), 11)  # 18 positions fit in the buffer reserved for 10 + 8
    assert cache.buffers["k"] is buffer
    with pytest.raises(ValueError, match="negative"):
        cache.crop(5)


def test_the_checker_in_the_loop_redraws_on_onnx_from_the_kept_cache_with_or_without_drafts(exported):
    # a redraw continues from ONNX Runtime's buffers cropped to the accepted claims (spg.generation.redraw)
    from spg.forest import Forest
    from spg.generation.redraw import ClaimCheck
    from spg.lint import Finding

    _, spg = exported
    doc = Document("d", "a hinge and a hinge pin; the hinge pin in the hinge")

    def run(drafted: int, check: ClaimCheck) -> dict:
        settings = DecodeSettings(max_new_tokens=40, do_sample=False, prompt_lookup_tokens=drafted)
        generator = ClaimGenerator(spg.lm, spg.tokenizer, "spg", settings, INSTRUCTION, 512, spg, True)
        generator.check = check
        return generator([doc])[0]

    first = run(0, ClaimCheck(lambda forest: [], frozenset()))["forest"][0]["text"].strip()[0]

    def holding(forest: Forest) -> list[Finding]:
        return [Finding("test-char", "warning", c.num, "blocked") for c in forest.claims if first in c.text]

    check = ClaimCheck(holding, frozenset({"test-char"}), frozenset({"test-char"}))
    outputs = [run(drafted, check) for drafted in (0, 5)]
    assert outputs[0] == outputs[1] and outputs[0]["redraws"] >= 1 and outputs[0]["valid"]
    assert not [c for c in outputs[0]["forest"] if first in c["text"]]


def test_a_redrawn_row_of_a_batch_continues_from_its_slice_of_the_batchs_cache(exported):
    # issue 41: a row of a batch is redrawn from the batch's cache (its prompt is not read again), as it is alone
    from spg.forest import Forest
    from spg.generation.redraw import ClaimCheck
    from spg.lint import Finding

    _, spg = exported
    docs = [Document("d", "a hinge and a hinge pin; the hinge pin in the hinge"), Document("e", "A lamp.")]
    settings = DecodeSettings(max_new_tokens=40, do_sample=False)
    generator = ClaimGenerator(spg.lm, spg.tokenizer, "spg", settings, INSTRUCTION, 512, spg, True)
    generator.check = ClaimCheck(lambda forest: [], frozenset())
    first = generator(docs[:1])[0]["forest"][0]["text"].strip()[0]

    def holding(forest: Forest) -> list[Finding]:
        return [Finding("test-char", "warning", c.num, "blocked") for c in forest.claims if first in c.text]

    generator.check = ClaimCheck(holding, frozenset({"test-char"}), frozenset({"test-char"}))
    fed = []
    hook = spg.lm.register_forward_pre_hook(lambda m, args, kwargs: fed.append(kwargs["input_ids"].shape[-1]),
                                            with_kwargs=True)
    try:
        together = generator(docs)
    finally:
        hook.remove()
    alone = [generator([doc])[0] for doc in docs]
    assert together == alone and together[0]["redraws"] >= 1
    prompt = len(generator.prompt(docs[0]))
    assert max(fed[1:]) < prompt  # after the batch's prompt run, no forward reads a whole prompt again
