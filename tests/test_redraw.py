"""Checker in the loop (spg.generation.redraw): no printed claim draws a blocking finding; a blocked claim is rolled
back and redrawn deterministically within the budget; an exact repeat of a limitation is banned while decoding.

Tiny random models built in code; the checker is injected (it blocks claims holding a chosen character, which a
random byte-level model writes often enough), so the mechanism is tested apart from spg lint's rules."""

from __future__ import annotations

import random

import pytest
import torch
from test_lint_meaning import NARROWED, RESTATED
from tiny import tiny_llama, tiny_tokenizer

from spg.config import Invalid
from spg.forest import Claim, Forest
from spg.generation.config import DecodeSettings
from spg.generation.generator import ClaimGenerator
from spg.generation.prompts import ZERO_SHOT_INSTRUCTION
from spg.generation.redraw import READ_RULES, REDRAW_RULES, ClaimCheck
from spg.generation.repetition import NoRepeatedLimitation
from spg.generation.runner import Document
from spg.linearize import parse_tagged
from spg.lint import Finding
from spg.lint.meaning import reader
from spg.lint.rules import RULES
from spg.model.batch import INSTRUCTION
from spg.model.spg_model import SPGConfig, SPGModel
from spg.parse import parse_claims

DOCS = [Document("d1", "A chair with four legs and a seat."), Document("d2", "A lamp with a shade.")]


@pytest.fixture(scope="module")
def spg():
    """A tiny SPG model that likes structure tokens, so that short runs hold several claims."""
    torch.manual_seed(0)
    model = SPGModel.from_base(SPGConfig(lora_r=4), base=tiny_llama(), tokenizer=tiny_tokenizer()).eval()
    tag_ids = torch.tensor(list(model.structure_ids.values()))
    eot = model.structure_ids["<eot>"]

    def favour_tags(module, args, logits):
        logits[..., tag_ids] += 3.0
        logits[..., eot] -= 3.0
        return logits

    model.lm.get_output_embeddings().register_forward_hook(favour_tags)
    return model


def holding(chars: str, partial: bool = True) -> ClaimCheck:
    """A checker that blocks every claim holding one of ``chars`` (also while it is written, with ``partial``)."""

    def findings(forest: Forest) -> list[Finding]:
        return [Finding("test-char", "warning", c.num, "holds a blocked character") for c in forest.claims
                if any(ch in c.text for ch in chars)]

    return ClaimCheck(findings, frozenset({"test-char"}), frozenset({"test-char"} if partial else ()))


def generate(spg, check: ClaimCheck | None, docs=DOCS, constrained: bool = True, **settings) -> list[dict]:
    decode = DecodeSettings(**{"max_new_tokens": 60, "do_sample": False, **settings})
    generator = ClaimGenerator(spg.lm, spg.tokenizer, "spg", decode, INSTRUCTION, 512, spg, constrained)
    if check is not None:
        generator.check = check
    return generator(docs)


def first_claim_chars(results: list[dict]) -> str:
    """A character of each document's first claim in ``results``, so that a checker blocking it redraws each."""
    return "".join(sorted({r["forest"][0]["text"].strip()[0] for r in results if r["forest"]}))


def test_no_printed_claim_draws_a_blocking_finding_and_redraws_are_reported(spg):
    plain = generate(spg, None, redraws=0)
    chars = first_claim_chars(plain)
    assert chars and all(r["redraws"] == 0 for r in plain)
    for one_at_a_time in (True, False):  # alone: stopped as the claim is written, cache kept; in a batch: after it
        batches = [[d] for d in DOCS] if one_at_a_time else [DOCS]
        checked = [r for batch in batches for r in generate(spg, holding(chars), docs=batch)]
        assert all(r["valid"] for r in checked), [r["reasons"] for r in checked]
        assert not [c for r in checked for c in r["forest"] if any(ch in c["text"] for ch in chars)]
        assert all(r["redraws"] >= 1 for r in checked)
        assert all(r["claims_text"] != p["claims_text"] for r, p in zip(checked, plain, strict=True))


def test_greedy_and_seeded_runs_stay_deterministic_with_redraws(spg):
    chars = first_claim_chars(generate(spg, None, redraws=0))
    for sampled in (False, True):
        runs = []
        for _ in range(2):
            torch.manual_seed(7)
            runs.append(generate(spg, holding(chars), do_sample=sampled, temperature=0.7))
        assert runs[0] == runs[1]
        assert any(r["redraws"] for r in runs[0])


