"""The ready-to-run form of an SPG artefact, built once under ``$SPG_CACHE`` so that later runs load in seconds.

Loading an artefact the long way builds its base (the embedded GGUF's safetensors copy: spg.model.backbone), wraps
it in PEFT for the Stage I adapter, merges that, wraps it again for the Stage II adapter and merges that too:
about 14 s on the 2-core CPU, every run. The ready form is that merged model saved once with ``save_pretrained``
(safetensors, in the dtype it runs in) beside the artefact's tokenizer; spg.model.runtime reads it back and puts
the artefact's pointer head on it. Its weights are those of the long way bit for bit (the same merge, saved and
read back unrounded), so the outputs are the same (tested).

Each ready form lives in a folder named by a hash of everything it is built from (:func:`ready_key`): the
embedded GGUF's bytes, every file of every artefact in the chain (Stage II, its Stage I), the dtype, :data:`READY_FORMAT` (the version of the build
code below) and the torch, transformers and peft versions. A change to any of them is a new folder, never a stale
load. Other ready forms of the same model sit beside the merged one in the same folder (a CPU runtime's copy: the
ONNX export of :func:`export`, and that export on the GGUF's blocks), keyed the same way. Every form is
asked for through :class:`ReadyForms`, and any other model's ONNX export through :func:`exported`: the loaders
(spg.model.runtime) call these, nothing else builds into the cache.

Only artefacts on the embedded backbone have a ready form (the description says so:
spg.model.config.ModelSource.has_ready_forms): it is what a laptop runs, and 0.5 GB in float32. Any other base (a
hub name or a local folder, an 8B model say) loads the long way rather than be copied into the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import torch

from spg.model.backbone import embedded_gguf, spg_cache
from spg.model.cache import build_once
from spg.model.config import ModelSource
from spg.model.spg_model import SPGModel

READY_FORMAT = 1  # bump when what _build writes changes: every ready form built before is then rebuilt
MERGED = "merged"  # the folder of the merged model inside a ReadyForms root
# The ONNX export's builder options: float32 weights and activations (spg.model.onnx_model says why), hidden states as
# an extra output.
EXPORT = ["-p", "fp32", "-e", "cpu", "--extra_options", "include_hidden_states=true", "hf_token=false"]
EXPORT_FORMAT = 2  # bump when EXPORT or export() below changes: every exported model is then rebuilt


def file_sha256(path: Path) -> str:
    with path.open("rb") as f:
        digest = hashlib.sha256()
        for block in iter(lambda: f.read(1 << 20), b""):  # hashlib.file_digest is Python 3.11+; spg runs on 3.10
            digest.update(block)
        return digest.hexdigest()


def known_sha256(path: Path) -> str:
    """:func:`file_sha256` of ``path``, hashed once per version of the file: the digest is kept in
    ``$SPG_CACHE/digests`` under the file's path, size and modification time (as make and git tell a changed file),
    so that a run does not read the 98 MB GGUF to name its ready form (0.1-0.2 s of every start)."""
    path = path.resolve()
    stat = path.stat()
    name = hashlib.sha256(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()[:32]
    kept = spg_cache() / "digests" / name
    if kept.is_file():
        return kept.read_text(encoding="ascii")
    digest = file_sha256(path)
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_name(f"{name}.partial-{os.getpid()}")
    partial.write_text(digest, encoding="ascii")
    partial.replace(kept)  # whole or absent, for runs reading it at the same time
    return digest


def _base_identity(base: str) -> dict:
    """What identifies the base model's weights (the embedded backbone: spg.model.config.ModelSource.has_ready_forms):
    the embedded GGUF's bytes."""
    folder, name = embedded_gguf()
    return {"gguf": known_sha256(folder / name)}


