"""The serving step's kernels that tensor parallel does not shrink (issue 22).

Two mechanisms, each from its source, no constant fitted:

* **Replicated per-token traffic.** Tensor parallel splits the weight GEMMs and attention over
  the ``t`` GPUs, but the element-wise kernels between them run on every GPU over every token's
  whole hidden vector: "we duplicate the computation of layer normalization, dropout and
  residual connections across GPUs" (Megatron-LM, Shoeybi et al. 2019, section 3, the layout
  TensorRT-LLM's tensor parallel follows), and a mixture of experts under TensorRT-LLM's
  default tensor-parallel MoE pattern sends every token's hidden state to every GPU, which
  "receives all tokens' hidden states for all experts, then computes using the partial
  weights" (TensorRT-LLM docs, advanced/expert-parallelism.md). Per token and layer, with
  16-bit activations (2 bytes an element): two fused residual-add + RMSNorm kernels, each
  reading the input and the residual and writing both (``4·h`` elements each); a mixture of
  experts adds the permute, which reads the token once and writes a copy per routed expert
  (``(1 + k)·h``), and the finalize (unpermute), which reads the ``k`` expert outputs and
  writes their weighted sum (``(k + 1)·h``). These bytes are read at the same streaming
  bandwidth as the weights, on every GPU of the group, whatever ``t``.
* **Tile quantization of the expert GEMMs.** A GEMM runs as tiles of its output; "if the
  matrix dimensions are not divisible by the thread block tile size" the last tiles compute
  padding (NVIDIA, Matrix Multiplication Background User's Guide, "Tile Quantization"). A
  mixture of experts' grouped GEMM gives each expert its own rows: an expert that gets ``m``
  tokens costs ``ceil(m / T)·T`` rows of math, ``T`` = :data:`EXPERT_TILE_M`. With ``n``
  tokens routed uniformly at random to ``k`` of ``E`` experts, an expert's count is
  Binomial(``n·k``, ``1/E``); the expected padded rows over all experts divided by ``n·k``
  is the factor the expert GEMMs' FLOPs grow by: ``T/m`` for a few tokens per expert, 1 for
  many (its expectation also counts the imbalance of random routing: a busy expert pads
  less, an idle one not at all).
* **The logits and the sampler.** Each sequence that emits a token in a step gets a row of
  ``V`` logits (the vocabulary), and under tensor parallel every GPU of the group gets all of
  it: TensorRT-LLM's LM head is a ``ColumnLinear(..., gather_output=True)`` (its
  models/llama/model.py), an all-gather of the vocabulary-parallel slices in the model's 16-bit
  dtype (:data:`LOGIT_GATHER_BYTES`), and every rank runs the decoder. The engine marks the
  logits as a float32 output (``PretrainedConfig.logits_dtype = 'float32'``,
  models/modeling_utils.py), and its C++ decoder, in the default decoding mode for beam width 1
  (``TopKTopP``, trtGptModelInflightBatching.cpp), copies them through the penalty kernel
  (PenaltyLayer, ``invokeBatchApplyPenalty``, every step), takes their softmax (SamplingLayer
  skips it only without top-p) and samples: :data:`SAMPLER_BYTES_PER_VOCAB` bytes per
  vocabulary entry, read at the streaming bandwidth, on every GPU whatever ``t``. Engines
  whose sampler only casts the logits to float32 and takes the next token from one read
  (vLLM V1's ``Sampler.forward``: ``logits.to(torch.float32)``, then a greedy ``argmax``)
  move fewer (``--sampler argmax``, the default).
* **Wave quantization of a short prompt's GEMMs.** A GEMM's output tiles run in waves of one
  tile per SM, and a partial last wave leaves the other SMs idle (NVIDIA, Matrix
  Multiplication Background User's Guide, "Wave Quantization"). A prompt of ``M`` tokens gives
  a weight GEMM of ``N`` output columns ``ceil(M/T)·ceil(N/T)`` tiles of ``T = 128``
  (:data:`WAVE_TILE`): 128 tokens × a 4,096-wide projection are 32 tiles, one wave that
  leaves 76 of an A100's 108 SMs idle, so the GEMM takes the time of 108 tiles' math. Its
  time is ``waves × SMs`` tiles' worth of math (:func:`wave_factor`, per GEMM of a layer,
  weighted by its FLOPs): about 1 for thousands of tokens, 2-3 for a 128-token prompt. Only
  a step's prompt tokens take it (a decode-only step's GEMMs are memory bound).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = [
    "ACT_BYTES",
    "EXPERT_TILE_M",
    "LOGIT_GATHER_BYTES",
    "SAMPLER_BYTES_PER_VOCAB",
    "WAVE_TILE",
    "dense_gemms",
    "expert_tile_factor",
    "replicated_bytes_per_token",
    "sampling_bytes_per_token",
    "wave_factor",
]

Arr = npt.NDArray[np.float64]

#: Bytes of one activation element between the kernels (16-bit, also under FP8 weights:
#: TensorRT-LLM keeps the residual stream in the model's 16-bit dtype).
ACT_BYTES = 2.0
#: Row tile of a Hopper/Ampere grouped GEMM over the tokens (M): the smallest thread-block
#: tile of the guide's cuBLAS table is 64 rows ("Typical Tile Dimensions In cuBLAS": 256x128,
#: 128x256, 128x128, 64x128, 128x64, 64x64; a small M takes a 64-row tile).
EXPERT_TILE_M = 64.0
#: Bytes one GPU moves per vocabulary entry of a sequence's logits after the LM head, per
#: sampler (:data:`gpuprof.recommend.workload.SAMPLERS`): every one casts the gathered 16-bit
#: logits to float32 (read 2, write 4); ``argmax`` then reads them once (4); TensorRT-LLM's
#: ``decoder`` copies them through its penalty kernel (read 4, write 4), takes their softmax
#: (read 4, write 4) and samples (read 4). See the module docstring.
SAMPLER_BYTES_PER_VOCAB = {
    "argmax": 2.0 + 4.0 + 4.0,
    "decoder": 2.0 + 4.0 + (4.0 + 4.0) + (4.0 + 4.0) + 4.0,
}
#: Bytes of one logit in the LM head's all-gather (the model's 16-bit dtype).
LOGIT_GATHER_BYTES = 2.0
#: Output tile (rows × columns) of a dense weight GEMM for wave quantization: 128 × 128, the
#: square tile of the guide's cuBLAS table ("Typical Tile Dimensions In cuBLAS") that a
#: 128-row prompt fills exactly.
WAVE_TILE = 128.0


def replicated_bytes_per_token(hidden: float, layers: float, top_k: int, moe: bool) -> float:
    """Bytes every GPU of a tensor-parallel group moves per token of a step in the kernels
    tensor parallel does not split: ``2 × 4·h`` for the two residual + RMSNorm kernels of a
    layer, plus ``(2 + 2k)·h`` for a mixture of experts' permute and finalize, 16-bit."""
    elements = 8.0 + ((2.0 + 2.0 * top_k) if moe else 0.0)
    return elements * hidden * ACT_BYTES * layers