def test_a_document_is_redrawn_alike_alone_and_in_a_batch(spg):
    # the redraw key comes from the run's seed, the document and the attempt; alone, the cache of the accepted claims
    # is kept and cropped, and prompt lookup drafts; in a batch, the redraw reads its prompt again
    chars = first_claim_chars(generate(spg, None, redraws=0))
    torch.manual_seed(3)
    together = generate(spg, holding(chars, partial=False))
    torch.manual_seed(3)
    alone = [generate(spg, holding(chars, partial=False), docs=[d])[0] for d in DOCS]
    assert [(r["raw"], r["pointer_parents"], r["redraws"]) for r in together] == [
        (r["raw"], r["pointer_parents"], r["redraws"]) for r in alone]


def test_when_the_budget_is_spent_the_claim_set_ends_at_its_last_good_claim(spg):
    def after_the_first(forest: Forest) -> list[Finding]:
        return [Finding("test-late", "warning", c.num, "any claim after the first") for c in forest.claims[1:]]

    (result,) = generate(spg, ClaimCheck(after_the_first, frozenset({"test-late"})), docs=DOCS[:1], redraws=2)
    assert result["valid"] and len(result["forest"]) == 1
    assert result["redraws"] == 2 and result["ended_by_checker"]
    assert result["raw"].endswith("<eot>") and result["cut_by_budget"] == ""
    (spent,) = generate(spg, ClaimCheck(after_the_first, frozenset({"test-late"})), docs=DOCS[:1], redraws=5,
                        redraw_tokens=0)
    assert spent["redraws"] == 0 and spent["ended_by_checker"] and len(spent["forest"]) == 1


def test_a_claim_being_written_stops_at_a_phrases_end_and_the_same_claims_are_printed(spg):
    # commas made likely, so that claims have phrases; a checker whose finding a claim keeps once a phrase draws it
    comma = spg.tokenizer.convert_tokens_to_ids(",")
    commas = spg.lm.get_output_embeddings().register_forward_hook(lambda m, a, logits: logits.index_add_(
        -1, torch.tensor([comma]), torch.full((*logits.shape[:-1], 1), 2.5)))
    forwards = [0]
    counted = spg.lm.get_output_embeddings().register_forward_pre_hook(
        lambda m, a: forwards.__setitem__(0, forwards[0] + 1))
    try:
        chars = first_claim_chars(generate(spg, None, redraws=0))
        check = ClaimCheck(holding(chars).findings, frozenset({"test-char"}), frozenset(), frozenset({"test-char"}))
        runs = {}
        for stop_at in ("claim", "limitation", "phrase"):
            forwards[0] = 0
            torch.manual_seed(5)
            # a rejected-token budget that never binds: a claim stopped early spends less of it
            results = [generate(spg, check, docs=[d], redraw_stop_at=stop_at, redraw_tokens=10_000)[0] for d in DOCS]
            runs[stop_at] = [(r["raw"], r["pointer_parents"], r["redraws"]) for r in results], forwards[0]
    finally:
        commas.remove()
        counted.remove()
    assert runs["claim"][0] == runs["limitation"][0] == runs["phrase"][0]
    assert sum(redraws for _, _, redraws in runs["phrase"][0]) >= 2
    assert not [c for r in runs["phrase"][0] for c in parse_tagged(r[0]).forest.claims if any(ch in c.text for ch in chars)]
    # no limitation ends here (the checker reads none), so only phrase ends stop a claim early
    assert runs["phrase"][1] < runs["claim"][1] == runs["limitation"][1]


def test_zero_shot_plain_claims_are_checked_line_by_line():
    model, tok = tiny_llama(seed=1), tiny_tokenizer()
    newline = tok.encode("\n", add_special_tokens=False)[0]
    model.get_output_embeddings().register_forward_hook(lambda m, a, logits: logits.index_add_(
        -1, torch.tensor([newline]), torch.full((*logits.shape[:-1], 1), 2.0)))  # many short lines

    def run(check: ClaimCheck) -> list[dict]:
        gen = ClaimGenerator(model, tok, "zero-shot", DecodeSettings(max_new_tokens=40, temperature=1.0),
                             ZERO_SHOT_INSTRUCTION, 1400)
        gen.check = check
        torch.manual_seed(0)
        return gen(DOCS)

    plain = run(ClaimCheck(lambda forest: [], frozenset()))
    text = "".join(c["text"] for r in plain for c in r["forest"])
    assert "\n" in "".join(r["raw"] for r in plain) and text
    chars = "".join(sorted({ch for ch in text if ch.strip()})[:3])
    checked = run(holding(chars))
    assert not [c for r in checked for c in r["forest"] if any(ch in c["text"] for ch in chars)]
    assert any(r["redraws"] for r in checked) and checked == run(holding(chars))


