"""The ready-to-run form of an SPG artefact in $SPG_CACHE: built once, atomically, keyed by what it is built from,
and decoding exactly as merging at load did."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from tiny import tiny_llama, tiny_tokenizer

import spg.model.ready as ready
from spg.generation.generator import load_generator
from spg.generation.pointer_decode import DecodeSettings
from spg.generation.runner import Document
from spg.model.cache import build_once
from spg.model.config import EMBEDDED, ModelSource, describe
from spg.model.spg_model import SPGConfig, SPGModel

DOCS = [Document("d1", "A chair with four legs and a seat."), Document("d2", "A lamp.")]
GREEDY = DecodeSettings(max_new_tokens=40, do_sample=False, runtime="torch")  # onnx: test_onnx_model.py


@pytest.fixture(scope="module")
def artefact(tmp_path_factory) -> Path:
    """A tiny SPG artefact on a tiny local base, its adapter non-zero so that merging changes the weights."""
    root = tmp_path_factory.mktemp("ready")
    base = root / "base"
    tiny_llama().save_pretrained(base)
    tiny_tokenizer().save_pretrained(base)
    torch.manual_seed(0)
    model = SPGModel.from_base(SPGConfig(base_model=str(base), lora_r=4))
    for name, param in model.lm.named_parameters():
        if "lora_B" in name:
            torch.nn.init.normal_(param, std=0.05)
    model.save_pretrained(root / "spg")
    return root / "spg"


@pytest.fixture
def cache(tmp_path, monkeypatch, artefact) -> Path:
    """$SPG_CACHE in a temporary folder, and the tiny base taken for the embedded one (whose models get a ready
    form), identified by its folder's contents."""
    monkeypatch.setenv("SPG_CACHE", str(tmp_path / "cache"))
    base = Path(SPGConfig.load(artefact).base_model)
    monkeypatch.setattr(ModelSource, "has_ready_forms", property(lambda source: bool(source.chain)))
    monkeypatch.setattr(ready, "_base_identity", lambda name: {"tiny": [ready.file_sha256(p) for p in sorted(base.iterdir())]})
    return tmp_path / "cache"


def outputs(generator) -> list[tuple[str, list | None]]:
    """Greedy outputs with the structure tokens favoured, so that they hold dependent claims and pointer choices."""
    tag_ids = torch.tensor(list(generator.spg.structure_ids.values()))

    def favour_tags(module, args, logits):
        logits[..., tag_ids] += 4.0
        return logits

    with generator.lm.get_output_embeddings().register_forward_hook(favour_tags):
        return [(r["raw"], r["pointer_parents"]) for r in generator(DOCS)]


def test_the_ready_form_decodes_exactly_as_merging_at_load(cache, artefact, monkeypatch):
    from_ready = load_generator(str(artefact), GREEDY, device="cpu")
    assert (ready.ready_forms(describe(artefact), torch.float32).root / ready.MERGED).is_dir()
    assert not hasattr(from_ready.lm, "peft_config")  # a plain model: no adapter wrappers left in each step
    monkeypatch.setattr(ModelSource, "has_ready_forms", property(lambda source: False))  # merged at load
    merged_at_load = load_generator(str(artefact), GREEDY, device="cpu")
    expected = outputs(merged_at_load)
    assert outputs(from_ready) == expected
    assert any(parents for _, parents in expected)  # pointer decisions are compared too


def test_a_later_load_reads_the_ready_form_without_building_it_again(cache, artefact, monkeypatch):
    load_generator(str(artefact), GREEDY, device="cpu")

    def no_build(*args, **kwargs):
        raise AssertionError("the ready form was built again")

    monkeypatch.setattr(SPGModel, "from_pretrained", no_build)
    assert load_generator(str(artefact), GREEDY, device="cpu").spg is not None


def test_the_key_changes_with_every_artefact_file_and_the_dtype(cache, artefact, tmp_path):
    key = ready.ready_key(describe(artefact), torch.float32)
    assert ready.ready_key(describe(artefact), torch.float32) == key
    assert ready.ready_key(describe(artefact), torch.bfloat16) != key
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in artefact.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    assert ready.ready_key(describe(copy), torch.float32) == key  # keyed by content, not by where the artefact lies
    (copy / "pointer_head.safetensors").write_bytes(b"changed")
    assert ready.ready_key(describe(copy), torch.float32) != key


def test_a_killed_build_leaves_no_ready_form_and_the_next_build_completes(tmp_path):
    target = tmp_path / "ready" / "merged"

    def killed(folder: Path) -> None:
        folder.mkdir(parents=True)
        (folder / "config.json").write_text("{")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_once(target, killed)
    assert not target.exists()
    assert build_once(target, lambda folder: folder.mkdir()) == target and target.is_dir()



def test_a_build_removes_what_killed_builds_left_and_keeps_a_running_ones(tmp_path):
    import subprocess

    target = tmp_path / "ready" / "merged"
    dead = subprocess.Popen(["true"])  # its id no longer runs once waited for (reused so soon: unlikely)
    dead.wait()
    running = subprocess.Popen(["sleep", "30"])
    try:
        for pid in (dead.pid, running.pid):
            (tmp_path / "ready" / f"merged.partial-{pid}").mkdir(parents=True)
        build_once(target, lambda folder: folder.mkdir())
        assert not (tmp_path / "ready" / f"merged.partial-{dead.pid}").exists()
        assert (tmp_path / "ready" / f"merged.partial-{running.pid}").is_dir()
    finally:
        running.kill()
        running.wait()

def test_only_artefacts_on_the_embedded_backbone_get_a_ready_form(artefact, monkeypatch, tmp_path):
    monkeypatch.setenv("SPG_CACHE", str(tmp_path))
    assert not describe(artefact).has_ready_forms  # a local base: loaded the long way, never copied
    assert load_generator(str(artefact), GREEDY, device="cpu").spg is not None
    assert not (tmp_path / "ready").exists()


def test_the_artefact_is_resolved_once_with_the_chain_its_ready_forms_are_keyed_by(artefact, tmp_path):
    stage2 = tmp_path / "stage2"
    config = SPGConfig.load(artefact)
    config.stage1 = str(artefact)
    stage2.mkdir()
    config.save(stage2)  # a Stage II artefact naming the fixture as its Stage I
    source = describe(stage2)
    assert source.chain == (stage2, artefact.resolve()) and source.directory == stage2
    assert source.base == config.base_model and source.config.stage1 == str(artefact.resolve())
    assert describe(artefact, zero_shot=True) == ModelSource(str(artefact))  # prompted as a chat model
    assert describe(None) == ModelSource(EMBEDDED)
