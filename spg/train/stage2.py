"""Stage II: LPO on self-generated preference pairs (paper §3.3, Eq. 7, appendix "Stage II").

    spg pairs --config configs/cpu/smollm2-stage2.yaml            # sample, score, pair (resumable)
    spg train stage2 --config configs/cpu/smollm2-stage2.yaml mode=matched output_dir=runs/matched

The Stage I adapter is merged into the backbone (its structure-token rows included) and everything is frozen;
a fresh LoRA adapter (r 8, α 16) is the only trainable part. Switching that adapter off gives the Stage I
model back, so the reference policy costs no second copy of the weights. The structural losses are off
(γ = η = 0): the loss is Eq. 5 alone.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from peft import LoraConfig, PeftModel, get_peft_model

import spg.config
from spg.errors import InputError
from spg.files import claim_folder, whole_folder
from spg.model.config import LoraSettings
from spg.train.config import Stage2Config

if TYPE_CHECKING:
    from spg.model.spg_model import SPGConfig

logger = logging.getLogger(__name__)


def stage2_model(stage1, config: Stage2Config) -> PeftModel:
    """Merge Stage I into the backbone, freeze it, and attach the new Stage II LoRA adapter."""
    base = stage1.merge_and_unload() if isinstance(stage1, PeftModel) else stage1
    base.requires_grad_(False)
    lora = LoraConfig(
        r=config.lora_r,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=config.lora_target_modules,
        task_type="CAUSAL_LM",
    )
    return get_peft_model(base, lora)


def tokenize_pairs(dataset, tokenizer, max_length: int):
    """Token ids, each pair's ω(y_l) (``weight``; the trainer's mode decides how it is used), and a count of
    pairs that do not fit ``max_length``.

    Prompt and completions are tokenized separately, so the completion starts exactly where generation
    started. No eos is appended: a tagged sequence ends at ``<eot>``, which is where Stage I training and
    generation stop (a candidate cut by ``max_new_tokens`` has none, and is scored that way). A pair whose prompt alone fills ``max_length`` is dropped and one whose completion overruns is
    truncated by the collator; both are counted and logged, never silent.
    """
    def encode(row):
        prompt = tokenizer(row["prompt"], add_special_tokens=False)["input_ids"]
        chosen = tokenizer(row["chosen"], add_special_tokens=False)["input_ids"]
        rejected = tokenizer(row["rejected"], add_special_tokens=False)["input_ids"]
        return {"prompt_ids": prompt, "chosen_ids": chosen, "rejected_ids": rejected}

    dataset = dataset.map(encode)
    lengths = [
        (len(p), len(p) + max(len(c), len(r)))
        for p, c, r in zip(dataset["prompt_ids"], dataset["chosen_ids"], dataset["rejected_ids"])
    ]
    keep = [i for i, (prompt, _) in enumerate(lengths) if prompt < max_length]
    report = {"dropped": len(lengths) - len(keep), "truncated": sum(p < max_length < t for p, t in lengths)}
    if report["dropped"]:
        logger.warning("%d of %d pairs dropped: prompt alone >= max_length %d", report["dropped"], len(lengths),
                       max_length)
        dataset = dataset.select(keep)
    if report["truncated"]:
        logger.warning("%d of %d pairs have a completion cut at max_length %d", report["truncated"], len(lengths),
                       max_length)
    columns = ["prompt_ids", "chosen_ids", "rejected_ids", "weight"]
    return dataset.remove_columns([c for c in dataset.column_names if c not in columns]), report


def train(model: PeftModel, tokenizer, dataset, config: Stage2Config):
    """Run LPO on a tokenized pair set; returns the trainer (its model carries the trained adapter)."""
    from spg.train.checkpoint import last_checkpoint
    from spg.train.lpo import LPOTrainer, PreferenceCollator
    from spg.train.parallel import launch_arguments

    # the collator needs the token-id columns the model's forward does not name
    args = config.training_arguments(remove_unused_columns=False, **launch_arguments(every_parameter_trained=True))
    if config.gradient_checkpointing:
        model.enable_input_require_grads()  # with the embedding frozen, checkpointed blocks would get no grads
    collator = PreferenceCollator(pad_token_id=tokenizer.pad_token_id, max_length=config.max_length)
    trainer = LPOTrainer(
        model=model, args=args, data_collator=collator, train_dataset=dataset, processing_class=tokenizer,
        beta=config.beta, mode=config.mode,
    )
    # A rerun of an interrupted run resumes from the newest checkpoint-N in output_dir.
    checkpoint = last_checkpoint(config.output_dir)
    if checkpoint:
        logger.warning("resuming from %s", checkpoint)
    trainer.train(resume_from_checkpoint=checkpoint)
    return trainer


def pair_items(config: Stage2Config, tokenizer, stage1: SPGConfig):
    """``(id, prompt, gt, reference)`` for the first B records with a description and claims; descriptions are
    cut to ``max_prompt_tokens`` on the side Stage I was trained with, and the number cut is reported, as are
    the records left out.

    The ground truth is the longest whole-claim prefix of the gold forest that fits ``max_new_tokens``, the
    budget the candidates it is compared with were sampled under (the Stage I "claims" truncation), and the
    PatentScore reference is that same prefix: a candidate is not punished for stopping where the chosen
    text stops. With no cut, both are the whole claim set, as in the paper.
    """
    from spg.data import load_records
    from spg.linearize import linearize
    from spg.model.batch import build_prompt, fit_target
    from spg.render import render

    side = stage1.description_truncation_side
    frame = len(build_prompt(tokenizer, "", config.max_prompt_tokens, stage1.instruction, side))
    items, skipped, cut = [], 0, 0
    for record in load_records(config.data, split=config.data_split):
        if len(items) == config.num_descriptions:
            break
        if not record.description.strip() or not record.claims.claims:
            skipped += 1
            continue
        description = record.description.strip()
        prompt = build_prompt(tokenizer, description, config.max_prompt_tokens, stage1.instruction, side)
        cut += len(prompt) - frame < len(tokenizer.encode(description, add_special_tokens=False))
        _, kept = fit_target(tokenizer, record.claims, config.max_new_tokens, True, stage1.target_truncation)
        items.append((record.id, tokenizer.decode(prompt), linearize(kept).text, render(kept)))
    logger.info("%s: %d descriptions (%d cut to %d prompt tokens), %d records without description or claims",
                   config.data, len(items), cut, config.max_prompt_tokens, skipped)
    return items


def candidate_sampler(lm, tokenizer, temperatures: list[float], max_new_tokens: int):
    """``sample(prompts) -> candidates per prompt``: one sampled sequence per temperature (appendix Stage II),
    all temperatures in one decoding loop (rows ordered temperature-major)."""
    from spg.generation.pointer_decode import DecodeSettings, generate_batch
    from spg.generation.request import DecodeRequest

    def sample(prompts: list[str]) -> list[list[str]]:
        ids = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
        rows = [i for _ in temperatures for i in ids]
        row_temperatures = [t for t in temperatures for _ in ids]
        out = generate_batch(DecodeRequest(lm, tokenizer, rows, DecodeSettings(max_new_tokens, 0, True), tagged=True,
                                           row_temperatures=row_temperatures))
        return [[out[k * len(ids) + i].text for k in range(len(temperatures))] for i in range(len(ids))]

    return sample


def make_pairs(config: Stage2Config) -> Counter:
    """``spg pairs``: sample candidates from the Stage I model, score with PS_rule, write the preference set."""
    from spg.model.backbone import resolve_device
    from spg.model.spg_model import SPGModel
    from spg.train.pairs import count_types, reward, write_pairs

    device = resolve_device(config.device)
    stage1 = SPGModel.from_pretrained(config.model, dtype=config.dtype).to(device).eval()
    tokenizer = stage1.tokenizer
    items = pair_items(config, tokenizer, stage1.spg_config)
    sample = candidate_sampler(stage1.lm, tokenizer, config.temperatures, config.max_new_tokens)
    torch.manual_seed(config.seed)
    write_pairs(
        items, sample, partial(reward, reading=config.patentscore), Path(config.pairs), config.kappa,
        config.delta, config.sample_batch_size,
    )
    return count_types(config.pairs)


def run(config: Stage2Config) -> Path:
    """``spg train stage2``: LPO on the pair set; returns the final artefact dir (loads with ``--model``).

    Stage I is merged in memory, never written again: the final artefact holds the Stage II adapter, copies of
    the Stage I pointer head and tokenizer, and names the Stage I artefact (``stage1`` in ``spg_config.json``).
    """
    from transformers import set_seed

    from spg.model.spg_model import SPGModel
    from spg.train.pairs import load_pairs
    from spg.train.stage1 import save_log_history

    config.check()  # load_config has, unless the config was built in code
    claim_folder(config.output_dir, config.RUN)  # before anything is written in it (spg.files)
    stage1 = SPGModel.from_pretrained(config.model, dtype=config.dtype)
    tokenizer, pointer = stage1.tokenizer, stage1.pointer
    dataset, report = tokenize_pairs(load_pairs(config.pairs), tokenizer, config.max_length)
    logger.info("%s: %d pairs for %s training (%d dropped for length, %d cut)", config.pairs, len(dataset),
                   config.mode, report["dropped"], report["truncated"])
    lora = {f.name: getattr(config, f.name) for f in dataclasses.fields(LoraSettings)}  # Stage II's adapter
    spg_config = dataclasses.replace(stage1.spg_config, stage1=str(Path(config.model).resolve()), **lora)
    set_seed(config.seed)  # the new adapter's LoRA initialisation draws from it (Trainer seeds only later)
    model = stage2_model(stage1.merge_and_unload(), config)
    del stage1
    trainer = train(model, tokenizer, dataset, config)
    final = Path(config.output_dir) / "final"
    with whole_folder(final, write=trainer.args.should_save) as folder:  # the main process only
        if trainer.args.should_save:
            SPGModel(model, tokenizer, pointer, spg_config).save_pretrained(folder)
        save_log_history(trainer, folder)
    return final


def load_config(path: str | None, overrides: list[str]) -> Stage2Config:
    return spg.config.load_config(Stage2Config, path, overrides)


def main(config: Stage2Config, config_path: str | None = None) -> int:
    """``spg train stage2 --config FILE [key=value ...]``, its config read and checked (spg.config.load_config)."""
    if not Path(config.model, "spg_config.json").is_file():
        raise InputError(f"model={config.model!r} is not a Stage I artefact (no spg_config.json inside)")
    if not Path(config.pairs).is_file():
        raise InputError(f"pairs={config.pairs!r} does not exist: run `spg pairs --config {config_path}` first")
    logging.basicConfig(format="%(message)s")
    logging.getLogger("spg").setLevel(logging.INFO)
    final = run(config)
    print(f"Stage II ({config.mode}) artefact: {final}")
    return 0
