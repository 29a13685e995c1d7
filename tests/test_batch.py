import pytest
from tiny import tiny_llama, tiny_tokenizer

from spg.forest import Forest
from spg.linearize import DEP, DEP_END, IND, IND_END, linearize
from spg.model.batch import Collator, build_example, build_prompt, claim_prefix
from spg.model.tokens import add_structure_tokens, structure_token_ids
from spg.render import render

FOREST = Forest.from_parents(
    ["A chair comprising a seat.", "The chair of claim 1, wherein red.", "A table.", "The chair of claim 2, blue."],
    [[], [1], [], [2]],
)


@pytest.fixture(scope="module")
def tokenizer():
    tok = tiny_tokenizer()
    add_structure_tokens(tok, tiny_llama())
    return tok


def test_structure_tokens_are_single_ids_with_mean_embeddings():
    tok, model = tiny_tokenizer(), tiny_llama()
    old = model.get_input_embeddings().weight.detach().clone()
    ids = add_structure_tokens(tok, model)
    assert len(set(ids.values())) == 6 and all(i >= old.shape[0] for i in ids.values())
    emb = model.get_input_embeddings().weight.detach()
    for i in ids.values():
        assert tok.encode(tok.convert_ids_to_tokens(i), add_special_tokens=False) == [i]
        assert emb[i].allclose(old.mean(0))
        assert model.get_output_embeddings().weight[i].detach().allclose(model.get_output_embeddings().weight[:old.shape[0]].detach().mean(0))


def test_structure_token_ids_reject_a_tokenizer_without_tags():
    with pytest.raises(ValueError, match="not a single token"):
        structure_token_ids(tiny_tokenizer())


def test_prompt_truncates_the_description_to_the_budget(tokenizer):
    short = build_prompt(tokenizer, "a short description", 10_000)
    long = build_prompt(tokenizer, "word " * 1000, 300)
    assert len(long) == 300
    assert tokenizer.decode(long).endswith("<|start|>assistant\n")
    assert "a short description" in tokenizer.decode(short)


def test_labels_cover_exactly_the_serialised_forest(tokenizer):
    ex = build_example(tokenizer, "desc " * 50, FOREST, max_length=1000, max_target_tokens=500)
    target = [t for t, lab in zip(ex["input_ids"], ex["labels"]) if lab != -100]
    assert tokenizer.decode(target) == linearize(FOREST).text
    first = ex["labels"].index(target[0])
    assert all(lab == -100 for lab in ex["labels"][:first]) and all(lab != -100 for lab in ex["labels"][first:])


def test_prompt_and_target_fit_max_length(tokenizer):
    ex = build_example(tokenizer, "desc " * 500, FOREST, max_length=400, max_target_tokens=300)
    assert len(ex["input_ids"]) == 400
    assert tokenizer.decode([t for t, lab in zip(ex["input_ids"], ex["labels"]) if lab != -100]) == linearize(FOREST).text


def test_claim_positions_point_at_tags_and_carry_gold_structure(tokenizer):
    ex = build_example(tokenizer, "d", FOREST, max_length=1000, max_target_tokens=500)
    ids = structure_token_ids(tokenizer)
    tokens = ex["input_ids"]
    assert [tokens[p] for p in ex["claim_open"]] == [ids[IND], ids[DEP], ids[DEP], ids[IND]]
    assert [tokens[p] for p in ex["claim_close"]] == [ids[IND_END], ids[DEP_END], ids[DEP_END], ids[IND_END]]
    assert tokenizer.decode(tokens[ex["claim_start"][3]:ex["claim_end"][3]]) == "A table."
    assert ex["claim_parent"] == [-1, 0, 1, -1]
    assert ex["claim_depth"] == [1, 2, 3, 1]
    assert ex["claim_tree"] == [0, 0, 0, 1]


def target_ids(example: dict) -> list[int]:
    return [t for t, lab in zip(example["input_ids"], example["labels"]) if lab != -100]


def test_a_token_cut_target_keeps_only_complete_claims_in_the_pointer_fields(tokenizer):
    full = len(tokenizer.encode(linearize(FOREST).text, add_special_tokens=False))
    ex = build_example(tokenizer, "d", FOREST, max_length=1000, max_target_tokens=full - 5, target_truncation="tokens")
    assert len(ex["claim_open"]) == 3 and ex["claim_parent"] == [-1, 0, 1]
    assert len(target_ids(ex)) == full - 5 and not tokenizer.decode(target_ids(ex)).endswith("<eot>")


