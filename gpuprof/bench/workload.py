"""A training step on synthetic data: a pre-norm transformer block (tokens/s) and a small conv
net (images/s), with autocast (BF16 / FP16 with a grad scaler on GPUs, BF16 on the CPU).

The seeds' "run one epoch as a proof of concept", made quick: fixed seeds, synthetic batches,
warm-up steps untimed, then the median step time. Sizes are small on the CPU.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from gpuprof.bench.base import BenchFn, CaseContext, Progress, Result, WorkloadResult
from gpuprof.bench.timing import measure, summarize
from gpuprof.i18n import N_

__all__ = [
    "CONV_CONFIGS",
    "TRANSFORMER_CONFIGS",
    "ConvConfig",
    "TransformerConfig",
    "workload_bench",
]


@dataclass(frozen=True, slots=True)
class TransformerConfig:
    d_model: int
    heads: int
    seq_len: int
    batch: int


@dataclass(frozen=True, slots=True)
class ConvConfig:
    image_px: int
    batch: int
    width: int


TRANSFORMER_CONFIGS = {
    ("cuda", "quick"): TransformerConfig(2048, 16, 2048, 8),
    ("cuda", "standard"): TransformerConfig(4096, 32, 2048, 4),
    ("cuda", "full"): TransformerConfig(4096, 32, 4096, 4),
    ("cpu", "quick"): TransformerConfig(128, 4, 64, 4),
    ("cpu", "standard"): TransformerConfig(256, 4, 128, 4),
    ("cpu", "full"): TransformerConfig(256, 8, 256, 8),
}
CONV_CONFIGS = {
    ("cuda", "quick"): ConvConfig(224, 128, 64),
    ("cuda", "standard"): ConvConfig(224, 256, 64),
    ("cuda", "full"): ConvConfig(224, 256, 128),
    ("cpu", "quick"): ConvConfig(32, 8, 16),
    ("cpu", "standard"): ConvConfig(32, 16, 32),
    ("cpu", "full"): ConvConfig(64, 16, 32),
}
_MAX_CPU_STEP_S = 1.0


def _transformer(cfg: TransformerConfig) -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Block(nn.Module):
        """Pre-norm block: causal self-attention (SDPA) + a 4× GELU MLP, then a linear head."""

        def __init__(self) -> None:
            super().__init__()
            d = cfg.d_model
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d, bias=False)
            self.proj = nn.Linear(d, d, bias=False)
            self.ln2 = nn.LayerNorm(d)
            self.up = nn.Linear(d, 4 * d, bias=False)
            self.down = nn.Linear(4 * d, d, bias=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, cfg.heads, d // cfg.heads).unbind(2)
            att = F.scaled_dot_product_attention(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
            )
            x = x + self.proj(att.transpose(1, 2).reshape(b, t, d))
            out: torch.Tensor = x + self.down(F.gelu(self.up(self.ln2(x))))
            return out

    return Block()


def _conv_net(cfg: ConvConfig) -> Any:
    from torch import nn

    w = cfg.width

    def stage(cin: int, cout: int, stride: int) -> list[Any]:
        return [
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        ]

    return nn.Sequential(
        *stage(3, w, 2),
        *stage(w, w, 1),
        *stage(w, 2 * w, 2),
        *stage(2 * w, 4 * w, 2),
        *stage(4 * w, 8 * w, 2),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8 * w, 1000),
    )


def workload_bench(
    model: str,
    dtype: str | None = None,
    *,
    config: TransformerConfig | ConvConfig | None = None,
    max_cpu_step_s: float = _MAX_CPU_STEP_S,
) -> BenchFn:
    """The training-step case: ``model`` is ``transformer`` or ``conv``; ``dtype`` bf16/fp16/fp32
    (default: bf16). ``config`` replaces the suite's size (a test's smaller one); on the CPU a
    step longer than 1.5 × ``max_cpu_step_s`` is skipped as too slow (``math.inf``: never)."""
    if model not in ("transformer", "conv"):
        raise ValueError(f"unknown workload {model!r}")
    want = TransformerConfig if model == "transformer" else ConvConfig
    if config is not None and not isinstance(config, want):
        raise ValueError(f"a {model} workload takes a {want.__name__}")
    dt = dtype or "bf16"

    def run(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
        import torch
        import torch.nn.functional as F

        cuda = ctx.is_cuda
        if dt == "fp16" and not cuda:
            res = Result(
                bench="workload",
                case=f"{model} {dt}",
                status=N_("skipped: FP16 autocast training is a GPU mode (CPU uses BF16)"),
            )
            yield Progress(1.0, "workload: skipped", res)
            return (res,)
        dev = torch.device(ctx.device)
        key = ("cuda" if cuda else "cpu", ctx.suite)
        torch.manual_seed(0)
        gen = torch.Generator(device=dev).manual_seed(0)
        if model == "transformer":
            tcfg = config if isinstance(config, TransformerConfig) else TRANSFORMER_CONFIGS[key]
            batch = max(1, int(tcfg.batch * ctx.scale))
            net = _transformer(tcfg).to(dev)
            x = torch.randn(batch, tcfg.seq_len, tcfg.d_model, device=dev, generator=gen)
            target = torch.randn(batch, tcfg.seq_len, tcfg.d_model, device=dev, generator=gen)
            seq_len: int | None = tcfg.seq_len
            per_step, unit = batch * tcfg.seq_len, "tokens"
            label = f"transformer d{tcfg.d_model} h{tcfg.heads} seq{tcfg.seq_len} b{batch} {dt}"
        else:
            ccfg = config if isinstance(config, ConvConfig) else CONV_CONFIGS[key]
            batch = max(1, int(ccfg.batch * ctx.scale))
            net = _conv_net(ccfg).to(dev)
            if cuda:
                net = net.to(memory_format=torch.channels_last)
            x = torch.randn(batch, 3, ccfg.image_px, ccfg.image_px, device=dev, generator=gen)
            if cuda:
                x = x.contiguous(memory_format=torch.channels_last)
            target = torch.randint(0, 1000, (batch,), device=dev, generator=gen)
            seq_len = None
            per_step, unit = batch, "images"
            label = f"conv w{ccfg.width} {ccfg.image_px}px b{batch} {dt}"
        params = sum(p.numel() for p in net.parameters())
        opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
        amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dt]
        scaler = torch.amp.GradScaler("cuda", enabled=(dt == "fp16" and cuda))

        def step() -> None:
            opt.zero_grad(set_to_none=True)
            with torch.autocast(device_type=dev.type, dtype=amp_dtype, enabled=dt != "fp32"):
                out = net(x)
                loss = (
                    F.mse_loss(out.float(), target)
                    if model == "transformer"
                    else F.cross_entropy(out.float(), target)
                )
            scaler.scale(loss).backward()  # type: ignore[no-untyped-call]
            scaler.step(opt)
            scaler.update()

        yield Progress(0.0, f"workload {label}: warm-up")
        ctx.check()
        too_slow_s = max_cpu_step_s * 1.5
        # The first step pays for allocation and kernel selection; the second predicts the rest.
        # A warm-up that alone outran both the step limit and the case's budget is a measured
        # answer already (BF16 on a CPU without AVX-512 BF16 takes tens of seconds a step):
        # a second such step would only double the time spent finding that out.
        if cuda:
            step()
        else:
            warm = measure(
                step, timer=ctx.timer(), iterations=1, warmup=0, min_iterations=1, clock=ctx.clock
            )[0]
            if warm > too_slow_s and warm > ctx.time_left_s():
                return (yield from _too_slow(label, warm))
        timer = ctx.timer()
        first = measure(
            step, timer=timer, iterations=1, warmup=0, min_iterations=1, clock=ctx.clock
        )[0]
        if not cuda and first > too_slow_s:
            return (yield from _too_slow(label, first))
        target_s = min(3.0 if cuda else 2.0, max(ctx.time_left_s() * 0.8, first * 3))
        iters = int(min(50 if cuda else 10, max(3, target_s / max(first, 1e-6))))
        yield Progress(0.3, f"workload {label}: {iters} steps")
        durations = measure(
            step,
            timer=ctx.timer(),
            iterations=iters,
            warmup=0,
            min_iterations=3,
            max_time_s=target_s,
            check=ctx.check,
            clock=ctx.clock,
        )
        st = summarize(durations)
        notes = [
            N_("synthetic data, seed 0; autocast {dtype}").format(dtype=dt)
            if dt != "fp32"
            else N_("synthetic data, seed 0; fp32")
        ]
        if ctx.scale < 1:
            notes.append(N_("batch scaled by {s:g} after out-of-memory").format(s=ctx.scale))
        res = WorkloadResult(
            bench="workload",
            case=label,
            model=model,
            dtype=dt,
            batch=batch,
            seq_len=seq_len,
            params=int(params),
            steps=st.n,
            step_time_median_s=st.median_s,
            throughput_per_s=per_step / st.median_s,
            unit=unit,
            notes=tuple(notes),
        )
        yield Progress(1.0, f"workload {label}", res)
        return (res,)

    run.__name__ = f"workload_{model}_{dt}"
    return run


def _too_slow(label: str, step_s: float) -> Generator[Progress, None, tuple[Result, ...]]:
    res = Result(
        bench="workload",
        case=label,
        status=N_("skipped: one step takes {t:.1f} s on this CPU").format(t=step_s),
    )
    yield Progress(1.0, "workload: skipped", res)
    return (res,)
