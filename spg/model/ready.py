"""The ready-to-run form of an SPG artefact, built once under ``$SPG_CACHE`` so that later runs load in seconds.

Loading an artefact the long way builds its base (the embedded GGUF's safetensors copy: spg.model.backbone), wraps
it in PEFT for the Stage I adapter, merges that, wraps it again for the Stage II adapter and merges that too:
about 14 s on the 2-core CPU, every run. The ready form is that merged model saved once with ``save_pretrained``
(safetensors, in the dtype it runs in) beside the artefact's tokenizer; :func:`load_ready` reads it back and puts
the artefact's pointer head on it. Its weights are those of the long way bit for bit (the same merge, saved and
read back unrounded), so the outputs are the same (tested).

Each ready form lives in a folder named by a hash of everything it is built from (:func:`ready_key`): the
embedded GGUF's bytes, every file of every artefact in the chain (Stage II, its Stage I), the dtype, :data:`READY_FORMAT` (the version of the build
code below) and the torch, transformers and peft versions. A change to any of them is a new folder, never a stale
load. Other ready forms of the same model sit beside the merged one in :func:`ready_root` (a quantised copy for a
CPU runtime: the ONNX export of spg.generation.onnx_model), keyed the same way.

Only artefacts on the embedded backbone have a ready form: it is what a laptop runs, and 0.5 GB in float32. Any
other base (a hub name or a local folder, an 8B model say) loads the long way rather than be copied into the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib.metadata import version
from pathlib import Path

import torch

from spg.model.backbone import EMBEDDED, build_once, embedded_gguf, spg_cache
from spg.model.spg_model import SPGConfig, SPGModel, resolve_artefact
from spg.model.tokenizer import load_tokenizer

READY_FORMAT = 1  # bump when what _build writes changes: every ready form built before is then rebuilt
MERGED = "merged"  # the folder of the merged model inside ready_root


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


def _base_identity(base: str) -> dict | None:
    """What identifies a base model's weights: the embedded GGUF's bytes. None for any other base."""
    if base != EMBEDDED:
        return None
    folder, name = embedded_gguf()
    return {"gguf": known_sha256(folder / name)}


def artefact_chain(model: str | Path) -> tuple[list[Path], SPGConfig]:
    """The artefact folders ``model`` is built from, itself first (a Stage II artefact sits on its Stage I), and the
    config of the last, which names the base model."""
    chain, config = [resolve_artefact(model)], SPGConfig.load(resolve_artefact(model))
    while config.stage1 is not None:
        chain.append(Path(config.stage1))
        config = SPGConfig.load(chain[-1])
    return chain, config


def ready_key(model: str | Path, dtype: torch.dtype) -> str | None:
    """The sha256 naming ``model``'s ready forms in ``dtype`` (see the module docstring); None when its base is not
    the embedded backbone."""
    chain, config = artefact_chain(model)
    base = _base_identity(config.base_model)
    if base is None:
        return None
    artefacts = [{p.name: known_sha256(p) for p in sorted(directory.iterdir()) if p.is_file()} for directory in chain]
    built_from = {
        "format": READY_FORMAT, "dtype": str(dtype), "base": base, "artefacts": artefacts,
        "versions": {lib: version(lib) for lib in ("torch", "transformers", "peft")},
    }
    return hashlib.sha256(json.dumps(built_from, sort_keys=True).encode()).hexdigest()


def ready_root(model: str | Path, dtype: torch.dtype) -> Path | None:
    """The folder of ``model``'s ready forms in ``dtype``, ``$SPG_CACHE/ready/NAME-KEY`` (not built here); None
    when its base is not the embedded backbone."""
    key = ready_key(model, dtype)
    if key is None:
        return None
    directory = resolve_artefact(model)
    return spg_cache() / "ready" / f"{directory.parent.name}.{directory.name}-{key[:20]}"


def ready_model_dir(model: str | Path, dtype: torch.dtype, root: Path | None = None) -> Path | None:
    """``model`` (an SPG artefact) with its adapters merged into its base, in ``dtype``, as a ``save_pretrained``
    folder with its tokenizer: built now unless the cache has it. None when its base is not the embedded backbone.
    ``root``: its :func:`ready_root`, when the caller has it (the key hashes the GGUF: 0.3 s)."""
    root = root or ready_root(model, dtype)
    if root is None:
        return None

    def build(folder: Path) -> None:
        spg = SPGModel.from_pretrained(model, dtype=dtype)
        spg.merge_and_unload().save_pretrained(folder)
        spg.tokenizer.save_pretrained(folder)

    return build_once(root / MERGED, build)


def load_ready(model: str | Path, dtype: torch.dtype, root: Path | None = None) -> SPGModel | None:
    """``model`` from its ready form (built first when missing) on the CPU, for inference; None when it has none."""
    from transformers import AutoModelForCausalLM

    folder = ready_model_dir(model, dtype, root)
    if folder is None:
        return None
    lm = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype)
    return SPGModel.from_merged(model, lm, load_tokenizer(folder)).eval()
