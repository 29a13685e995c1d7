"""Data-parallel training, tested by launching it: the multi-GPU commands of docs/training.md and docs/stage2.md,
read from the docs, run on two CPU processes (gloo) with a tiny Llama.

Each launched process is watched by tests/probe/sitecustomize.py (its weights after training, and every model it
saves), so the command under test is the documented one with only the device swapped: two processes instead of
eight, a tiny config instead of the paper's.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from test_stage2 import MORE_PAIRS, PAIRS, stage1_artefact
from tiny import tiny_llama, tiny_tokenizer

from spg.config import load_config
from spg.files import write_jsonl
from spg.train.pairs import PAIRS as PAIRS_KIND
from spg.train.stage1 import Stage1Config
from spg.train.stage1 import train as train_stage1
from spg.train.stage2 import Stage2Config
from spg.train.stage2 import run as train_stage2

REPO = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().parent / "probe"


ACCELERATE = "accelerate launch --config_file configs/accelerate/ddp.yaml"
TORCHRUN = "torchrun --nproc_per_node"


def documented_command(doc: str, stage: str, launcher: str = ACCELERATE) -> list[str]:
    """The one data-parallel launch command for ``stage`` in ``docs/<doc>`` that starts with ``launcher``."""
    lines = (REPO / "docs" / doc).read_text(encoding="utf-8").splitlines()
    (line,) = [line for line in lines if line.startswith(launcher) and f"-m spg.cli train {stage} " in line]
    return shlex.split(line)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(command: list[str], config: Path, overrides: list[str], probe: Path) -> None:
    """Run the documented ``command`` on two CPU processes with ``config`` and ``overrides``, watched into ``probe``."""
    command = list(command)
    command[command.index("--config") + 1] = str(config)
    # The launcher installed beside this interpreter; a free port, as other runs may share the machine.
    if command[0] == "torchrun":
        command[command.index("--nproc_per_node") + 1] = "2"
        command[:1] = [str(Path(sys.executable).with_name("torchrun")), "--master_port", str(free_port())]
    else:
        command[command.index("--num_processes") + 1] = "2"
        command[:2] = [str(Path(sys.executable).with_name("accelerate")), "launch", "--main_process_port",
                       str(free_port())]
    probe.mkdir()
    env = {
        **os.environ, "SPG_PROBE_DIR": str(probe), "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join([str(PROBE), str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run([*command, *overrides], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def events(probe: Path) -> dict[str, list[dict]]:
    """What each launched process recorded, by rank."""
    return {
        path.stem.removeprefix("rank"): [json.loads(line) for line in path.read_text().splitlines()]
        for path in probe.glob("rank*.jsonl")
    }


def assert_one_data_parallel_model(probe: Path) -> None:
    """Both processes trained inside DDP with world size 2, ended with the same weights, and only rank 0 saved."""
    seen = events(probe)
    trained = [e for rank in ("0", "1") for e in seen.get(rank, []) if e["event"] == "trained"]
    assert [(e["world_size"], e["wrapper"]) for e in trained] == [(2, "DistributedDataParallel")] * 2
    weights = [torch.load(probe / f"weights-rank{rank}.pt") for rank in ("0", "1")]
    assert weights[0].keys() == weights[1].keys()
    for name in weights[0]:
        assert torch.equal(weights[0][name], weights[1][name]), f"{name} differs between the processes"
    writers = {rank for rank, recorded in seen.items() if any(e["event"] == "save" for e in recorded)}
    assert writers == {"0"}, f"processes that saved a model: {sorted(writers)}"


def artefact(directory: Path) -> dict[str, torch.Tensor]:
    """The trained weights of an artefact or checkpoint: the adapter and the pointer head."""
    weights = load_file(directory / "adapter_model.safetensors")
    weights.update({f"pointer.{k}": v for k, v in load_file(directory / "pointer_head.safetensors").items()})
    return weights


def assert_same_weights(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor], atol: float) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert torch.allclose(a[name], b[name], atol=atol, rtol=0), f"{name}: {(a[name] - b[name]).abs().max()}"


def assert_trained(weights: dict[str, torch.Tensor], atol: float) -> None:
    """LoRA B starts at zero: weights that moved far beyond the tolerance make the comparisons above mean something."""
    assert max(w.abs().max().item() for name, w in weights.items() if "lora_B" in name) > 100 * atol


@pytest.fixture
def stage1_config(tmp_path, uspto_path) -> Path:
    """A tiny Stage I config on the first 8 real USPTO documents, cut to targets of at most 1,024 tokens: four keep
    2 to 4 dependent claims, one keeps only its independent claim and three keep no whole claim at all. With one
    document per process, the processes' shares of a step hold different numbers of dependents (the structure
    losses' denominators differ between them), and some shares hold none (issue 20: DDP stopped there, as that
    process's pointer head got no gradient)."""
    base = tmp_path / "base"
    tiny_llama().save_pretrained(base)
    tiny_tokenizer().save_pretrained(base)
    values = dict(
        train_file=str(uspto_path), max_records=8, base_model=str(base), max_length=1536, max_target_tokens=1024,
        lora_r=4, lora_alpha=8, lora_dropout=0.0, gamma=1.0, eta=1.0, per_device_train_batch_size=1,
        gradient_accumulation_steps=1, max_steps=4, learning_rate=1e-2, warmup_ratio=0.0, bf16=False,
        gradient_checkpointing=False, logging_steps=1, save_steps=1,
    )
    path = tmp_path / "stage1.yaml"
    path.write_text("".join(f"{key}: {json.dumps(value)}\n" for key, value in values.items()))
    return path


