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
    "expert_tile_factor",
    "replicated_bytes_per_token",
    "sampling_bytes_per_token",
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
