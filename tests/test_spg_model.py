import random
from pathlib import Path

import pytest
import torch
from tiny import tiny_llama, tiny_local_lm, tiny_tokenizer

from spg.forest import Forest
from spg.model.batch import Collator, build_example
from spg.model.losses import stage1_loss
from spg.model.spg_model import SPGConfig, SPGModel, portable_path

FOREST = Forest.from_parents(
    ["A chair comprising a seat.", "The chair of claim 1, wherein red.", "A table.", "The chair of claim 2, blue."],
    [[], [1], [], [2]],
)


def tiny_spg(**overrides) -> SPGModel:
    config = SPGConfig(base_model="tiny", lora_r=4, lora_alpha=8, lora_dropout=0.0, **overrides)
    return SPGModel.from_base(config, tiny_llama(), tiny_tokenizer())


def batch_for(model: SPGModel, forests, description="a description") -> dict[str, torch.Tensor]:
    examples = [build_example(model.tokenizer, description, f, 1000, 500) for f in forests]
    return Collator(model.tokenizer.pad_token_id)(examples)


def test_hidden_states_are_the_final_layer_states_of_the_same_forward():
    model = tiny_spg()
    batch = batch_for(model, [FOREST])
    out = model(**batch)
    reference = model.lm(input_ids=batch["input_ids"], output_hidden_states=True)
    assert torch.allclose(out.hidden, reference.hidden_states[-1], atol=1e-6)
    assert torch.allclose(out.logits, reference.logits, atol=1e-6)


def test_gradients_reach_lora_pointer_and_tag_embeddings_and_nothing_frozen():
    torch.manual_seed(0)
    model = tiny_spg()
    with torch.no_grad():  # LoRA B starts at zero, which would hide the A gradients
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(std=0.1)
    out = model(**batch_for(model, [FOREST]))
    stage1_loss(out.lm_loss, out.struct_loss, out.scope_loss, 1.0, 0.01).sum().backward()
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    assert {n for n, p in model.named_parameters() if p.grad is not None} == trainable
    assert any("lora_A" in n for n in trainable) and any("lora_B" in n for n in trainable)
    assert "pointer.weight" in trainable
    assert any("embed_tokens.token_adapter" in n for n in trainable)
    assert any("lm_head.token_adapter" in n for n in trainable)  # untied head: the tags' output rows train too
    for name, p in model.named_parameters():
        if p.requires_grad:
            assert p.grad.abs().sum() > 0, name
        else:
            assert "lora" not in name and "token_adapter.trainable" not in name
    frozen = sum(p.numel() for p in model.parameters() if not p.requires_grad)
    assert frozen > 0


def test_tag_embedding_gradient_touches_only_the_tag_rows():
    model = tiny_spg()
    out = model(**batch_for(model, [FOREST]))
    out.lm_loss.sum().backward()
    delta = dict(model.named_parameters())["lm.base_model.model.model.embed_tokens.token_adapter.trainable_tokens_delta.default"]
    assert delta.shape[0] == 6 and delta.grad.abs().sum() > 0


def test_save_and_reload_give_identical_logits_and_pointer_scores(tmp_path):
    base_dir = tmp_path / "base"
    tiny_llama(seed=3).save_pretrained(base_dir)
    tiny_tokenizer().save_pretrained(base_dir)
    torch.manual_seed(0)
    model = SPGModel.from_base(SPGConfig(base_model=str(base_dir), lora_r=4, lora_alpha=8))
    with torch.no_grad():  # make every saved part differ from its initial value
        for p in model.parameters():
            if p.requires_grad:
                p.add_(torch.randn_like(p) * 0.05)
    model.eval()
    batch = batch_for(model, [FOREST])
    before = model(**batch)
    model.save_pretrained(tmp_path / "out")
    reloaded = SPGModel.from_pretrained(tmp_path / "out").eval()
    after = reloaded(**batch)
    assert torch.equal(before.logits, after.logits)
    assert torch.equal(before.pointer_logits, after.pointer_logits)
    assert reloaded.structure_ids == model.structure_ids


def test_stage1_path_is_stored_relative_only_when_the_artefacts_share_a_directory():
    assert portable_path(Path("/runs/stage1/final"), Path("/runs/stage2/final")) == "../../stage1/final"
    assert portable_path(Path("/runs/stage2/final/stage1"), Path("/runs/stage2/final")) == "stage1"
    assert portable_path(Path("/models/stage1"), Path("/runs/stage2/final")) == "/models/stage1"


def test_stage2_artefact_without_its_stage1_fails_naming_both_paths(tmp_path):
    SPGConfig(stage1=str(tmp_path / "gone")).save(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"stage1 = 'gone' resolves to .*gone, which is not an SPG"):
        SPGModel.from_pretrained(tmp_path)


def test_score_parents_matches_the_training_pointer_logits():
    model = tiny_spg().eval()
    batch = batch_for(model, [FOREST])
    out = model(**batch)
    h = out.hidden[0]
    scores = model.score_parents(h[batch["claim_open"][0, 2]], h[batch["claim_close"][0, :2]])
    assert torch.allclose(scores, out.pointer_logits[0, 2, :2], atol=1e-6)


