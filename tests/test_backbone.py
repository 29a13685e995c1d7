import pytest
import torch

from spg.model.backbone import resolve_device, resolve_dtype


def test_the_default_device_is_cuda_when_available_else_the_cpu():
    assert resolve_device().type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu") == torch.device("cpu")


def test_a_device_this_machine_lacks_is_a_clear_error():
    with pytest.raises(ValueError, match="'cuda:7' is not available"):
        resolve_device("cuda:7")
    with pytest.raises(ValueError, match="'gpu0' is not a torch device"):
        resolve_device("gpu0")


def test_auto_dtype_is_float32_on_the_cpu_and_named_dtypes_are_taken_as_given():
    assert resolve_dtype("auto", torch.device("cpu")) == torch.float32
    assert resolve_dtype("bfloat16", torch.device("cpu")) == torch.bfloat16
    with pytest.raises(ValueError, match="not a torch dtype"):
        resolve_dtype("float33", torch.device("cpu"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_auto_dtype_is_bfloat16_on_a_gpu_that_supports_it():
    assert resolve_dtype("auto", torch.device("cuda")) == (
        torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
    )
