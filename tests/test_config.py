import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import cli_in_a_fresh_process

from spg.config import ConfigError, Invalid, load_config
from spg.train.config import Stage1Config

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@dataclass
class Example:
    steps: int = 1
    rate: float = 0.1
    name: str | None = None
    modules: list[str] | str = "all-linear"
    flag: bool = False
    extra: dict = field(default_factory=dict)


def test_overrides_are_parsed_and_typed():
    cfg = load_config(Example, None, ["steps=3", "rate=1", "name=x", "modules=[q_proj, v_proj]", "flag=true"])
    assert cfg == Example(steps=3, rate=1.0, name="x", modules=["q_proj", "v_proj"], flag=True)


def test_overrides_win_over_the_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("steps: 5\nrate: 0.5\n")
    assert load_config(Example, path, ["steps=7"]) == Example(steps=7, rate=0.5)


def test_unknown_key_in_file_names_the_file_and_valid_keys(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("stepz: 5\n")
    with pytest.raises(ConfigError, match=r"c\.yaml: unknown key 'stepz'.*valid keys: extra, flag"):
        load_config(Example, path)


def test_unknown_override_key_is_an_error():
    with pytest.raises(ConfigError, match="override 'nope=1': unknown key 'nope'"):
        load_config(Example, None, ["nope=1"])


def test_wrong_type_is_an_error_naming_the_key():
    with pytest.raises(ConfigError, match="override 'steps=1.5'.*not a valid int"):
        load_config(Example, None, ["steps=1.5"])
    with pytest.raises(ConfigError, match="not a valid bool"):
        load_config(Example, None, ["flag=3"])


def test_override_without_equals_is_an_error():
    with pytest.raises(ConfigError, match="expected key=value"):
        load_config(Example, None, ["steps"])


def test_yaml_that_does_not_parse_is_one_line_naming_the_file_line_and_column(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("steps: 1\nrate: [0.1\nname: x\n")
    with pytest.raises(ConfigError) as error:
        load_config(Example, path)
    assert str(error.value).startswith(f"{path} line 3, column 5: not valid YAML (while parsing a flow sequence: ")
    assert "\n" not in str(error.value)
    with pytest.raises(ConfigError, match=r"override 'modules=\[a' line 1, column 3: not valid YAML"):
        load_config(Example, None, ["modules=[a"])


def test_a_config_file_that_is_not_utf8_is_a_config_error(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_bytes(b"name: \xff\n")
    with pytest.raises(ConfigError, match="c.yaml: cannot read config"):
        load_config(Example, path)


def test_paper_stage1_config_has_the_paper_hyperparameters():
    cfg = load_config(Stage1Config, CONFIGS / "paper" / "llama3-8b-stage1.yaml")
    assert cfg.base_model == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert (cfg.lora_r, cfg.lora_alpha, cfg.lora_dropout, cfg.lora_target_modules) == (96, 32, 0.05, "all-linear")
    assert (cfg.learning_rate, cfg.lr_scheduler_type, cfg.warmup_ratio, cfg.weight_decay) == (2e-4, "cosine", 0.05, 0.01)
    assert (cfg.per_device_train_batch_size, cfg.gradient_accumulation_steps, cfg.num_train_epochs) == (1, 8, 5.0)
    assert (cfg.max_length, cfg.max_target_tokens, cfg.description_truncation_side) == (8192, None, "left")
    assert (cfg.gamma, cfg.eta, cfg.rho, cfg.lam) == (1.0, 0.01, 5.0, 0.85)
    assert cfg.bf16 and cfg.gradient_checkpointing and cfg.tagged
    # the Stage I fixes of docs/training.md are off: the paper's recipe as written
    assert (cfg.aux_state_norm, cfg.aux_reduction, cfg.aux_warmup_ratio, cfg.pointer_lr) == ("none", "claim", 0.0, None)


def test_every_paper_value_is_the_stage1_default():
    defaults, paper = Stage1Config(), load_config(Stage1Config, CONFIGS / "paper" / "llama3-8b-stage1.yaml")
    for key in ("max_target_tokens", "description_truncation_side", "aux_state_norm", "aux_reduction",
                "aux_warmup_ratio", "pointer_lr", "gamma", "eta", "rho", "lam", "lora_r", "learning_rate"):
        assert getattr(defaults, key) == getattr(paper, key), key


def test_ablation_configs_switch_off_the_right_parts():
    baseline = load_config(Stage1Config, CONFIGS / "paper" / "llama3-8b-baseline.yaml")
    lm_only = load_config(Stage1Config, CONFIGS / "paper" / "llama3-8b-lm-only.yaml")
    assert not baseline.tagged and baseline.gamma == baseline.eta == 0
    assert lm_only.tagged and lm_only.gamma == lm_only.eta == 0


def test_cpu_config_uses_the_embedded_backbone_with_the_paper_loss():
    cfg = load_config(Stage1Config, CONFIGS / "cpu" / "smollm2-stage1.yaml")
    assert cfg.base_model == "smollm2" and not cfg.bf16
    assert (cfg.gamma, cfg.eta, cfg.rho, cfg.lam) == (1.0, 0.01, 5.0, 0.85)


# ---- the safe YAML reader ----------------------------------------------------------------------------------------


def test_a_yaml_alias_bomb_is_refused_at_the_first_alias_in_one_short_line(tmp_path):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 10):
        refs = ",".join([f"*{chr(96 + level)}"] * 9)
        lines.append(f"{chr(97 + level)}: &{chr(97 + level)} [{refs}]")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\nname: *j\n")
    started = time.perf_counter()
    with pytest.raises(ConfigError) as error:
        load_config(Example, path)
    assert time.perf_counter() - started < 0.5
    message = str(error.value)
    assert message.startswith(f"{path} line 2, column 8: not valid YAML (alias *a ") and len(message) < 200


def test_a_duplicate_key_is_refused_naming_the_key_and_both_lines(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("steps: 1\nrate: 0.5\nsteps: 2\n")
    with pytest.raises(ConfigError, match=r"c\.yaml line 3, column 1: not valid YAML \(duplicate key 'steps' "
                                          r"\(first at line 1\)\)"):
        load_config(Example, path)


def test_an_integer_beyond_pythons_string_limit_is_one_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(f"steps: {'9' * 5000}\n")
    with pytest.raises(ConfigError, match=r"line 1, column 8: not valid YAML \(an integer of 5000 digits"):
        load_config(Example, path)
    with pytest.raises(ConfigError, match="an integer of 5000 digits"):
        load_config(Example, None, [f"steps={'9' * 5000}"])


def test_a_lone_surrogate_is_refused_and_never_printed_raw(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text('name: "a\\ud800b"\n')
    with pytest.raises(ConfigError, match="line 1, column 7: not valid YAML \\(a lone surrogate") as error:
        load_config(Example, path)
    str(error.value).encode("utf-8")  # printable on any terminal
    with pytest.raises(ConfigError) as error:
        load_config(Example, None, ["stepz\udcff=1"])
    assert "\\udcff" in str(error.value)
    str(error.value).encode("utf-8")


def test_yaml_nested_beyond_the_recursion_limit_is_one_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("extra: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="c.yaml: not valid YAML \\(nested too deeply\\)"):
        load_config(Example, path)


def test_a_long_value_is_shortened_in_the_message(tmp_path):
    with pytest.raises(ConfigError) as error:
        load_config(Example, None, [f"steps={'x' * 100_000}"])
    assert len(str(error.value)) < 300 and "100002 characters" in str(error.value)


# ---- precedence and held configs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Inner:
    depth: int = 1
    width: float = 2.0


@dataclass(frozen=True)
class Holder:
    name: str = "a"
    inner: Inner = field(default_factory=lambda: Inner(depth=5))  # the holder's own default for its part

    def check(self) -> None:
        if self.inner.depth < 0:
            raise Invalid("depth", f"must be 0 or more, got {self.inner.depth}")


def test_precedence_is_defaults_then_base_then_file_then_flags_then_overrides(tmp_path):
    base, path = tmp_path / "base.yaml", tmp_path / "c.yaml"
    base.write_text("steps: 2\nrate: 0.2\nname: base\nflag: true\n")
    path.write_text("steps: 3\nrate: 0.3\nname: file\n")
    flags = [("--steps", "steps", 4), ("--rate", "rate", 0.4)]
    assert load_config(Example, path, ["steps=5"], flags=flags, base=base) == Example(
        steps=5, rate=0.4, name="file", flag=True)


def test_a_held_config_has_flat_keys_and_starts_from_its_holders_default(tmp_path):
    assert load_config(Holder, None, ["width=3"]) == Holder(inner=Inner(depth=5, width=3.0))
    with pytest.raises(ConfigError, match="valid keys: depth, name, width"):
        load_config(Holder, None, ["inner=1"])


def test_a_check_failure_names_the_layer_the_key_came_from(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("depth: -1\n")
    with pytest.raises(ConfigError, match=r"^.*c\.yaml: depth must be 0 or more, got -1$"):
        load_config(Holder, path)
    with pytest.raises(ConfigError, match=r"^depth \(--depth\) must be 0 or more"):
        load_config(Holder, flags=[("--depth", "depth", -2)])
    with pytest.raises(ConfigError, match=r"^override 'depth=-3': depth must be 0 or more"):
        load_config(Holder, None, ["depth=-3"])


# ---- every shipped config ----------------------------------------------------------------------------------------

REPO = CONFIGS.parent
SHIPPED = sorted([*CONFIGS.rglob("*.yaml"), *(REPO / "spg" / "pretrained").rglob("generate.yaml")])


def config_class(path: Path):
    """Which config type a shipped file is; a file matching none fails the test, so none goes unchecked."""
    from spg.generation.config import GenerateConfig
    from spg.reproduce import ReproduceConfig
    from spg.train.config import Stage1Config, Stage2Config

    if path.parent.name == "accelerate":
        return "accelerate"
    if path.name in ("smollm2.yaml", "paper-llama3-8b.yaml"):
        return ReproduceConfig
    for part, cls in (("stage2", Stage2Config), ("generate", GenerateConfig), ("stage1", Stage1Config),
                      ("baseline", Stage1Config), ("lm-only", Stage1Config)):
        if part in path.name:
            return cls
    raise AssertionError(f"{path}: which config type is this? add it to config_class")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_config_loads_and_validates(path, monkeypatch):
    from accelerate.commands.config.config_args import load_config_from_file

    from spg.reproduce import Pipeline, load

    monkeypatch.chdir(REPO)  # the reproduction configs name their stage configs relative to the repository
    cls = config_class(path)
    if cls == "accelerate":
        load_config_from_file(str(path))  # accelerate's own reader
    elif cls.__name__ == "ReproduceConfig":
        Pipeline(load(path, ["data=x.jsonl"])).check(available=False)  # every system's and decoding's config too
    else:
        load_config(cls, path)


def test_the_cpu_stage1_config_runs_the_repaired_recipe_of_the_reproduction():
    cpu = load_config(Stage1Config, CONFIGS / "cpu" / "smollm2-stage1.yaml")
    repro = load_config(Stage1Config, CONFIGS / "repro" / "smollm2-stage1.yaml")
    for key in ("aux_state_norm", "aux_reduction", "aux_warmup_ratio", "pointer_lr", "gamma", "eta", "rho", "lam",
                "description_truncation_side", "target_truncation", "learning_rate", "lr_scheduler_type",
                "base_model", "lora_r", "lora_alpha", "lora_target_modules"):
        assert getattr(cpu, key) == getattr(repro, key), key


# ---- the validation point, as the commands use it ----------------------------------------------------------------

BAD_BEFORE_TORCH = [
    (["generate", "--max-new-tokens", "-5"], "max_new_tokens (--max-new-tokens) must be at least 1, got -5"),
    (["generate", "--temperature", "-1"], "temperature (--temperature) must be above 0 when sampling"),
    (["generate", "--device", "nonsense"], "device (--device) 'nonsense' is not a device; expected cpu, cuda or"),
    (["generate", "--model", "/nonexistent"], "model (--model) '/nonexistent': no such local folder, and not a "
                                              "model shipped with spg"),
    (["generate", "--model", "nobody/no-such-model"], "not in the Hugging Face cache"),
    (["generate", "--max-prompt-tokens", "20"], "max_prompt_tokens (--max-prompt-tokens) 20 leaves no room for the "
                                                "description: the chat template and instruction of spg-smollm2 take"),
    (["train", "stage1", "--config", "configs/cpu/smollm2-stage1.yaml", "train_file=x", "lr_scheduler_type=bogus"],
     "override 'lr_scheduler_type=bogus': lr_scheduler_type must be one of linear, cosine,"),
    (["train", "stage1", "--config", "configs/cpu/smollm2-stage1.yaml", "train_file=x",
      "per_device_train_batch_size=0"], "per_device_train_batch_size must be at least 1, got 0"),
    (["train", "stage1", "--config", "configs/cpu/smollm2-stage1.yaml", "train_file=x",
      "extra_training_args={bogus: 1}"], "extra_training_args has bogus, not a field of transformers' Training"),
    (["train", "stage1", "--config", "configs/cpu/smollm2-stage1.yaml", "train_file=x", "base_model=/nonexistent"],
     "override 'base_model=/nonexistent': base_model '/nonexistent': no such local folder"),
    (["train", "stage2", "--config", "configs/cpu/smollm2-stage2.yaml", "betta=0.1"], "unknown key 'betta'"),
    (["pairs", "--config", "configs/cpu/smollm2-stage2.yaml", "model=.", "data=x", "num_descriptions=-1"],
     "num_descriptions must be at least 1, got -1"),
    (["pairs", "--config", "configs/cpu/smollm2-stage2.yaml", "model=.", "data=x", "device=nonsense"],
     "override 'device=nonsense': device 'nonsense' is not a device"),
]


def test_bad_flags_and_config_values_are_one_line_before_torch_is_imported(tmp_path):
    """Each command answers in one line, exit 2, and has not imported torch (a flag error used to take 7-10 s)."""
    found = cli_in_a_fresh_process([argv for argv, _ in BAD_BEFORE_TORCH], env={**os.environ, "HF_HUB_CACHE": str(tmp_path)})
    for (argv, expected), (code, err, torch_loaded) in zip(BAD_BEFORE_TORCH, found):
        assert code == 2 and len(err.splitlines()) == 1 and expected in err, (argv, err)
        assert not torch_loaded, argv


def test_a_hugging_face_name_in_the_hub_cache_passes_the_model_check(tmp_path, monkeypatch):
    from spg.config import check_model

    snapshot = tmp_path / "models--org--name" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (tmp_path / "models--org--name" / "refs").mkdir()
    (tmp_path / "models--org--name" / "refs" / "main").write_text("abc")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path))
    check_model("base_model", "org/name")
    with pytest.raises(Invalid, match="not in the Hugging Face cache"):
        check_model("base_model", "org/other")
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # downloads allowed: transformers will fetch it
    check_model("base_model", "org/other")


def test_a_cuda_index_past_the_gpus_the_nvidia_driver_lists_is_refused_without_torch(tmp_path, monkeypatch):
    from spg.config import check_device_present

    gpus = tmp_path / "nvidia" / "gpus"
    for bus in ("0000:01:00.0", "0000:02:00.0"):
        (gpus / bus).mkdir(parents=True)
    monkeypatch.setattr("spg.config.GPU_DRIVERS", (tmp_path / "nvidia", tmp_path / "kfd", tmp_path / "dxg"))
    monkeypatch.setattr("spg.config.NVIDIA_GPUS", gpus)
    monkeypatch.setattr("sys.platform", "linux")
    for fine in ("cuda", "cuda:1", "cpu", None):
        check_device_present("device", fine)
    with pytest.raises(Invalid, match=r"'cuda:2' is not available on this machine \(2 CUDA devices\); expected cuda:0 to"):
        check_device_present("device", "cuda:2")
    (tmp_path / "kfd").touch()  # ROCm: torch.cuda may see GPUs that NVIDIA's driver does not list
    check_device_present("device", "cuda:2")


def test_a_cuda_device_without_any_gpu_driver_is_one_line_before_torch_is_imported(tmp_path):
    before = ("import pathlib, spg.config\n"
              f"spg.config.GPU_DRIVERS = (pathlib.Path({str(tmp_path / 'none')!r}),)\n"
              "sys.platform = 'linux'")
    generate, pairs = cli_in_a_fresh_process(
        [["generate", "--device", "cuda:7"],
         ["pairs", "--config", "configs/cpu/smollm2-stage2.yaml", "model=spg/pretrained/spg-smollm2/stage1",
          "data=x.jsonl", "device=cuda", f"pairs={tmp_path / 'p.jsonl'}"]], before)
    assert generate == [2, "spg generate: device (--device) 'cuda:7' is not available on this machine (no GPU driver, "
                           "so no CUDA device); expected cpu\n", False]
    assert pairs == [2, "spg pairs: device=cuda: device 'cuda' is not available on this machine (no GPU driver, so no "
                        "CUDA device); expected cpu\n", False]


def test_pairs_refuses_a_device_this_machine_lacks_in_one_line_before_the_model_loads(tmp_path, monkeypatch, capsys):
    from test_stage2 import stage1_artefact

    from spg.cli import main

    monkeypatch.setattr("spg.train.stage2.make_pairs", lambda config: pytest.fail("the model was loaded"))
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "description": "A chair.", "claims": [{"num": 1, "text": "1. A chair.", '
                    '"parents": []}]}\n')
    model = stage1_artefact(tmp_path)
    capsys.readouterr()  # saving the artefact's progress bar
    assert main(["pairs", "--config", str(CONFIGS / "cpu" / "smollm2-stage2.yaml"), f"model={model}",
                 f"data={data}", "device=cuda:99", f"pairs={tmp_path / 'p.jsonl'}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("spg pairs: device=cuda:99: device 'cuda:99' is not available") and len(err.splitlines()) == 1
