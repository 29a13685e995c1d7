import json
import os

import pytest
import torch
from safetensors.torch import load_file
from tiny import tiny_llama, tiny_tokenizer

from spg.cli import main as spg_main
from spg.config import load_config
from spg.model.spg_model import SPGModel
from spg.train.stage1 import Stage1Config, Stage1Trainer, build_dataset, parameter_groups, train

CLAIMS = [
    {"num": 1, "text": "1. A chair comprising a seat.", "parents": []},
    {"num": 2, "text": "2. The chair of claim 1, wherein the seat is red.", "parents": [1]},
    {"num": 3, "text": "3. The chair of claim 2, wherein the seat is round.", "parents": [2]},
    {"num": 4, "text": "4. A table comprising a leg.", "parents": []},
    {"num": 5, "text": "5. The table of claim 4, wherein the leg is steel.", "parents": [4]},
]


@pytest.fixture
def tiny_run(tmp_path):
    """A saved tiny base model and a small JSONL corpus; returns a config factory."""
    base = tmp_path / "base"
    tiny_llama().save_pretrained(base)
    tiny_tokenizer().save_pretrained(base)
    data = tmp_path / "train.jsonl"
    with data.open("w") as f:
        for i in range(4):
            f.write(json.dumps({"id": f"d{i}", "description": f"A furniture set number {i}.", "claims": CLAIMS}) + "\n")

    def config(name: str, **overrides) -> Stage1Config:
        values = dict(
            train_file=str(data), output_dir=str(tmp_path / name), base_model=str(base), max_length=400,
            max_target_tokens=300, lora_r=4, lora_alpha=8, per_device_train_batch_size=2,
            gradient_accumulation_steps=1, max_steps=4, learning_rate=1e-2, warmup_ratio=0.0, bf16=False,
            gradient_checkpointing=False, logging_steps=1, save_steps=2, report_to="none",
        )
        values.update(overrides)
        return Stage1Config(**values)

    return config


def trainable_state(model: SPGModel) -> dict[str, torch.Tensor]:
    return {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}


def test_trainer_logs_each_term_and_the_loss_is_eq6(tiny_run, monkeypatch):
    captured = spy_trainer(monkeypatch)
    cfg = tiny_run("run", gamma=1.0, eta=0.5)
    train(cfg, model=SPGModel.from_base(cfg.model_config()))
    logs = [h for h in captured["trainer"].state.log_history if "loss_lm" in h]
    assert len(logs) == 4
    for h in logs:
        assert {"loss_struct", "loss_scope", "pointer_acc"} <= h.keys()
        assert h["loss"] == pytest.approx(h["loss_lm"] + 1.0 * h["loss_struct"] + 0.5 * h["loss_scope"], rel=1e-3, abs=1e-3)


def spy_trainer(monkeypatch) -> dict:
    """Capture the Stage1Trainer that train() builds."""
    captured = {}
    original = Stage1Trainer.train

    def spy(self, *a, **k):
        captured["trainer"] = self
        return original(self, *a, **k)

    monkeypatch.setattr(Stage1Trainer, "train", spy)
    return captured


def test_parameter_groups_put_the_pointer_head_alone_on_its_own_rate(tiny_run):
    model = SPGModel.from_base(tiny_run("groups").model_config())
    decay = [n for n, _ in model.named_parameters() if "lora_A" in n]
    groups = parameter_groups(model, decay, 0.01, 3e-7)
    assert [p for p in groups[2]["params"]] == [model.pointer.weight] and groups[2]["lr"] == 3e-7
    assert "lr" not in groups[0] and "lr" not in groups[1]
    grouped = [id(p) for g in groups for p in g["params"]]
    assert sorted(grouped) == sorted(id(p) for p in model.parameters() if p.requires_grad)


