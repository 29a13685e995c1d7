"""spg.train.config: the stage configs and the transformers names they are checked against without importing it."""

import dataclasses

import pytest

from spg.config import ConfigError, load_config
from spg.model.config import ModelSettings, SPGConfig
from spg.train.config import (
    RENAMED,
    Stage1Config,
    Stage2Config,
    TrainingSettings,
    scheduler_names,
    training_argument_names,
)


def test_the_names_read_from_transformers_source_are_the_imported_classes():
    from transformers import SchedulerType, TrainingArguments

    assert training_argument_names() == {f.name for f in dataclasses.fields(TrainingArguments)}
    assert scheduler_names() == tuple(s.value for s in SchedulerType)


def test_every_training_setting_is_a_training_arguments_field_under_its_own_or_renamed_name():
    names = training_argument_names()
    for f in dataclasses.fields(TrainingSettings):
        if f.name != "extra_training_args":
            assert RENAMED.get(f.name, f.name) in names, f.name


def test_training_arguments_carry_the_settings_and_the_extra_arguments_win():
    args = Stage1Config(learning_rate=1e-3, warmup_ratio=0.2, bf16=False,
                        extra_training_args={"adam_beta2": 0.95, "save_strategy": "no"}).training_arguments()
    assert (args.learning_rate, args.warmup_steps, args.adam_beta2, args.save_strategy) == (1e-3, 0.2, 0.95, "no")
    assert args.lr_scheduler_type == "cosine" and args.remove_unused_columns is False
    assert Stage2Config(bf16=False).training_arguments().learning_rate == 5e-6


def test_a_training_setting_given_in_extra_training_args_is_refused():
    with pytest.raises(ConfigError, match="extra_training_args has learning_rate: set it as its own config key"):
        load_config(Stage1Config, None, ["extra_training_args={learning_rate: 1}"])


def test_the_stage1_model_config_is_its_model_settings_with_nothing_copied_by_hand():
    config = load_config(Stage1Config, None, ["lora_r=3", "aux_state_norm=rms", "base_model=smollm2"])
    model = config.model_config()
    assert isinstance(model, SPGConfig) and (model.lora_r, model.aux_state_norm) == (3, "rms")
    for f in dataclasses.fields(ModelSettings):
        assert getattr(model, f.name) == getattr(config, f.name), f.name


def test_the_warmup_ratio_must_be_a_fraction_because_transformers_reads_it_as_warmup_steps():
    with pytest.raises(ConfigError, match="warmup_ratio must be in \\[0, 1\\)"):
        load_config(Stage1Config, None, ["warmup_ratio=5"])


def test_stage2_training_needs_the_stage1_model_but_not_the_records_pairs_sampled_from(tmp_path):
    # `spg train stage2` reads only the pairs file; `data` is what `spg pairs` samples descriptions from.
    stage1 = tmp_path / "stage1"
    stage1.mkdir()
    (stage1 / "spg_config.json").write_text("{}")  # what makes a folder an SPG artefact to the config check
    assert load_config(Stage2Config, overrides=[f"model={stage1}"], available=True).data == ""
    with pytest.raises(ConfigError, match="model is not set"):
        load_config(Stage2Config, available=True)