def test_structure_errors_and_the_drafting_rules_block_a_claim():
    check = ClaimCheck()
    cites_itself = Forest.from_claims([Claim(1, "A stool comprising a seat.", ()), Claim(2, "The stool of claim 2.", (2,))])
    assert {f.rule for f in check.blocking(cites_itself)} == {"self-reference"}
    copied = Forest.from_claims([
        Claim(1, "A stool comprising a seat and a leg.", ()),
        Claim(2, "The stool of claim 1, wherein the seat is moulded from reinforced polypropylene.", (1,)),
        Claim(3, "The stool of claim 1, wherein the seat is moulded from reinforced polypropylene.", (1,)),
    ])
    assert "duplicate-claim" in {f.rule for f in check.blocking(copied)}
    good = Forest.from_claims(copied.claims[:2])
    assert check.blocking(good) == []
    contradicts = Forest.from_claims([
        Claim(1, "A stool comprising a frame and a step that is fixed to the frame.", ()),
        Claim(2, "The stool of claim 1, wherein the step is pivoted to the frame.", (1,)),
    ])
    assert {f.rule for f in check.blocking(contradicts)} == {"contradicts-parent"}
    widened = Forest.from_claims([
        Claim(1, "A stool comprising a seat having a height of from 40 to 60 cm.", ()),
        Claim(2, "The stool of claim 1, wherein the seat has a height of from 30 to 60 cm.", (1,)),
    ])
    assert {f.rule for f in check.blocking(widened)} == {"range-outside-parent"}
    chat = Forest.from_claims([
        Claim(1, "A stool comprising a seat.", ()),
        Claim(2, "Here is the next claim: the stool of claim 1, further comprising a seat.", (1,)),
    ])
    assert {f.rule for f in check.blocking(chat)} == {"not-a-claim"}
    assert set(RULES) >= REDRAW_RULES  # each id the checker blocks is a rule spg lint reports


def test_with_the_reader_a_claim_it_reads_as_a_restatement_is_blocked_and_the_reader_is_loaded_once():
    # the shipped reader on a real restatement in other words that the word rules miss (tests/test_lint_meaning.py)
    read, rules = ClaimCheck.reading("read"), ClaimCheck.reading("rules")
    assert rules == ClaimCheck() and set(RULES) >= READ_RULES and not READ_RULES & rules.rules
    restated, narrowed = parse_claims(RESTATED), parse_claims(NARROWED)
    assert rules.blocking(restated) == [] and read.blocking(narrowed) == []
    assert [(f.rule, f.claim) for f in read.blocking(restated)] == [("restatement", 4)]
    loads = reader.shipped_reader.cache_info().misses
    for _ in range(3):
        assert read.blocking(restated) and not read.blocking(narrowed)
    assert reader.shipped_reader.cache_info().misses == loads == 1
    # read at the claim's end only: a claim cut short may restate what its end would add to
    assert not READ_RULES & (read.partial_rules | read.phrase_rules)


def test_the_generators_checker_reads_restatement_as_its_settings_say(spg, monkeypatch):
    """A claim the reader flags is redrawn under ``restatement: read`` and printed under ``rules`` (the reader's
    findings injected: claims holding chosen characters, which a random model writes often enough)."""
    chars = first_claim_chars(generate(spg, None, redraws=0))
    read_claims = []

    def flags(forest, readings, above, found, reader=None):
        read_claims.extend(c.num for c in forest.claims)
        return [Finding("restatement", "warning", c.num, "injected") for c in forest.claims
                if any(ch in c.text for ch in chars)]

    monkeypatch.setattr(reader, "restatement_findings", flags)
    held = {}
    for mode in ("rules", "read"):
        torch.manual_seed(0)
        results = generate(spg, None, restatement=mode)
        held[mode] = [c for r in results for c in r["forest"] if any(ch in c["text"] for ch in chars)]
        assert all(r["valid"] for r in results)
        if mode == "rules":
            assert held[mode] and not read_claims  # the reader is not even asked
        else:
            assert read_claims and all(r["redraws"] >= 1 for r in results)
    assert held["rules"] and not held["read"]


def reference_bans(g: list[int], sep: int, skip: int, bound: int, min_tokens: int = 4) -> set[int]:
    """NoRepeatedLimitation read plainly: the last token of each earlier limitation of the current claim that the
    limitation being written copies up to that token."""
    claim = g[max([i + 1 for i, t in enumerate(g) if t == bound], default=0) :]
    done, current = [], []
    for t in claim:
        if t == sep:
            done.append(current)
            current = []
        else:
            current.append(t)

    def strip(s: list[int]) -> list[int]:
        while s and s[0] == skip:
            s = s[1:]
        return s

    current = strip(current)
    return {s[-1] for s in map(strip, done) if len(s) == len(current) + 1 >= min_tokens and s[:-1] == current}