def test_pointer_lr_slows_only_the_pointer_head(tiny_run, monkeypatch):
    captured = spy_trainer(monkeypatch)
    cfg = tiny_run("slow_pointer", pointer_lr=1e-12, max_steps=2)
    model = SPGModel.from_base(cfg.model_config())
    before = trainable_state(model)
    train(cfg, model=model)
    rates = sorted(g["initial_lr"] for g in captured["trainer"].optimizer.param_groups)
    assert rates[0] == 1e-12 and rates[-1] == cfg.learning_rate
    assert (model.pointer.weight - before["pointer.weight"]).abs().max() < 1e-9
    assert any(not torch.equal(before[n], p) for n, p in model.named_parameters() if "lora_B" in n)


def test_auxiliary_weights_warm_up_from_zero_and_the_logged_loss_follows_them(tiny_run, monkeypatch):
    captured = spy_trainer(monkeypatch)
    cfg = tiny_run("warmup", gamma=1.0, eta=0.5, aux_warmup_ratio=1.0, max_steps=4)
    train(cfg, model=SPGModel.from_base(cfg.model_config()))
    logs = [h for h in captured["trainer"].state.log_history if "loss_lm" in h]
    assert [h["aux_weight"] for h in logs] == pytest.approx([0.0, 0.25, 0.5, 0.75])
    for h in logs:
        expected = h["loss_lm"] + h["aux_weight"] * (h["loss_struct"] + 0.5 * h["loss_scope"])
        assert h["loss"] == pytest.approx(expected, rel=1e-3, abs=1e-3)


def test_token_reduction_weighs_structure_terms_per_target_token(tiny_run, monkeypatch):
    captured = spy_trainer(monkeypatch)
    cfg = tiny_run("token", gamma=1.0, eta=0.0, aux_reduction="token", max_steps=1, logging_steps=1)
    train(cfg, model=SPGModel.from_base(cfg.model_config()))
    (log,) = [h for h in captured["trainer"].state.log_history if "loss_lm" in h]
    # 3 dependents over a few hundred byte-level target tokens: the structure term adds about 1% of L_struct.
    added = log["loss"] - log["loss_lm"]
    assert 0 < added < 0.05 * log["loss_struct"]


def test_an_unknown_aux_reduction_is_refused(tiny_run):
    with pytest.raises(ValueError, match="aux_reduction must be one of"):
        train(tiny_run("bad", aux_reduction="sum"))


def test_checkpoints_hold_adapter_pointer_and_tokenizer_not_the_base(tiny_run):
    cfg = tiny_run("run")
    final = train(cfg)
    for folder in (final, final.parent / "checkpoint-2"):
        names = set(os.listdir(folder))
        assert {"adapter_model.safetensors", "pointer_head.safetensors", "spg_config.json", "tokenizer.json"} <= names
        assert "model.safetensors" not in names
    assert {"optimizer.pt", "scheduler.pt", "trainer_state.json"} <= set(os.listdir(final.parent / "checkpoint-2"))


def test_checkpoint_adapter_holds_the_tag_rows_not_the_full_embedding_matrices(tiny_run):
    cfg = tiny_run("run", max_steps=2)
    model = SPGModel.from_base(cfg.model_config())
    train(cfg, model=model)
    adapter = load_file(os.path.join(cfg.output_dir, "checkpoint-2", "adapter_model.safetensors"))
    vocab = len(model.tokenizer)
    assert any("token_adapter" in name for name in adapter)  # the six trained rows do travel
    assert not any(t.shape[0] == vocab for t in adapter.values()), "a full embedding matrix was saved"


def test_training_changes_lora_pointer_and_tag_rows_and_saves_them(tiny_run):
    cfg = tiny_run("run", gradient_checkpointing=True)  # checkpointing must not cut the gradient to the adapter
    model = SPGModel.from_base(cfg.model_config())
    before = trainable_state(model)
    final = train(cfg, model=model)
    after = trainable_state(model)
    changed = {n for n in before if not torch.equal(before[n], after[n])}
    assert "pointer.weight" in changed
    assert any("lora_B" in n for n in changed) and any("token_adapter" in n for n in changed)
    reloaded = SPGModel.from_pretrained(final)
    assert torch.equal(reloaded.pointer.weight, model.pointer.weight)