def test_record_hidden_collects_one_state_per_generated_token():
    model = tiny_spg().eval()
    prompt = batch_for(model, [FOREST])["input_ids"][:, :50]
    with model.record_hidden() as states:
        model.lm.generate(input_ids=prompt, max_new_tokens=5, do_sample=False, min_new_tokens=5)
    assert len(states) == 5 and all(s.shape[-1] == 32 for s in states)


def synthetic_forest(rng: random.Random) -> Forest:
    """Five claims; each ends with its own name (upper case) and the name of the next claim's parent (lower case).

    So at the next ``<dep>`` the parent is recoverable from the text just before it. Parents lie on the path from
    the root to the previous claim, so document order is Eq. 1's order and "next" means next in the sequence.
    """
    names = rng.sample(range(26), 5)
    parents: list[list[int]] = [[]]
    path = [1]
    for i in range(2, 6):
        cut = rng.randrange(len(path))
        parents.append([path[cut]])
        path = path[: cut + 1] + [i]
    texts = []
    for i in range(5):
        nxt = chr(ord("a") + names[parents[i + 1][0] - 1]) if i + 1 < 5 else "z"
        cite = f"Of claim {parents[i][0]}: " if parents[i] else ""  # cited, so linearize appends no reference
        texts.append(f"{cite}{chr(ord('A') + names[i])}{nxt}")
    return Forest.from_parents(texts, parents)


def test_pointer_learns_parents_recoverable_from_text():
    """Stage I loss (γ = 1) on the local-attention tiny LM: teacher-forced pointer accuracy on fresh forests > 0.95."""
    torch.manual_seed(0)
    rng = random.Random(0)
    config = SPGConfig(base_model="tiny", lora_r=8, lora_alpha=16, lora_dropout=0.0)
    model = SPGModel.from_base(config, tiny_local_lm(), tiny_tokenizer())
    model.train()
    rest = [p for n, p in model.named_parameters() if p.requires_grad and n != "pointer.weight"]
    # The pointer head is a fresh d×d matrix; like most task heads it takes a larger step than the adapter.
    optim = torch.optim.AdamW([{"params": [model.pointer.weight], "lr": 3e-2}, {"params": rest, "lr": 1e-3}])
    collate = Collator(model.tokenizer.pad_token_id)

    def sample(n):
        return collate([build_example(model.tokenizer, "", synthetic_forest(rng), 200, 150, instruction="x") for _ in range(n)])

    for _ in range(150):
        out = model(**sample(16))
        loss = stage1_loss(out.lm_loss, out.struct_loss, out.scope_loss, 1.0, 0.01).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
    model.eval()
    with torch.no_grad():
        out = model(**sample(64))
    accuracy = out.pointer_correct.sum().item() / out.pointer_total.sum().item()
    assert accuracy > 0.95, accuracy
    print(f"teacher-forced pointer accuracy {accuracy:.3f}")  # shown with pytest -s


@pytest.mark.parametrize("structure", [True, False])
def test_structure_flag_skips_pointer_and_scope(structure):
    model = tiny_spg()
    out = model(**batch_for(model, [FOREST]), structure=structure)
    assert (out.struct_loss is not None) == structure and (out.scope_loss is not None) == structure


def test_a_batch_without_claims_gives_zero_structure_terms_and_a_zero_pointer_gradient():
    """What DDP needs (spg.model.spg_model.SPGModel.forward): the pointer head is in every step's graph, even when a
    process's share of the batch holds no complete claim (a target cut before its first claim ends)."""
    model = tiny_spg()
    example = build_example(model.tokenizer, "a description", FOREST, 1000, 10)  # 10 tokens: no claim fits
    batch = Collator(model.tokenizer.pad_token_id)([example])
    assert batch["claim_mask"].shape[-1] == 0
    out = model(**batch)
    assert out.struct_loss.tolist() == [0.0] and out.scope_loss.tolist() == [0.0]
    assert out.pointer_total.tolist() == [0]
    (out.lm_loss + out.struct_loss + out.scope_loss).sum().backward()
    assert model.pointer.weight.grad is not None and not model.pointer.weight.grad.any()


def test_close_query_model_scores_closing_states_and_keeps_the_setting_across_a_reload(tmp_path):
    torch.manual_seed(0)
    model = tiny_spg(pointer_query="close").eval()
    batch = batch_for(model, [FOREST])
    with torch.no_grad():
        out = model(**batch)
    h = out.hidden[0]
    closes = batch["claim_close"][0]
    expected = model.score_parents(h[closes[1]], h[closes[:1]])  # claim 2's closing tag asks among claim 1
    assert torch.allclose(out.pointer_logits[0, 1, :1], expected, atol=1e-5)
    model.save_pretrained(tmp_path / "model")
    assert SPGModel.from_pretrained(tmp_path / "model", base=tiny_llama()).pointer.query == "close"
