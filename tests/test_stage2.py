"""Stage II training on a tiny random model: reference = Stage I, only the new adapter learns, one base copy."""

from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path

import pytest
import torch
from datasets import Dataset
from peft import PeftModel
from safetensors.torch import load_file
from tiny import tiny_llama, tiny_tokenizer
from torch._subclasses.fake_tensor import FakeTensor
from transformers import TrainerCallback, TrainingArguments

import spg.train.pairs
from spg.config import ConfigError
from spg.files import write_jsonl
from spg.model.spg_model import SPGConfig, SPGModel
from spg.model.tokens import add_structure_tokens
from spg.train.lpo import LPOTrainer, PreferenceCollator, completion_logps, lpo_loss
from spg.train.pairs import PAIRS as PAIRS_KIND
from spg.train.pairs import count_types, load_pairs, reward
from spg.train.stage2 import Stage2Config, load_config, make_pairs, run, stage2_model, tokenize_pairs, train

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
PAIRS = [
    {
        "prompt": "<|start|>user\nA chair with a seat.<|end|><|start|>assistant\n",
        "chosen": "<ind>A chair comprising a seat.</ind><dep>The chair of claim 1, wherein the seat is round.</dep><eot>",
        "rejected": "<ind>A chair</ind><eot>",
        "weight": 0.8,
    },
    {
        "prompt": "<|start|>user\nA lamp.<|end|><|start|>assistant\n",
        "chosen": "<ind>A lamp comprising a bulb.</ind><eot>",
        "rejected": "<ind>A lamp comprising a bulb.</ind><dep>The lamp</dep><eot>",
        "weight": 0.3,
    },
]


def stage1_spg(base_model: str = "unused") -> SPGModel:
    """A Stage I model on a tiny Llama whose LoRA, structure-token rows and pointer look trained (non-zero)."""
    spg = SPGModel.from_base(SPGConfig(base_model=base_model, lora_r=4, lora_alpha=8), tiny_llama(), tiny_tokenizer())
    torch.manual_seed(1)
    with torch.no_grad():
        for param in spg.parameters():
            if param.requires_grad:
                param.add_(0.1 * torch.randn_like(param))
    return spg


def stage1_model():
    spg = stage1_spg().eval()  # LoRA dropout off, so log-probs are deterministic
    return spg.lm, spg.tokenizer


def config(tmp_path, **overrides) -> Stage2Config:
    values = dict(output_dir=str(tmp_path), lora_r=4, lora_alpha=8, lora_dropout=0.0, per_device_train_batch_size=2,
                  gradient_accumulation_steps=1, max_steps=1, learning_rate=1e-2, warmup_ratio=0.0,
                  logging_steps=1, save_steps=1000, bf16=False, max_length=256)
    values.update(overrides)
    return Stage2Config(**values)


def batch(tokenizer, max_length=256):
    dataset, _ = tokenize_pairs(Dataset.from_list(PAIRS), tokenizer, max_length)
    return PreferenceCollator(pad_token_id=tokenizer.pad_token_id)(list(dataset))