def dependents_per_step(probe: Path) -> list[tuple[int, int]]:
    """The dependent claims in rank 0's and rank 1's micro-batch, step by step."""
    seen = events(probe)
    per_rank = [[e["dependents"] for e in seen[rank] if e["event"] == "batch"] for rank in ("0", "1")]
    return list(zip(*per_rank, strict=True))


@pytest.mark.slow
def test_stage1_on_two_processes_is_one_model_trained_as_one_process_would_and_resumes(stage1_config, tmp_path):
    two = tmp_path / "two"
    launch(documented_command("training.md", "stage1"), stage1_config, [f"output_dir={two}"], tmp_path / "probe")
    assert_one_data_parallel_model(tmp_path / "probe")
    assert (two / "final" / "log_history.json").is_file()
    steps = dependents_per_step(tmp_path / "probe")
    assert len(steps) == 4 and any(0 in step and max(step) > 0 for step in steps), steps  # a share without dependents

    # One process, the same global batch of 2: the same data in each step, the same weights.
    one = train_stage1(load_config(Stage1Config, stage1_config, [f"output_dir={tmp_path / 'one'}",
                                                                  "per_device_train_batch_size=2"]))
    assert_trained(artefact(one), atol=1e-4)
    assert_same_weights(artefact(two / "final"), artefact(one), atol=1e-4)

    # Two processes again, started by the documented torchrun command (the same run as accelerate's, so one
    # launch covers both recipes) and resumed mid-epoch from the first run's step-1 checkpoint: the uninterrupted
    # run's weights, again on one model with one writer.
    resumed = tmp_path / "resumed"
    launch(documented_command("training.md", "stage1", TORCHRUN), stage1_config,
           [f"output_dir={resumed}", f"--resume={two / 'checkpoint-1'}"], tmp_path / "probe2")
    assert_one_data_parallel_model(tmp_path / "probe2")
    assert_same_weights(artefact(resumed / "final"), artefact(two / "final"), atol=1e-6)


@pytest.mark.slow
def test_stage2_matched_on_two_processes_is_one_model_trained_as_one_process_would(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    write_jsonl(pairs, PAIRS_KIND, ({"id": str(i), "pair_type": "gt-vs-worst", **pair}
                                    for i, pair in enumerate(PAIRS + MORE_PAIRS)))
    # matched: LPO's gradient norm comes from a second backward that DDP does not average by itself.
    values = dict(model=stage1_artefact(tmp_path), pairs=str(pairs), mode="matched", lora_r=4, lora_alpha=8,
                  lora_dropout=0.0, per_device_train_batch_size=1, gradient_accumulation_steps=1, max_steps=2,
                  learning_rate=1e-2, warmup_ratio=0.0, logging_steps=1, save_steps=1, bf16=False, max_length=256)
    config = tmp_path / "stage2.yaml"
    config.write_text("".join(f"{key}: {json.dumps(value)}\n" for key, value in values.items()))
    two = tmp_path / "two"
    launch(documented_command("stage2.md", "stage2"), config, [f"output_dir={two}"], tmp_path / "probe")
    assert_one_data_parallel_model(tmp_path / "probe")

    one = train_stage2(Stage2Config(**{**values, "output_dir": str(tmp_path / "one"), "per_device_train_batch_size": 2}))
    assert_trained(artefact(one), atol=1e-4)
    assert_same_weights(artefact(two / "final"), artefact(one), atol=1e-4)


@pytest.mark.slow
def test_generate_on_two_processes_merges_into_what_one_process_writes(tmp_path):
    """docs/generation.md's multi-GPU generate command, on two CPU processes with a tiny SPG artefact."""
    from test_generate_cli import write_docs

    from spg.cli import main
    from spg.model.spg_model import SPGConfig, SPGModel

    base = tmp_path / "base"
    tiny_llama().save_pretrained(base)
    tiny_tokenizer().save_pretrained(base)
    SPGModel.from_base(SPGConfig(base_model=str(base), lora_r=4)).save_pretrained(tmp_path / "spg")
    docs = write_docs(tmp_path / "docs.jsonl", 6)
    fixed = ["--greedy", "--batch-size", "1", "--max-new-tokens", "16", "--no-progress"]
    lines = (REPO / "docs" / "generation.md").read_text(encoding="utf-8").splitlines()
    (line,) = [line for line in lines if line.startswith(ACCELERATE) and "-m spg.cli generate " in line]
    command = shlex.split(line)
    for placeholder, value in (("MODEL", tmp_path / "spg"), ("DOCS.jsonl", docs), ("results.jsonl", tmp_path / "r.jsonl")):
        command[command.index(placeholder)] = str(value)
    command[command.index("--num_processes") + 1] = "2"
    command[:2] = [str(Path(sys.executable).with_name("accelerate")), "launch", "--main_process_port", str(free_port())]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([*command, *fixed], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert main(["generate", "--model", str(tmp_path / "spg"), "--input", str(docs), "--output",
                 str(tmp_path / "one.jsonl"), *fixed]) == 0
    # the same lines; a shard's results join the output when that shard ends, so the order is the shards' finish
    assert sorted((tmp_path / "r.jsonl").read_text().splitlines()) == sorted((tmp_path / "one.jsonl").read_text().splitlines())
    assert (tmp_path / "r.shard-0-of-2.jsonl").exists() and (tmp_path / "r.shard-1-of-2.jsonl").exists()