def sampling_bytes_per_token(vocab: float, sampler: str = "argmax") -> tuple[float, float]:
    """(bytes every GPU moves in memory, bytes of the logits' all-gather before the ring's
    ``(t − 1)/t`` share) per sequence that emits a token: :data:`SAMPLER_BYTES_PER_VOCAB`
    and :data:`LOGIT_GATHER_BYTES` per vocabulary entry; (0, 0) for an unknown vocabulary."""
    v = max(float(vocab), 0.0)
    return SAMPLER_BYTES_PER_VOCAB[sampler] * v, LOGIT_GATHER_BYTES * v


def dense_gemms(
    hidden: float, attn: float, kv_layer: float, dense_params_layer: float, gated: bool = True
) -> tuple[tuple[float, float, bool], ...]:
    """A layer's dense weight GEMMs as ``(N, K, tensor parallel splits N)``: the fused QKV
    projection (``N = attn + kv``), the attention output (``K = attn``, split along K) and,
    where the layer's parameters leave an MLP of width ``f = (P − h·(2·attn + kv)) / (3h)``, its
    gate and up projections (two GEMMs, as TensorRT-LLM v0.5 builds the gated MLP) and its down
    projection (split along K). An MLP narrower than the hidden size (a mixture of experts'
    dense remainder) is left out."""
    h = max(float(hidden), 1.0)
    out: list[tuple[float, float, bool]] = [(attn + kv_layer, h, True), (h, attn, False)]
    ffn = (dense_params_layer - h * (2.0 * attn + kv_layer)) / (3.0 * h)
    if gated and ffn >= h:
        out += [(ffn, h, True), (ffn, h, True), (h, ffn, False)]
    return tuple(out)