def test_an_exact_repeat_of_a_limitation_is_banned_at_its_last_token():
    sep, skip, bound, vocab = 1, 2, 3, 8
    rng = random.Random(0)
    banned_somewhere = skipped_quickly = 0
    for _ in range(1500):
        base = [rng.randrange(4, vocab) for _ in range(rng.randrange(3, 6))]
        g: list[int] = []
        for _ in range(rng.randrange(1, 8)):
            roll = rng.random()
            g += [skip] * (rng.random() < 0.3)
            g += base if roll < 0.4 else base[: rng.randrange(len(base))] if roll < 0.7 else [
                rng.randrange(2, vocab) for _ in range(rng.randrange(1, 6))]
            g.append(rng.choice([sep, sep, sep, bound]) if rng.random() < 0.9 else rng.randrange(4, vocab))
        g += base[: rng.randrange(len(base) + 1)]
        block = NoRepeatedLimitation([sep], [skip], [bound], vocab)
        block(torch.tensor([[5, 6]]), torch.zeros(1, vocab))  # the prompt
        scores = block(torch.tensor([[5, 6, *g]]), torch.zeros(1, vocab))
        expected = reference_bans(g, sep, skip, bound)
        assert {i for i in range(vocab) if scores[0, i] == float("-inf")} == expected, g
        banned_somewhere += bool(expected)
        # the host's shortcut (CPU rows) says "nothing to ban" only where the tensor operations ban nothing
        skipped_quickly += block._nothing_to_ban(torch.tensor([g]))
        assert not (expected and block._nothing_to_ban(torch.tensor([g])))
    assert banned_somewhere > 50 and skipped_quickly > 50


def test_a_tokenizers_limitation_ends_and_skipped_words_are_read_from_its_vocabulary(spg):
    tok = spg.tokenizer
    written = tok.encode("A stool comprising: a seat on four legs; ", add_special_tokens=False)
    copy = tok.encode("a seat on four legs", add_special_tokens=False)
    block = NoRepeatedLimitation.from_tokenizer(tok, [], len(tok))
    prompt = tok.encode("Claims:", add_special_tokens=False)
    block(torch.tensor([prompt]), torch.zeros(1, len(tok)))
    scores = block(torch.tensor([prompt + written + copy[:-1]]), torch.zeros(1, len(tok)))
    assert scores[0, copy[-1]] == float("-inf") and (scores[0] == float("-inf")).sum() == 1


def test_redraw_settings_are_checked():
    with pytest.raises(Invalid, match="redraws"):
        DecodeSettings(redraws=-1).check()
    with pytest.raises(Invalid, match="redraw_temperature"):
        DecodeSettings(redraw_temperature=0).check()
    with pytest.raises(Invalid, match="redraw_stop_at"):
        DecodeSettings(redraw_stop_at="word").check()
    with pytest.raises(Invalid, match="restatement"):
        DecodeSettings(restatement="reader").check()
    DecodeSettings(redraws=0, redraw_tokens=0).check()


def test_a_streamer_is_shown_each_claim_once_it_passes_and_never_one_the_checker_rejects(spg):
    from spg.generation.streaming import ClaimStreamer

    chars = first_claim_chars(generate(spg, None, redraws=0))
    decode = DecodeSettings(max_new_tokens=60, do_sample=False)
    generator = ClaimGenerator(spg.lm, spg.tokenizer, "spg", decode, INSTRUCTION, 512, spg, True)
    generator.check = holding(chars)
    for doc in DOCS:
        seen: list[Forest] = []
        result = generator([doc], streamer=ClaimStreamer(spg.tokenizer, True, seen.append))[0]
        assert result["redraws"] >= 1
        # the claims as the model wrote them (the printed forest's "of claim N" is then written from the pointer)
        final = [c.text for c in parse_tagged(result["raw"]).forest.claims]
        assert seen and [c.text for c in seen[-1].claims] == final and len(final) == len(result["forest"])
        for forest in seen:  # each view a prefix of the written claims: a claim once shown is never taken back
            texts = [c.text for c in forest.claims]
            assert texts == final[: len(texts)]
            assert not [t for t in texts if any(ch in t for ch in chars)]
        assert len(final) >= 2 and len(seen) >= 2  # shown as they pass, not all at the end