def test_reference_is_the_stage1_model_and_equals_the_policy_at_step_0(tmp_path):
    stage1, tokenizer = stage1_model()
    inputs = batch(tokenizer)
    with torch.no_grad():
        stage1_logps = completion_logps(stage1, inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"])
    model = stage2_model(stage1, config(tmp_path))
    trainer = LPOTrainer(model=model, data_collator=PreferenceCollator(pad_token_id=0),
                         train_dataset=Dataset.from_list([{"x": 0}]),
                         args=TrainingArguments(output_dir=str(tmp_path), report_to=[]))
    with torch.no_grad():
        policy = completion_logps(model, inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"])
    reference = trainer.reference_logps(model, inputs)
    assert torch.allclose(policy, reference, atol=1e-5)
    assert torch.allclose(reference, stage1_logps, atol=1e-4)


@pytest.mark.parametrize(("checkpointing", "mode"), [(False, "lpo"), (True, "lpo"), (True, "matched")])
def test_one_step_changes_only_the_new_adapter_and_keeps_the_reference(tmp_path, checkpointing, mode):
    stage1, tokenizer = stage1_model()
    inputs = batch(tokenizer)
    cfg = config(tmp_path, gradient_checkpointing=checkpointing, mode=mode)
    model = stage2_model(stage1, cfg)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    reference_before = completion_logps(model, inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"])
    dataset, _ = tokenize_pairs(Dataset.from_list(PAIRS), tokenizer, cfg.max_length)
    trainer = train(model, tokenizer, dataset, cfg)
    assert trainer.state.global_step == 1
    changed = {name for name, p in model.named_parameters() if not torch.equal(p, before[name])}
    assert changed, "the step updated nothing"
    assert all(".lora_" in name and ".default." in name for name in changed)
    assert not any("embed_tokens" in name or "lm_head" in name for name in changed)
    with torch.no_grad():
        policy = completion_logps(model, inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"])
    reference_after = trainer.reference_logps(model, inputs)
    assert torch.allclose(reference_after, reference_before, atol=1e-5)
    assert not torch.allclose(policy, reference_after, atol=1e-4)


def test_only_one_copy_of_the_base_weights_exists(tmp_path):
    stage1, tokenizer = stage1_model()
    cfg = config(tmp_path)
    model = stage2_model(stage1, cfg)
    del stage1
    dataset, _ = tokenize_pairs(Dataset.from_list(PAIRS), tokenizer, cfg.max_length)
    trainer = train(model, tokenizer, dataset, cfg)
    shape = model.get_input_embeddings().weight.shape
    in_model = {p.data_ptr() for p in model.parameters() if p.shape == shape}  # input and (untied) output embedding
    gc.collect()
    # FakeTensors that torch.compile left from other tests in this process have no data: not weights
    live = {t.data_ptr() for t in gc.get_objects()
            if isinstance(t, torch.Tensor) and not isinstance(t, FakeTensor) and t.shape == shape}
    assert live == in_model
    assert not any(isinstance(v, torch.nn.Module) and v is not model for v in vars(trainer).values()
                   if isinstance(v, torch.nn.Module) and sum(p.numel() for p in v.parameters()) > 0)


MORE_PAIRS = [
    {
        "prompt": "<|start|>user\nA door with a hinge.<|end|><|start|>assistant\n",
        "chosen": "<ind>A door comprising a hinge.</ind><dep>The door of claim 1, wherein the hinge is steel.</dep><eot>",
        "rejected": "<ind>A door</ind><dep>The door of claim 2</dep><eot>",
        "weight": 0.95,
    },
    {
        "prompt": "<|start|>user\nA cup.<|end|><|start|>assistant\n",
        "chosen": "<ind>A cup comprising a handle.</ind><eot>",
        "rejected": "<ind>A cup comprising a handle; and a lid.</ind><eot>",
        "weight": 0.05,
    },
]


def preference_trainer(tmp_path, mode: str, steps: int, callbacks=(), omega: float | None = None) -> LPOTrainer:
    """An LPOTrainer on a fresh Stage II adapter (same init for every mode): 4 pairs, 2 micro-batches of 2 per
    optimizer step (so every step sees every pair), AdamW, no clipping. ``omega`` replaces every pair's ω."""
    stage1, tokenizer = stage1_model()
    torch.manual_seed(0)
    model = stage2_model(stage1, config(tmp_path))
    pairs = [p if omega is None else {**p, "weight": omega} for p in PAIRS + MORE_PAIRS]
    dataset, _ = tokenize_pairs(Dataset.from_list(pairs), tokenizer, 256)
    args = TrainingArguments(output_dir=str(tmp_path / mode), per_device_train_batch_size=2, gradient_accumulation_steps=2,
                             max_steps=steps, learning_rate=1e-2, lr_scheduler_type="constant", max_grad_norm=0.0,
                             logging_steps=1, save_strategy="no", report_to=[], seed=0, remove_unused_columns=False)
    return LPOTrainer(model=model, args=args, data_collator=PreferenceCollator(pad_token_id=tokenizer.pad_token_id),
                      train_dataset=dataset, processing_class=tokenizer, mode=mode, callbacks=list(callbacks))


def whole_set_gradients(model, tokenizer) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """LPO's and DPO's gradient of the mean loss over all four pairs, computed directly (no Trainer)."""
    dataset, _ = tokenize_pairs(Dataset.from_list(PAIRS + MORE_PAIRS), tokenizer, 256)
    inputs = PreferenceCollator(pad_token_id=tokenizer.pad_token_id)(list(dataset))
    args = inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"]
    policy = completion_logps(model, *args)
    with torch.no_grad(), model.disable_adapter():
        reference = completion_logps(model, *args)
    losses = lpo_loss(*policy.chunk(2), *reference.chunk(2), torch.ones(4), beta=0.1)
    params = [p for p in model.parameters() if p.requires_grad]
    dpo = torch.autograd.grad(losses.mean(), params, retain_graph=True)
    lpo = torch.autograd.grad((inputs["weights"] * losses).mean(), params)
    return list(lpo), list(dpo)


def flat(tensors) -> torch.Tensor:
    return torch.cat([t.flatten() for t in tensors])


def test_matched_gradient_has_dpos_direction_and_lpos_norm_at_every_step(tmp_path):
    steps = []

    class Record(TrainerCallback):
        def on_pre_optimizer_step(self, args, state, control, model=None, processing_class=None, **kwargs):
            taken = flat(p.grad for p in model.parameters() if p.requires_grad).clone()
            lpo, dpo = whole_set_gradients(model, processing_class)
            steps.append((taken, flat(lpo), flat(dpo)))

    preference_trainer(tmp_path, "matched", 3, [Record()]).train()
    assert len(steps) == 3
    for taken, lpo, dpo in steps:
        assert torch.linalg.vector_norm(taken).item() == pytest.approx(torch.linalg.vector_norm(lpo).item(), rel=1e-4)
        assert torch.allclose(taken, dpo * lpo.norm() / dpo.norm(), atol=1e-7, rtol=1e-4)
        assert lpo.norm() < 0.99 * dpo.norm()  # the rescale does something: ω < 1 shrinks the gradient


def test_matched_update_differs_from_dpo_and_a_constant_loss_scale_would_not(tmp_path):
    runs = {"dpo": ("dpo", None), "matched": ("matched", None), "constant": ("lpo", 0.525), "lpo": ("lpo", None)}
    updates = {}
    for name, (mode, omega) in runs.items():
        trainer = preference_trainer(tmp_path, mode, 6, omega=omega)
        before = flat(p.detach().clone() for p in trainer.model.parameters() if p.requires_grad)
        trainer.train()
        updates[name] = flat(p.detach() for p in trainer.model.parameters() if p.requires_grad) - before

    def from_dpo(name: str) -> float:
        return ((updates[name] - updates["dpo"]).norm() / updates["dpo"].norm()).item()

    # docs/stage2.md quotes these (pytest -s prints them)
    print("update distance from DPO's, relative to its norm:", {name: round(from_dpo(name), 4) for name in runs})
    # AdamW divides a constant loss scale out (the old `matched`: every pair weighted by the mean ω, 0.525); a
    # per-step rescale to LPO's norm is not a constant, so the matched control takes other steps than DPO.
    assert from_dpo("constant") < 0.01
    assert from_dpo("matched") > 0.03


def test_tokenized_pairs_carry_each_pairs_omega_whatever_the_mode():
    tokenizer = tiny_tokenizer()
    add_structure_tokens(tokenizer, tiny_llama())
    assert tokenize_pairs(Dataset.from_list(PAIRS), tokenizer, 256)[0]["weight"] == pytest.approx([0.8, 0.3])


def test_pairs_too_long_for_max_length_are_counted_not_silently_dropped():
    tokenizer = tiny_tokenizer()
    add_structure_tokens(tokenizer, tiny_llama())
    prompt_2 = len(tokenizer(PAIRS[1]["prompt"], add_special_tokens=False)["input_ids"])
    dataset, report = tokenize_pairs(Dataset.from_list(PAIRS), tokenizer, prompt_2 + 5)
    assert report == {"dropped": 1, "truncated": 1}
    assert len(dataset) == 1


def test_completions_are_tokenized_as_generated_ending_at_eot():
    tokenizer = tiny_tokenizer()
    ids = add_structure_tokens(tokenizer, tiny_llama())
    row = tokenize_pairs(Dataset.from_list(PAIRS), tokenizer, 256)[0][0]
    assert row["chosen_ids"][-1] == ids["<eot>"] == row["rejected_ids"][-1]
    assert tokenizer.decode(row["chosen_ids"]) == PAIRS[0]["chosen"]


def stage1_artefact(tmp_path, directory: Path | None = None) -> str:
    """A saved tiny Stage I artefact (in ``directory``, default tmp_path/stage1) on a tiny Llama saved in tmp_path."""
    base_dir = tmp_path / "base"
    tiny_llama().save_pretrained(base_dir)
    tiny_tokenizer().save_pretrained(base_dir)
    directory = directory or tmp_path / "stage1"
    stage1_spg(str(base_dir)).save_pretrained(directory)
    return str(directory)


def test_pairs_then_training_then_reload_on_real_descriptions(tmp_path, uspto_path, monkeypatch):
    cfg = config(tmp_path / "stage2", model=stage1_artefact(tmp_path), data=str(uspto_path),
                 pairs=str(tmp_path / "pairs.jsonl"), num_descriptions=2, max_new_tokens=8, max_prompt_tokens=400,
                 max_length=600, max_steps=2, per_device_train_batch_size=1, patentscore="appendix")
    readings = []
    monkeypatch.setattr(spg.train.pairs, "reward", lambda c, r, reading: readings.append(reading) or reward(c, r, reading))
    counts = make_pairs(cfg)
    assert readings and set(readings) == {"appendix"}  # candidates and ground truth scored with the configured reading
    assert counts["gt-vs-worst"] == 2  # one per description, unconditionally
    assert count_types(cfg.pairs) == counts
    assert make_pairs(cfg) == counts  # resumed: nothing sampled again, nothing appended
    final = run(cfg)

    stage1 = SPGModel.from_pretrained(cfg.model)
    stage2 = SPGModel.from_pretrained(final)
    dataset, _ = tokenize_pairs(load_pairs(cfg.pairs), stage2.tokenizer, cfg.max_length)
    inputs = PreferenceCollator(pad_token_id=stage2.tokenizer.pad_token_id, max_length=cfg.max_length)(list(dataset))
    args = inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"]
    with torch.no_grad():
        policy, reference = completion_logps(stage2.lm, *args), completion_logps(stage1.lm, *args)
        with stage2.lm.disable_adapter():
            switched_off = completion_logps(stage2.lm, *args)
    assert torch.allclose(switched_off, reference, atol=1e-3)
    assert not torch.allclose(policy, reference, atol=1e-3)
    assert torch.equal(stage2.pointer.weight, stage1.pointer.weight)


def test_stage2_artefact_names_stage1_instead_of_a_merged_copy_and_moves_with_it(tmp_path):
    runs = tmp_path / "runs"  # Stage I and Stage II side by side; the base model stays outside
    pairs = tmp_path / "pairs.jsonl"
    write_jsonl(pairs, PAIRS_KIND, ({"id": str(i), "pair_type": "gt-vs-worst", **p} for i, p in enumerate(PAIRS)))
    cfg = config(runs / "stage2", model=stage1_artefact(tmp_path, runs / "stage1"), pairs=str(pairs))
    final = run(cfg)
    assert json.loads((final / "spg_config.json").read_text())["stage1"] == "../../stage1"
    assert not (runs / "stage2" / "stage1-merged").exists()
    assert not list(runs.rglob("model*.safetensors")), "a copy of the base weights was written"
    assert (final / "pointer_head.safetensors").is_file() and (final / "tokenizer.json").is_file()
    adapter = load_file(final / "adapter_model.safetensors")
    assert not any(k.endswith(("embed_tokens.weight", "lm_head.weight")) for k in adapter), "embeddings saved"

    inputs = batch(SPGModel.from_pretrained(final).tokenizer)
    args = inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"]
    with torch.no_grad():
        before = completion_logps(SPGModel.from_pretrained(final).lm, *args)
        shutil.move(runs, tmp_path / "elsewhere")
        moved = SPGModel.from_pretrained(tmp_path / "elsewhere/stage2/final")
        after = completion_logps(moved.lm, *args)
        with moved.lm.disable_adapter():
            switched_off = completion_logps(moved.lm, *args)
        stage1 = completion_logps(SPGModel.from_pretrained(tmp_path / "elsewhere/stage1").lm, *args)
    assert torch.equal(before, after)
    assert torch.allclose(switched_off, stage1, atol=1e-4)


def test_configs_load_with_the_paper_values_and_overrides():
    paper = load_config(CONFIGS / "paper/llama3-8b-stage2.yaml", [])
    assert (paper.lora_r, paper.lora_alpha, paper.lora_dropout, paper.beta) == (8, 16, 0.05, 0.1)
    assert (paper.learning_rate, paper.lr_scheduler_type, paper.warmup_ratio) == (5e-6, "cosine", 0.1)
    assert (paper.per_device_train_batch_size, paper.gradient_accumulation_steps, paper.num_train_epochs) == (7, 4, 3)
    assert (paper.max_length, paper.temperatures, paper.max_new_tokens) == (2048, [0.3, 1.2], 768)
    assert (paper.num_descriptions, paper.kappa, paper.delta, paper.bf16) == (2000, 0.3, 0.1, True)
    assert paper.patentscore == Stage2Config().patentscore == "calibrated"
    assert load_config(CONFIGS / "paper/llama3-8b-stage2.yaml", ["patentscore=appendix"]).patentscore == "appendix"
    with pytest.raises(ConfigError, match="patentscore must be one of calibrated, appendix, precise, got 'literal'"):
        load_config(CONFIGS / "paper/llama3-8b-stage2.yaml", ["patentscore=literal"])
    cpu = load_config(CONFIGS / "cpu/smollm2-stage2.yaml", ["mode=matched", "max_steps=2"])
    assert (cpu.mode, cpu.max_steps) == ("matched", 2)
    with pytest.raises(ConfigError, match="mode must be one of"):
        load_config(CONFIGS / "cpu/smollm2-stage2.yaml", ["mode=ipo"])


@pytest.mark.slow
def test_smollm2_pairs_lpo_steps_save_reload_generate(tmp_path, uspto_path):
    from spg.generation.generator import load_generator
    from spg.generation.pointer_decode import DecodeSettings
    from spg.generation.runner import Document

    SPGModel.from_base(SPGConfig(base_model="smollm2")).save_pretrained(tmp_path / "stage1")
    cfg = load_config(CONFIGS / "cpu/smollm2-stage2.yaml", [
        f"model={tmp_path / 'stage1'}", f"data={uspto_path}", f"pairs={tmp_path / 'pairs.jsonl'}",
        f"output_dir={tmp_path / 'stage2'}", "num_descriptions=2", "max_new_tokens=16", "max_prompt_tokens=128",
        "max_length=256", "max_steps=2", "gradient_accumulation_steps=1",
    ])
    counts = make_pairs(cfg)
    assert counts["gt-vs-worst"] == 2
    final = run(cfg)
    # Loaded the long way (adapters on, PyTorch): the ready form and its ONNX export, which a merged load on the CPU
    # builds, are tested on tiny artefacts (test_ready.py, test_onnx_model.py); built here they took ~20 s and left
    # 1.1 GB in $SPG_CACHE every run, keyed by this run's new artefact files.
    generator = load_generator(str(final), DecodeSettings(max_new_tokens=16, merge_adapters=False),
                               max_prompt_tokens=128)
    assert generator.mode == "spg"
    (result,) = generator([Document("d", "A folding step stool with two steps and a locking hinge.")])
    assert result["new_tokens"] > 0 and result["raw"]


def test_spg_train_stage2_without_pairs_exits_2_naming_the_missing_file(tmp_path, capsys):
    from spg.cli import main

    stage1 = stage1_artefact(tmp_path)
    code = main(["train", "stage2", "--config", str(CONFIGS / "cpu/smollm2-stage2.yaml"), f"model={stage1}",
                 f"pairs={tmp_path / 'none.jsonl'}"])
    assert code == 2
    assert "none.jsonl' does not exist: run `spg pairs" in capsys.readouterr().err


def test_lpo_checkpoints_hold_no_embedding_matrix_and_resume_to_the_uninterrupted_state(tmp_path):
    # Loaded from disk, the base names a config whose vocabulary is smaller than the tagged model's, which is
    # what made PEFT's default save both full embedding matrices into every checkpoint.
    artefact = stage1_artefact(tmp_path)
    tokenizer = SPGModel.from_pretrained(artefact).tokenizer
    dataset, _ = tokenize_pairs(Dataset.from_list(PAIRS), tokenizer, 256)

    def lpo(name: str, steps: int) -> PeftModel:
        model = stage2_model(SPGModel.from_pretrained(artefact).merge_and_unload(), config(tmp_path / name))
        train(model, tokenizer, dataset, config(tmp_path / name, max_steps=steps, save_steps=1))
        return model

    full = lpo("full", 2)
    adapter = load_file(tmp_path / "full/checkpoint-1/adapter_model.safetensors")
    assert adapter and all(".lora_" in name for name in adapter)
    assert not any(t.shape[0] == len(tokenizer) for t in adapter.values()), "a full embedding matrix was saved"

    shutil.copytree(tmp_path / "full/checkpoint-1", tmp_path / "resumed/checkpoint-1")
    resumed = lpo("resumed", 2)  # train() resumes from the newest checkpoint in output_dir
    a, b = dict(full.named_parameters()), dict(resumed.named_parameters())
    assert any(p.any() for n, p in a.items() if "lora_B" in n), "LoRA B starts at zero: two steps must move it"
    for name, param in a.items():
        if param.requires_grad:
            assert torch.allclose(param, b[name], atol=1e-6), name