def test_resuming_from_a_mid_run_checkpoint_reaches_the_uninterrupted_state(tiny_run):
    full_cfg = tiny_run("full")
    full = SPGModel.from_base(full_cfg.model_config())
    train(full_cfg, model=full)
    resumed_cfg = tiny_run("resumed")
    resumed = SPGModel.from_base(resumed_cfg.model_config())
    train(resumed_cfg, resume=str(os.path.join(full_cfg.output_dir, "checkpoint-2")), model=resumed)
    a, b = trainable_state(full), trainable_state(resumed)
    for name in a:
        assert torch.allclose(a[name], b[name], atol=1e-6), name


def test_baseline_format_trains_without_tags(tiny_run):
    cfg = tiny_run("baseline", tagged=False, gamma=0.0, eta=0.0, max_steps=1, max_length=600)
    model = SPGModel.from_base(cfg.model_config())
    examples = build_dataset(cfg, model)
    assert all(not e["claim_open"] for e in examples)
    train(cfg, model=model)


def test_baseline_with_structure_weights_is_refused(tiny_run):
    with pytest.raises(ValueError, match="gamma=0 and eta=0"):
        train(tiny_run("bad", tagged=False, gamma=1.0))


def test_cli_trains_from_a_config_file_with_overrides(tiny_run, tmp_path):
    cfg = tiny_run("cli")
    path = tmp_path / "stage1.yaml"
    path.write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in vars(cfg).items() if k != "extra_training_args"))
    assert load_config(Stage1Config, path).max_steps == 4
    assert spg_main(["train", "stage1", "--config", str(path), "max_steps=2"]) == 0
    assert (tmp_path / "cli" / "final" / "pointer_head.safetensors").is_file()
    assert spg_main(["train", "stage1", "--config", str(path), "max_steps=3", "--resume"]) == 0
    state = json.loads((tmp_path / "cli" / "checkpoint-3" / "trainer_state.json").read_text())
    assert state["global_step"] == 3


@pytest.mark.slow
def test_smollm2_stage1_run_saves_reloads_and_resumes(uspto_path, tmp_path):
    """A handful of real steps on the embedded SmolLM2 over a few USPTO documents."""
    overrides = [
        f"train_file={uspto_path}", "max_records=3", "max_length=384", "max_target_tokens=256", "lora_r=4",
        "max_steps=2", "save_steps=1", "gradient_accumulation_steps=1", "warmup_ratio=0.0", "logging_steps=1",
    ]
    cfg = load_config(Stage1Config, "configs/cpu/smollm2-stage1.yaml", [*overrides, f"output_dir={tmp_path / 'full'}"])
    model = SPGModel.from_base(cfg.model_config())
    examples = build_dataset(cfg, model)
    assert len(examples) == 3 and all(len(e["input_ids"]) <= 384 for e in examples)
    assert any(p >= 0 for e in examples for p in e["claim_parent"])  # real dependent claims reach the pointer
    final = train(cfg, model=model)
    from spg.model.batch import Collator

    batch = Collator(model.tokenizer.pad_token_id)(examples[:1])
    model.eval()
    with torch.no_grad():
        before = model(**batch)
        reloaded = SPGModel.from_pretrained(final).eval()
        after = reloaded(**batch)
    assert torch.equal(before.logits, after.logits)
    assert torch.equal(before.pointer_logits, after.pointer_logits)

    resumed_cfg = load_config(Stage1Config, "configs/cpu/smollm2-stage1.yaml", [*overrides, f"output_dir={tmp_path / 'resumed'}"])
    resumed = SPGModel.from_base(resumed_cfg.model_config())
    train(resumed_cfg, resume=str(tmp_path / "full" / "checkpoint-1"), model=resumed)
    a, b = trainable_state(model), trainable_state(resumed)
    for name in a:
        assert torch.allclose(a[name], b[name], atol=1e-6), name