def test_a_claim_cut_target_is_a_whole_claim_prefix_that_still_ends_the_forest(tokenizer):
    full = tokenizer.encode(linearize(FOREST).text, add_special_tokens=False)
    ex = build_example(tokenizer, "d", FOREST, max_length=1000, max_target_tokens=len(full) - 5)
    target = tokenizer.decode(target_ids(ex))
    # The serialisation is chair, its dependent, the dependent's dependent, then the table: the table goes.
    assert target == linearize(claim_prefix(FOREST, 3)).text
    assert target.endswith("</dep><eot>") and "A table." not in target
    assert target_ids(ex)[:-1] == full[: len(target_ids(ex)) - 1]
    assert ex["claim_parent"] == [-1, 0, 1] and ex["claims_dropped"] == 1


def test_a_claim_cut_plain_target_ends_with_eos_after_its_last_whole_claim(tokenizer):
    plain = tokenizer.encode(render(FOREST), add_special_tokens=False)
    ex = build_example(tokenizer, "d", FOREST, max_length=1000, max_target_tokens=len(plain) - 3, tagged=False)
    assert tokenizer.decode(target_ids(ex)) == render(claim_prefix(FOREST, 3)) + tokenizer.eos_token


def test_a_first_claim_too_long_for_the_budget_is_cut_by_tokens(tokenizer):
    ex = build_example(tokenizer, "d", FOREST, max_length=1000, max_target_tokens=10)
    assert len(target_ids(ex)) == 10 and ex["claim_open"] == [] and ex["claims_dropped"] == 0


def test_no_target_cap_leaves_the_target_whole_and_cuts_the_description(tokenizer):
    full = tokenizer.encode(linearize(FOREST).text, add_special_tokens=False)
    ex = build_example(tokenizer, "desc " * 500, FOREST, max_length=400, max_target_tokens=None)
    assert target_ids(ex) == full and len(ex["input_ids"]) == 400


def test_the_description_is_cut_on_the_configured_side(tokenizer):
    text = "".join(f"w{i} " for i in range(300))
    left = tokenizer.decode(build_prompt(tokenizer, text, 200, truncation_side="left"))
    right = tokenizer.decode(build_prompt(tokenizer, text, 200, truncation_side="right"))
    assert "w299" in left and "w0 " not in left
    assert "w0 " in right and "w299" not in right
    with pytest.raises(ValueError, match="truncation side"):
        build_prompt(tokenizer, text, 200, truncation_side="middle")


def test_baseline_format_has_plain_claims_and_no_claim_positions(tokenizer):
    ex = build_example(tokenizer, "d", FOREST, max_length=1000, max_target_tokens=500, tagged=False)
    target = tokenizer.decode([t for t, lab in zip(ex["input_ids"], ex["labels"]) if lab != -100])
    assert target.startswith("1. A chair") and "<dep>" not in target and target.endswith(tokenizer.eos_token)
    assert ex["claim_open"] == []


def test_collator_right_pads_tokens_and_claims(tokenizer):
    a = build_example(tokenizer, "d", FOREST, max_length=1000, max_target_tokens=500)
    b = build_example(tokenizer, "d" * 30, Forest.from_parents(["A seat."], [[]]), max_length=1000, max_target_tokens=500)
    batch = Collator(tokenizer.pad_token_id)([a, b])
    n = len(a["input_ids"])
    length = max(n, len(b["input_ids"]))
    assert batch["input_ids"].shape == (2, length)
    assert batch["attention_mask"][0].sum() == n and batch["attention_mask"][1].sum() == len(b["input_ids"])
    assert batch["claim_mask"].tolist() == [[True] * 4, [True, False, False, False]]
    assert batch["claim_parent"][1].tolist() == [-1, -1, -1, -1]
    assert batch["claim_open"][0].tolist() == a["claim_open"]
    assert (batch["labels"][1, len(b["input_ids"]):] == -100).all()


def test_prompt_is_the_same_for_a_description_with_stray_whitespace(tokenizer):
    assert build_prompt(tokenizer, "  a short description\n\n", 10_000) == build_prompt(tokenizer, "a short description", 10_000)
