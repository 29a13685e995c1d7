"""Fences around the four private parts of transformers spg relies on, where no public API does the job.

Each test fails with a message naming the internal when a transformers release renames it, stops calling it or
changes what it receives, instead of letting checkpoints, resumes or decoding go silently wrong:

* ``Trainer._save``: spg.train.checkpoint.AdapterCheckpointTrainer overrides it so that checkpoints hold the adapter
  without the resized embedding matrices. ``Trainer.save_model`` (public) also handles TPU, SageMaker, FSDP and
  DeepSpeed before it calls ``_save``, and ``_save_checkpoint`` reaches the model only through it.
* ``Trainer._load_from_checkpoint``: Stage1Trainer overrides it, since an SPGModel is neither a PreTrainedModel nor a
  PeftModel and the Trainer has no public hook for loading a resumed model's weights.
* ``transformers.generation.utils.DeferredStopCheck.is_supported``: spg.generation.pointer_decode.deferred_stop_check
  swaps it for the duration of a ``generate`` call (transformers has no setting for reading the stop flag late).
* ``GenerationMixin._get_candidate_generator``: spg.generation.drafts.drafting swaps it for the duration of a
  ``generate`` call, so that prompt lookup drafts with spg's RecentLookup (transformers has no setting for it).
* ``prepare_inputs_for_generation(..., next_sequence_length=...)``: spg.generation.pointer_decode.continuing wraps it
  for one ``generate`` call that continues a KV cache, since assisted generation feeds its whole prompt on its first
  forward whatever the cache holds.
"""

from __future__ import annotations

import inspect
import os

import torch
from test_stage1 import tiny_run  # noqa: F401 (a fixture)
from tiny import tiny_llama, tiny_tokenizer
from transformers import Trainer
from transformers.generation import utils as generation_utils

from spg.generation.pointer_decode import deferred_stop_check
from spg.train.checkpoint import AdapterCheckpointTrainer
from spg.train.stage1 import Stage1Trainer, train


def parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_trainer_still_writes_every_model_through_the_private_save(tiny_run, monkeypatch):  # noqa: F811
    assert parameters(Trainer._save)[:3] == ["self", "output_dir", "state_dict"], (
        f"transformers.Trainer._save now takes {parameters(Trainer._save)}: update "
        "spg.train.checkpoint.AdapterCheckpointTrainer._save, which overrides it")
    written = []
    original = AdapterCheckpointTrainer._save

    def spy(self, output_dir=None, state_dict=None):
        written.append(os.path.basename(output_dir))
        return original(self, output_dir, state_dict)

    monkeypatch.setattr(AdapterCheckpointTrainer, "_save", spy)
    train(tiny_run("run", max_steps=1, save_steps=1))
    assert written == ["checkpoint-1", ".final.partial"], (  # final is filled under that name (spg.files.whole_folder)
        f"transformers.Trainer saved {written} through Trainer._save, expected checkpoint-1 and final: it no longer "
        "writes models through _save, which spg.train.checkpoint.AdapterCheckpointTrainer overrides to leave the "
        "embedding matrices out of every checkpoint")


def test_trainer_still_loads_a_resumed_model_through_the_private_load(tiny_run, monkeypatch):  # noqa: F811
    assert parameters(Trainer._load_from_checkpoint)[:3] == ["self", "resume_from_checkpoint", "model"], (
        f"transformers.Trainer._load_from_checkpoint now takes {parameters(Trainer._load_from_checkpoint)}: update "
        "spg.train.stage1.Stage1Trainer._load_from_checkpoint, which overrides it")
    config = tiny_run("run", max_steps=2, save_steps=1)
    train(config)
    loaded = []
    original = Stage1Trainer._load_from_checkpoint

    def spy(self, resume_from_checkpoint, model=None):
        loaded.append(os.path.basename(resume_from_checkpoint))
        return original(self, resume_from_checkpoint, model)

    monkeypatch.setattr(Stage1Trainer, "_load_from_checkpoint", spy)
    train(config, resume=os.path.join(config.output_dir, "checkpoint-1"))
    assert loaded == ["checkpoint-1"], (
        "transformers.Trainer no longer loads a resumed model through Trainer._load_from_checkpoint, which "
        "spg.train.stage1.Stage1Trainer overrides to load the adapter and the pointer head: resumed runs would "
        "start from fresh weights")


