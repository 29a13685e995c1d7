"""The ONNX export with the backbone's own 4-bit weights: the GGUF's Q4_1 blocks run by ONNX Runtime's
``MatMulNBits`` kernel, the LoRA adapters beside them (docs/generation.md, "Exact low-bit decoding").

The embedded SmolLM2 ships as Q4_1: every linear layer of every block holds, per 32 weights along the input, a
scale d and an offset m (float16) and 4-bit codes q, and its weight is w = d·q + m. spg's adapters were trained on
exactly those weights (dequantised to float32, spg.model.backbone), so the trained model is base + Stage I LoRA +
Stage II LoRA. Re-quantising the merged model (the builder's int4/int8 exports, llama.cpp's q4_1 of the merged
GGUF) rounds the adapters away: greedy outputs left float32's within 0-61 tokens. Here nothing is re-quantised:

    y = W x + Σ s·B A x,   W x = Σ_blocks d_b (q_b · x_b) + m_b (1 · x_b)

``MatMulNBits`` computes Σ_b scale_b ((q_b − zp_b) · x_b); with zero points 0 and scales d it is the first term
exactly (d·q is exact in float32). Its zero point cannot carry the offset, as Q4_1's m is no integer multiple of d
(zp = −m/d); the second term is the block sums of x times the offsets, a (K/32)-wide ``MatMul``. The adapters run
as two thin ``MatMul`` s per layer (rank 16 + 8 on the shipped model), in float32, with float32 activations
throughout (``accuracy_level`` 1): so the graph computes the trained model's function up to float32 rounding,
summed in another order than the merged float32 model.

What stays float32: the output head and the token embedding (tied; the GGUF's Q8_0 table plus the six structure
rows that Stage I trained). ONNX Runtime 1.32 has no fast 8-bit kernel with float32 activations (311 ms a step,
docs/generation.md), and its fast one quantises the activations to 8 bits.

Built once from the float32 export (spg.model.onnx_model) by replacing its linear layers' ``MatMul`` s, and
checked while building: each layer's dequantised blocks plus its adapters must give the merged float32 weight the
export holds (up to rounding, :data:`TOLERANCE`), or the build fails rather than decode another model.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

# ONNX node of the float32 export -> (the GGUF tensors stacked along its outputs, the PEFT modules in the same order)
LINEARS = {
    "attn/qkv_proj": (("attn_q", "attn_k", "attn_v"), ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj")),
    "attn/o_proj": (("attn_output",), ("self_attn.o_proj",)),
    "mlp/gate_proj": (("ffn_gate",), ("mlp.gate_proj",)),
    "mlp/up_proj": (("ffn_up",), ("mlp.up_proj",)),
    "mlp/down_proj": (("ffn_down",), ("mlp.down_proj",)),
}
BLOCKS_FORMAT = 1  # bump when what build writes changes: every blocks export is then rebuilt
BLOCK = 32  # weights per Q4_1 block
# MatMulNBits' accuracy_level: 1 keeps x in float32. 4 (x quantised to 8 bits per block) stepped 1.6x as fast but
# left float32's greedy tokens within 11-24 tokens on 2 of 3 USPTO documents (docs/generation.md)
ACCURACY = 1
TOLERANCE = 1e-5  # largest |blocks + adapters − merged float32 weight| accepted (float32 rounding of the merge: ~1e-7)


class NotBlocks(ValueError):
    """The model is not one this build can keep in its blocks (another quantisation, another adapter kind)."""


def q4_1_parts(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes (rows, K) uint8, d (rows, K/32), m (rows, K/32) float32) of a Q4_1 tensor's raw rows of 20-byte blocks:
    d and m in float16, then 16 bytes whose low nibbles are codes 0-15 of the block and high nibbles 16-31."""
    rows = raw.shape[0]
    blocks = np.ascontiguousarray(raw).reshape(rows, -1, 20)
    d = blocks[..., 0:2].copy().view(np.float16)[..., 0].astype(np.float32)
    m = blocks[..., 2:4].copy().view(np.float16)[..., 0].astype(np.float32)
    packed = blocks[..., 4:]
    codes = np.concatenate([packed & 0xF, packed >> 4], axis=-1).reshape(rows, -1)
    return codes, d, m


