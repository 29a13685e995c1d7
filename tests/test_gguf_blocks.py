"""The GGUF-blocks export's pieces (spg.model.gguf_blocks): Q4_1 read as the gguf package reads it, q/k rows in
transformers' order, and ONNX Runtime's MatMulNBits with the side product computing blocks + offsets + adapters."""

import importlib.util

import numpy as np
import pytest
from conftest import requirement_missing

if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("gguf") is None:
    requirement_missing("the cpu extra (onnxruntime) and gguf", module_level=True)

from spg.model.gguf_blocks import BLOCK, _linear, nbits_inputs, q4_1_parts, unpermute_rows  # noqa: E402


def random_q4_1(rows: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """Raw Q4_1 rows: per block d and m (float16, of realistic size) and 16 bytes of codes."""
    blocks = np.zeros((rows, k // BLOCK, 20), np.uint8)
    blocks[..., 0:2] = rng.uniform(0.001, 0.02, (rows, k // BLOCK, 1)).astype(np.float16).view(np.uint8)
    blocks[..., 2:4] = rng.uniform(-0.1, 0.0, (rows, k // BLOCK, 1)).astype(np.float16).view(np.uint8)
    blocks[..., 4:] = rng.integers(0, 256, (rows, k // BLOCK, 16), dtype=np.uint8)
    return blocks.reshape(rows, -1)


def test_q4_1_blocks_read_as_the_gguf_package_dequantises_them():
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize

    raw = random_q4_1(6, 64, np.random.default_rng(0))
    codes, d, m = q4_1_parts(raw)
    ours = d.repeat(BLOCK, axis=1) * codes + m.repeat(BLOCK, axis=1)
    np.testing.assert_array_equal(ours, dequantize(raw, GGMLQuantizationType.Q4_1))


@pytest.mark.parametrize("heads", [1, 3, 9])
def test_q_and_k_rows_come_in_the_order_transformers_gguf_loader_gives_them(heads):
    from transformers.modeling_gguf_pytorch_utils import LlamaTensorProcessor

    rows = heads * 8
    weights = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)
    theirs = LlamaTensorProcessor()._reverse_permute_weights(weights, heads, heads)
    np.testing.assert_array_equal(weights[unpermute_rows(rows, heads)], theirs)


def test_the_nodes_compute_blocks_plus_offsets_plus_adapters_in_float32():
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(1)
    k, n, rank = 64, 24, 3
    codes, d, m = q4_1_parts(random_q4_1(n, k, rng))
    down, up = rng.normal(0, 0.1, (rank, k)).astype(np.float32), rng.normal(0, 0.1, (n, rank)).astype(np.float32)
    weight = d.repeat(BLOCK, axis=1) * codes + m.repeat(BLOCK, axis=1) + up @ down  # (N, K), as merged
    graph = helper.make_graph([], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, None, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, None, n])])
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="/model/layers.0/mlp/up_proj/MatMul")
    graph.node.extend(_linear(helper, numpy_helper, graph, node, nbits_inputs(codes, d), m, down, up, k, n, 1))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    session = onnxruntime.InferenceSession(model.SerializeToString())
    x = rng.normal(0, 1, (1, 5, k)).astype(np.float32)
    (y,) = session.run(None, {"x": x})
    np.testing.assert_allclose(y, x @ weight.T, rtol=1e-5, atol=1e-5)
    zero_offsets = session.run(None, {"x": np.zeros_like(x)})[0]
    assert not zero_offsets.any()