def test_generate_still_asks_deferred_stop_check_is_supported():
    check = getattr(generation_utils, "DeferredStopCheck", None)
    assert check is not None and isinstance(check.__dict__.get("is_supported"), staticmethod), (
        "transformers.generation.utils.DeferredStopCheck.is_supported (a staticmethod) is gone: "
        "spg.generation.pointer_decode.deferred_stop_check would silently do nothing")
    assert parameters(check.is_supported) == ["device", "cache", "cache_is_returned", "is_assistant"], (
        f"DeferredStopCheck.is_supported now takes {parameters(check.is_supported)}: update "
        "spg.generation.pointer_decode.deferred_stop_check, which replaces it")
    cpu = torch.device("cpu")
    with deferred_stop_check(True):
        assert check.is_supported(cpu, None, False, False), "deferred_stop_check(True) no longer defers on the CPU"
    assert not check.is_supported(cpu, None, False, False), "DeferredStopCheck.is_supported was not restored"

    tokenizer = tiny_tokenizer()
    model = tiny_llama(vocab_size=len(tokenizer))
    prompt = tokenizer(["a chair"], return_tensors="pt")
    asked = []
    original = check.__dict__["is_supported"]

    def spy(*args, **kwargs):
        asked.append(True)
        return original.__func__(*args, **kwargs)

    check.is_supported = staticmethod(spy)
    try:
        with torch.no_grad():
            model.generate(**prompt, max_new_tokens=3, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    finally:
        check.is_supported = original
    assert asked, (
        "transformers' generate no longer asks DeferredStopCheck.is_supported whether to read the stop flag late: "
        "spg.generation.pointer_decode.deferred_stop_check, which replaces it, would silently do nothing")


def test_assisted_generation_still_takes_its_drafts_from_the_private_candidate_generator():
    from transformers import GenerationMixin

    from spg.generation.drafts import RecentLookup, drafting

    method = GenerationMixin.__dict__.get("_get_candidate_generator")
    assert method is not None and parameters(method)[:2] == ["self", "generation_config"], (
        "transformers.GenerationMixin._get_candidate_generator(self, generation_config, ...) is gone or changed: "
        "spg.generation.drafts.drafting, which replaces it, would silently draft with transformers' own prompt lookup")
    tokenizer = tiny_tokenizer()
    model = tiny_llama(vocab_size=len(tokenizer))
    prompt = tokenizer(["a chair and a chair and a chair"], return_tensors="pt")
    made = []
    original = RecentLookup.get_candidates

    def spy(self, input_ids, **kwargs):
        made.append(type(self))
        return original(self, input_ids, **kwargs)

    RecentLookup.get_candidates = spy
    try:
        with torch.no_grad(), drafting(4, 3):
            model.generate(**prompt, max_new_tokens=6, do_sample=False, pad_token_id=tokenizer.pad_token_id,
                           prompt_lookup_num_tokens=4)
    finally:
        RecentLookup.get_candidates = original
    assert made and GenerationMixin.__dict__["_get_candidate_generator"] is method, (
        "transformers' assisted generation no longer asks GenerationMixin._get_candidate_generator for its drafts "
        "(or drafting did not restore it): spg.generation.drafts.drafting would silently do nothing")


def test_prepare_inputs_for_generation_still_slices_by_next_sequence_length():
    from transformers import GenerationMixin

    assert "next_sequence_length" in parameters(GenerationMixin.prepare_inputs_for_generation), (
        "transformers' prepare_inputs_for_generation no longer takes next_sequence_length: update "
        "spg.generation.pointer_decode.continuing, which sets it where a redraw continues a KV cache")