def unpermute_rows(rows: int, heads: int) -> np.ndarray:
    """The row order transformers' GGUF loader gives llama.cpp's rotary-permuted q/k weights (its
    ``LlamaTensorProcessor._reverse_permute_weights``), as indices into the GGUF's rows."""
    half = rows // heads // 2
    return np.arange(rows).reshape(heads, half, 2).swapaxes(2, 1).reshape(rows)


def nbits_inputs(codes: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``MatMulNBits`` B (N, K/32, 16) uint8 with code 2i in the low nibble of byte i, scales (N·K/32,) float32, zero
    points 0 (packed two per byte)."""
    n, k = codes.shape
    pairs = codes.reshape(n, k // BLOCK, BLOCK // 2, 2)
    packed = (pairs[..., 0] | (pairs[..., 1] << 4)).astype(np.uint8)
    zero = np.zeros(n * ((k // BLOCK + 1) // 2), np.uint8)
    return packed, d.reshape(-1).astype(np.float32), zero


def adapter_terms(adapters: list[Path], module: str) -> tuple[np.ndarray, np.ndarray]:
    """(A (r, K), s·B (N, r)) of every adapter in ``adapters`` on the PEFT module ``module`` (``layers.0.mlp.up_proj``),
    stacked along the rank; plain LoRA only (no DoRA, no per-module ranks)."""
    from safetensors import safe_open

    downs, ups = [], []
    for folder in adapters:
        config = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
        if config.get("use_dora") or config.get("rank_pattern") or config.get("alpha_pattern"):
            raise NotBlocks(f"{folder}: only plain LoRA adapters run beside the blocks")
        rank = config["r"]
        scale = config["lora_alpha"] / (rank**0.5 if config.get("use_rslora") else rank)
        with safe_open(str(folder / "adapter_model.safetensors"), "np") as weights:
            key = f"base_model.model.model.{module}"
            if f"{key}.lora_A.weight" not in weights.keys():  # noqa: SIM118 (safetensors handles have no __contains__)
                continue
            downs.append(weights.get_tensor(f"{key}.lora_A.weight").astype(np.float32))
            ups.append(scale * weights.get_tensor(f"{key}.lora_B.weight").astype(np.float32))
    return np.concatenate(downs), np.concatenate(ups, axis=1)


def build(fp32_dir: Path, gguf_path: Path, adapters: list[Path], heads: tuple[int, int], target: Path,
          accuracy: int = ACCURACY) -> dict:
    """Write into ``target`` the export of ``fp32_dir`` with its linear layers on ``gguf_path``'s Q4_1 blocks and
    ``adapters`` (Stage I first); ``heads``: (attention heads, key/value heads). Returns the build's check, also
    saved as ``blocks.json``: per layer kind, the largest |blocks + adapters − merged weight|."""
    import onnx
    from gguf import GGMLQuantizationType, GGUFReader
    from onnx import helper, numpy_helper

    model = onnx.load(str(fp32_dir / "model.onnx"))
    graph = model.graph
    weights = {w.name: w for w in graph.initializer}
    tensors = {t.name: t for t in GGUFReader(str(gguf_path)).tensors}
    worst: dict[str, float] = {}
    kept, nodes = [], []
    for node in graph.node:
        parts = node.name.strip("/").split("/")  # model, layers.N, attn, qkv_proj, MatMul
        kind = "/".join(parts[2:4])
        if node.op_type != "MatMul" or len(parts) != 5 or not parts[1].startswith("layers.") or kind not in LINEARS:
            nodes.append(node)
            continue
        layer = int(parts[1].split(".")[1])
        gguf_names, modules = LINEARS[kind]
        codes, d, m, downs, ups = [], [], [], [], []
        for gguf_name, module in zip(gguf_names, modules, strict=True):
            tensor = tensors[f"blk.{layer}.{gguf_name}.weight"]
            if tensor.tensor_type != GGMLQuantizationType.Q4_1:
                raise NotBlocks(f"{tensor.name} is {tensor.tensor_type.name}, not Q4_1")
            c, scale, offset = q4_1_parts(np.asarray(tensor.data))
            if gguf_name in ("attn_q", "attn_k"):
                order = unpermute_rows(c.shape[0], heads[0] if gguf_name == "attn_q" else heads[1])
                c, scale, offset = c[order], scale[order], offset[order]
            codes.append(c), d.append(scale), m.append(offset)
            a, b = adapter_terms(adapters, f"layers.{layer}.{module}")
            downs.append(a), ups.append(b)
        codes, d, m = np.concatenate(codes), np.concatenate(d), np.concatenate(m)
        down = np.concatenate(downs)  # (r·parts, K): each part's adapter reads the same input ...
        up = np.zeros((codes.shape[0], down.shape[0]), np.float32)  # ... and writes its own rows only
        row = col = 0
        for b in ups:
            up[row : row + b.shape[0], col : col + b.shape[1]] = b
            row, col = row + b.shape[0], col + b.shape[1]
        n, k = codes.shape
        merged = numpy_helper.to_array(weights[node.input[1]])  # (K, N)
        rebuilt = (d.repeat(BLOCK, axis=1) * codes + m.repeat(BLOCK, axis=1)) + up @ down
        worst[kind] = max(worst.get(kind, 0.0), float(np.abs(rebuilt.T - merged).max()))
        if worst[kind] > TOLERANCE:
            raise NotBlocks(f"layer {layer} {kind}: blocks + adapters differ from the merged weight by {worst[kind]:.2e}")
        kept.append(node.input[1])
        nodes.extend(_linear(helper, numpy_helper, graph, node, nbits_inputs(codes, d), m, down, up, k, n, accuracy))
    for name in kept:
        graph.initializer.remove(weights[name])
    del graph.node[:]
    graph.node.extend(nodes)
    target.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(target / "model.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
              location="model.onnx.data", size_threshold=1024)
    check = {"accuracy_level": accuracy, "tolerance": TOLERANCE, "largest_difference": worst, "gguf": gguf_path.name,
             "adapters": [str(a) for a in adapters]}
    (target / "blocks.json").write_text(json.dumps(check, indent=1), encoding="utf-8")
    return check


def _linear(helper, numpy_helper, graph, node, nbits, offsets, down, up, k: int, n: int, accuracy: int) -> list:
    """The nodes standing for the ``MatMul`` ``node`` (x times a (K, N) weight): the blocks' kernel plus one thin
    product that holds both the offsets and the adapters, x·[S | Aᵀ]·[Mᵀ ; (sB)ᵀ], S summing x over each block."""
    name, (x, _), y = node.name.rsplit("/", 1)[0], node.input, node.output[0]
    packed, scales, zero = nbits
    block_sums = np.kron(np.eye(k // BLOCK, dtype=np.float32), np.ones((BLOCK, 1), np.float32))  # (K, K/32)
    arrays = {"blocks": packed, "scales": scales, "zero_points": zero,
              "side_down": np.ascontiguousarray(np.concatenate([block_sums, down.T], axis=1)),
              "side_up": np.ascontiguousarray(np.concatenate([offsets.T, up.T], axis=0))}
    for key, value in arrays.items():
        graph.initializer.append(numpy_helper.from_array(value, f"{name}/{key}"))

    def out(part: str) -> str:
        return f"{name}/{part}"

    return [
        helper.make_node("MatMulNBits", [x, out("blocks"), out("scales"), out("zero_points")], [out("nbits")],
                         name=out("MatMulNBits"), domain="com.microsoft", K=k, N=n, bits=4, block_size=BLOCK,
                         accuracy_level=accuracy),
        helper.make_node("MatMul", [x, out("side_down")], [out("side")], name=out("SideDown")),
        helper.make_node("MatMul", [out("side"), out("side_up")], [out("side_out")], name=out("SideUp")),
        helper.make_node("Add", [out("nbits"), out("side_out")], [y], name=out("AddSide")),
    ]