def wave_factor(rows: Arr, tp: Arr, sms: Arr, gemms: tuple[tuple[float, float, bool], ...]) -> Arr:
    """Math time ÷ ideal math time of ``gemms`` over ``rows`` tokens on ``sms`` SMs per GPU
    (tensor parallel ``tp``), FLOP-weighted: each GEMM takes ``ceil(tiles / SMs)`` waves of
    :data:`WAVE_TILE`-wide tiles, as tall as the rows up to :data:`WAVE_TILE` (fewer rows than
    a tile get a shorter tile or a GEMV kernel: only the idle SMs are counted, not padded
    rows). 1 where the SM count is unknown (NaN)."""
    m = np.maximum(np.round(np.asarray(rows, dtype=np.float64)), 1.0)
    t = np.maximum(np.asarray(tp, dtype=np.float64), 1.0)
    n_sm = np.asarray(sms, dtype=np.float64)
    ideal = np.zeros(np.broadcast(m, t, n_sm).shape)
    padded = np.zeros_like(ideal)
    with np.errstate(invalid="ignore", divide="ignore"):
        for n, k, split_n in gemms:
            n_gpu = n / t if split_n else n + 0.0 * t
            k_gpu = k + 0.0 * t if split_n else k / t
            tiles = np.ceil(m / WAVE_TILE) * np.ceil(n_gpu / WAVE_TILE)
            waves = np.ceil(tiles / n_sm)
            ideal = ideal + m * n_gpu * k_gpu
            padded = padded + waves * n_sm * np.minimum(m, WAVE_TILE) * WAVE_TILE * k_gpu
        out: Arr = np.where(np.isfinite(n_sm) & (n_sm > 0) & (ideal > 0), padded / ideal, 1.0)
    return out


def expert_tile_factor(tokens: Arr | float, experts: int, top_k: int) -> Arr:
    """Expected padded rows ÷ routed rows of a grouped expert GEMM over ``tokens`` tokens.

    Each of ``E`` experts gets ``m ~ Binomial(n·k, 1/E)`` rows (uniform random routing) and
    costs ``ceil(m / T)·T``; the expectation is summed over ``m`` (normal approximation past
    a few hundred rows per expert, where the factor is within a tile of 1 anyway)."""
    n = np.maximum(np.asarray(tokens, dtype=np.float64), 1.0)
    if experts <= 1 or top_k <= 0:
        return np.ones_like(n)
    t = EXPERT_TILE_M
    rows = n * top_k
    p = 1.0 / experts
    mean = rows * p
    # E[ceil(m/T)] = sum_j P(m > j·T) for j >= 0; P(m > jT) from the binomial's normal
    # approximation with continuity correction (exact enough: the term matters only when
    # the mean is under a few tiles, and then it is dominated by P(m > 0) = 1 − (1 − p)^rows).
    sd = np.sqrt(np.maximum(rows * p * (1.0 - p), 1e-12))
    tiles = 1.0 - np.power(1.0 - p, rows)  # P(m > 0)
    finite = np.isfinite(mean)
    hi = float(np.max(np.where(finite, mean + 6.0 * sd, 0.0), initial=0.0))
    jmax = math.ceil(hi / t) + 1
    with np.errstate(invalid="ignore"):
        for j in range(1, jmax + 1):
            z = (j * t + 0.5 - mean) / sd
            tiles = tiles + 0.5 * _erfc(z / math.sqrt(2.0))
    out: Arr = tiles * t * experts / rows
    return out


def _erfc(x: Arr) -> Arr:
    """Complementary error function, elementwise: Abramowitz & Stegun 7.1.26 (absolute error
    under 1.5e-7; numpy has no erfc and a per-element math.erfc is slow over the grid)."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    y = poly * np.exp(-a * a)
    out: Arr = np.where(x >= 0, y, 2.0 - y)
    return out