def ready_key(source: ModelSource, dtype: torch.dtype) -> str:
    """The sha256 naming the ready forms of ``source`` (an SPG artefact on the embedded backbone) in ``dtype`` (see the
    module docstring)."""
    base = _base_identity(source.base)
    artefacts = [{p.name: known_sha256(p) for p in sorted(directory.iterdir()) if p.is_file()} for directory in source.chain]
    built_from = {
        "format": READY_FORMAT, "dtype": str(dtype), "base": base, "artefacts": artefacts,
        "versions": {lib: version(lib) for lib in ("torch", "transformers", "peft")},
    }
    return hashlib.sha256(json.dumps(built_from, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class ReadyForms:
    """The ready forms of one SPG artefact in one dtype, in their folder ``root`` (``$SPG_CACHE/ready/NAME-KEY``,
    :func:`ready_forms`), each built the first time it is asked for: the one interface the loaders
    (spg.model.runtime) read the cache through."""

    source: ModelSource
    dtype: torch.dtype
    root: Path

    def merged(self) -> Path:
        """The artefact with its adapters merged into its base, as a ``save_pretrained`` folder with its tokenizer."""

        def build(folder: Path) -> None:
            spg = SPGModel.from_pretrained(self.source, dtype=self.dtype)
            spg.merge_and_unload().save_pretrained(folder)
            spg.tokenizer.save_pretrained(folder)

        return build_once(self.root / MERGED, build)

    def onnx(self, weights: str = "float32") -> Path:
        """The ONNX export of :meth:`merged` (:func:`export`, run by spg.model.onnx_model; float32), kept beside it; with
        ``weights`` ``blocks``, that export with the embedded GGUF's 4-bit blocks and the artefacts' adapters beside
        them (spg.model.gguf_blocks)."""
        from transformers import PretrainedConfig

        from spg.model import gguf_blocks

        merged = self.merged()
        fp32_dir = export(merged, self.root / f"onnx-{export_key()[:16]}")
        if weights != "blocks":
            return fp32_dir
        key = hashlib.sha256(json.dumps([export_key(), gguf_blocks.BLOCKS_FORMAT, gguf_blocks.ACCURACY]).encode())

        def build(partial: Path) -> None:
            text = PretrainedConfig.from_json_file(str(merged / "config.json"))
            folder, name = embedded_gguf()
            heads = (text.num_attention_heads, text.num_key_value_heads)
            gguf_blocks.build(fp32_dir, folder / name, list(self.source.chain[::-1]), heads, partial)

        return build_once(self.root / f"onnx-blocks-{key.hexdigest()[:16]}", build)


def ready_forms(source: ModelSource, dtype: torch.dtype) -> ReadyForms:
    """The ready forms of ``source`` (one that has them: ModelSource.has_ready_forms) in ``dtype``; none built here."""
    directory, key = source.directory, ready_key(source, dtype)
    return ReadyForms(source, dtype, spg_cache() / "ready" / f"{directory.parent.name}.{directory.name}-{key[:20]}")


def exported(hf_dir: str | Path) -> Path:
    """The ONNX export of any transformers model folder ``hf_dir`` (a chat model's, or an artefact merged at load),
    in ``$SPG_CACHE/onnx`` under a hash of the folder's files and the export's options (the folder may be a
    temporary one); built now unless it is there."""
    hf_dir = Path(hf_dir)
    digest = hashlib.sha256(export_key().encode())
    for path in sorted(p for p in hf_dir.iterdir() if p.is_file()):
        digest.update(path.name.encode())
        digest.update(file_sha256(path).encode())
    return export(hf_dir, spg_cache() / "onnx" / digest.hexdigest()[:24])


def export_key() -> str:
    """What an ONNX export is built with: the builder's options and version and :data:`EXPORT_FORMAT`."""
    return hashlib.sha256(json.dumps([EXPORT_FORMAT, EXPORT, version("onnxruntime-genai")]).encode()).hexdigest()


def export(hf_dir: Path, target: Path) -> Path:
    """``target``: the ONNX export of the transformers model folder ``hf_dir`` by onnxruntime-genai's model builder
    (``python -m onnxruntime_genai.models.builder``), built now unless it exists, never half-written."""

    def build(partial: Path) -> None:
        command = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-m", str(hf_dir), "-i", str(hf_dir),
                   "-o", str(partial), "-c", str(partial / "build"), *EXPORT]
        done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            raise RuntimeError(f"exporting {hf_dir} to ONNX failed: {' '.join(tail)}")
        shutil.rmtree(partial / "build", ignore_errors=True)

    return build_once(target, build)
