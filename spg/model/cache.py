"""A folder of ``$SPG_CACHE`` (spg.model.config.spg_cache) built once and never half-written: the embedded
backbone's safetensors copy (spg.model.backbone), an artefact's ready forms and ONNX exports (spg.model.ready)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def build_once(target: Path, write: Callable[[Path], None]) -> Path:
    """``target``, a folder that ``write(folder)`` fills, built now unless it exists. ``write`` fills a folder of
    its own (per process), renamed to ``target`` when complete: a killed build never leaves a half-written
    ``target``, and processes building at the same time (spg reproduce's parallel jobs) keep the first finished."""
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in target.parent.glob(f"{target.name}.partial-*"):  # left by killed builds (this process id's too)
        pid = stale.name.rsplit("-", 1)[1]
        if pid.isdigit() and (int(pid) == os.getpid() or not _running(int(pid))):
            shutil.rmtree(stale, ignore_errors=True)
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    write(partial)
    try:
        partial.rename(target)
    except OSError:
        if not target.is_dir():
            raise
        shutil.rmtree(partial)
    return target
