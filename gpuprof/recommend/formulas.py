"""The formulas the estimates follow, in words: shown in the details pane, the CLI's JSON
(``formulas``) and reports (:data:`FORMULAS`; moved out of :mod:`.estimate`, issue 23)."""

from __future__ import annotations

__all__ = ["FORMULAS"]

FORMULAS = (
    "training FLOPs = 6 x N x tokens (LoRA: 4 x N x tokens); inference = 2 x N per token",
    "time = FLOPs / (GPUs x peak[dtype] x efficiency); efficiency = base x scaling",
    "LLM training (fitted, leave-one-source-out checked): linear-layer matmuls at gemm[stack] x"
    " generation of the peak (FP8 outside the tuned stack x fp8_other) + attention 12 x L x h x"
    " s FLOPs per token at attention x attention_generation of the 16-bit peak + k x L x h bytes"
    " per token at 0.70 x bandwidth; full recompute: the rest x recompute_full, the attention x"
    " 4/3; a pretraining run x (1 + run_overhead)",
    "fp8 training: attention score/context FLOPs at the bf16 peak (FP8 covers linear layers)",
    "decode step = max(2 x N_active x b / rate, (N x bytes x (1-(1-N_active/N)^b) + KV) / GPUs"
    " / (0.70 x bandwidth)) + 2 x L x all-reduce(b x h x 2 bytes)",
    "all-reduce = 5.56 us + 1.98 us x 2(G-1) + 2(G-1)/G x bytes / link (NCCL, DGX-A100)",
    "training layout: tensor parallel t <= 8 in a node x pipeline p (v virtual stages) x context"
    " parallel c x data parallel d, the fastest that fits (or a layout given: tp/pp/cp/vp, micro-"
    "batch size, tensor-parallel overlap)",
    "training step = (m + (p - 1) / v) x (micro-batch compute / (t p c) + 4 all-reduces per"
    " layer of s x h x 2 / c bytes over t (with overlap: only what exceeds the compute) + K/V"
    " ring over c) + gradient all-reduce 2(d-1)/d x 2N/(t p) bytes beyond the backward it"
    " overlaps",
    "scaling = ideal time / estimated time (inference: 1 / (1 + all-reduce / step))",
    "memory per GPU (training, ZeRO-1) = 4 bytes x N / (t p) + 12 bytes x N / G + activations / t;"
    " fits if <= 85% of GPU memory",
    "inference memory per GPU = (N x bytes + KV cache 2 x L x h x seq x batch x bytes) / G",
    "cost = hours x price per hour; spot hours = hours x 1.10; a monthly subscription (--billing"
    " monthly) = max(1, ceil(hours / 730)) months x monthly price, its hourly equivalent monthly"
    " price / 730",
    "serving step (continuous batching, b in flight) = max(weights read, 2 x N_active x tokens"
    " / rate) + max(KV read, attention FLOPs / rate) + 2 x L all-reduces; reads at 0.70 x"
    " bandwidth; prompts come as chunks of the token budget B: the mean step = decode step +"
    " (b x P/O) / (B - b) x (step with a chunk - decode step); all-reduces at 370/450 of"
    " NVLink, over PCIe at NCCL's figure (12 GB/s x 2^(gen-3) / 1.2)",
    "serving kernels tensor parallel does not split: every GPU reads (8 + [MoE: 2 + 2 x top-k])"
    " x h x 2 bytes per token per layer (residual + RMSNorm twice, Megatron-LM duplicates them;"
    " MoE permute and finalize, TensorRT-LLM's tensor-parallel MoE); routed experts' FLOPs x"
    " E[sum ceil(m_e / 64) x 64] / (tokens x top-k), m_e ~ Binomial(tokens x top-k, 1/E)"
    " (tile quantization, NVIDIA Matrix Multiplication Background guide)",
    "serving b_max = KV room / ((P + O/2) x KV bytes per token); batch = the throughput-best"
    " b <= b_max meeting TTFT/TPOT; replicas = ceil(rate / (b / (O x step)) / 0.9)",
    "serving TPOT = step at the load (Little's law b = rate x O x step); TTFT = prefill"
    " rounds + M/D/1 wait; $/M output tokens = $/h of the instances / (output tokens/h / 1e6)",
    "$ per achieved PFLOP-hour = price per hour / (achieved PFLOP/s)",
)
