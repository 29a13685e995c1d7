"""Which runtime a generation uses: selection logic only (the ONNX model itself: test_onnx_model.py)."""

import pytest
import torch

from spg.model import runtime
from spg.model.runtime import resolve_runtime

CPU, CUDA = torch.device("cpu"), torch.device("cuda")


def test_auto_is_onnx_for_a_model_with_a_ready_form_on_a_float32_cpu_and_torch_elsewhere(monkeypatch):
    monkeypatch.setattr(runtime, "onnx_available", lambda: True)
    assert resolve_runtime("auto", CPU, torch.float32, has_ready_form=True) == "onnx"
    assert resolve_runtime("auto", CPU, torch.float32, has_ready_form=False) == "torch"
    assert resolve_runtime("auto", CUDA, torch.bfloat16, has_ready_form=True) == "torch"
    assert resolve_runtime("auto", CUDA, torch.float32, has_ready_form=True) == "torch"
    assert resolve_runtime("auto", CPU, torch.bfloat16, has_ready_form=True) == "torch"


def test_auto_is_onnx_on_a_float32_cpu_for_a_ready_model_whatever_the_batch(monkeypatch):
    # the export decodes a batch in one run per step (issue 41): batches are no longer sent to PyTorch
    monkeypatch.setattr(runtime, "onnx_available", lambda: True)
    assert resolve_runtime("auto", CPU, torch.float32, has_ready_form=True) == "onnx"
    assert resolve_runtime("onnx", CPU, torch.float32, has_ready_form=True) == "onnx"


def test_auto_is_torch_without_onnx_runtime(monkeypatch):
    monkeypatch.setattr(runtime, "onnx_available", lambda: False)
    assert resolve_runtime("auto", CPU, torch.float32, has_ready_form=True) == "torch"


def test_a_named_runtime_is_taken_for_any_model(monkeypatch):
    monkeypatch.setattr(runtime, "onnx_available", lambda: True)
    assert resolve_runtime("onnx", CPU, torch.float32) == "onnx"
    assert resolve_runtime("torch", CPU, torch.float32, has_ready_form=True) == "torch"


def test_onnx_without_onnx_runtime_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(runtime, "onnx_available", lambda: False)
    with pytest.raises(ValueError, match=r"spg\[cpu\]"):
        resolve_runtime("onnx", CPU, torch.float32)


def test_onnx_off_a_float32_cpu_and_unknown_runtimes_are_refused(monkeypatch):
    monkeypatch.setattr(runtime, "onnx_available", lambda: True)
    with pytest.raises(ValueError, match="CPU"):
        resolve_runtime("onnx", CUDA, torch.bfloat16)
    with pytest.raises(ValueError, match="auto, torch, onnx"):
        resolve_runtime("llama.cpp", CPU, torch.float32)
