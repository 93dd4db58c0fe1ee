"""A small PyTorch training job on the CPU, instrumented with ``gpuprof.track`` (issue 13).

The end-to-end tests run it under ``gpuprof profile`` (``--torch`` too) and standalone. It
trains a two-layer MLP on synthetic data and reports each step (``tokens``, ``samples`` and
``flops`` from :func:`gpuprof.flops_per_token`), labels its evaluations with ``t.mark``, and
exits with ``--exit-code`` so that the exit-code pass-through can be checked.

Run: ``python tests/data/train_small.py --steps 20 [--sleep 0.01] [--mark-eval] [--exit-code 3]``.
It prints ``done STEPS steps`` on stdout as its last line when all steps ran.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

import gpuprof


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20, help="training steps (default 20)")
    ap.add_argument("--exit-code", type=int, default=0, help="exit with this code at the end")
    ap.add_argument("--sleep", type=float, default=0.0, help="seconds to sleep in each step")
    ap.add_argument("--mark-eval", action="store_true", help="an evaluation every 5 steps")
    ap.add_argument("--name", default="train-small", help="the run name given to track()")
    ap.add_argument("--batch", type=int, default=32, help="samples per step")
    ap.add_argument("--width", type=int, default=128, help="hidden width of the MLP")
    ap.add_argument("--seq-len", type=int, default=16, help="tokens per sample (reported only)")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--out", default=None, help="standalone: the recording to write")
    ap.add_argument("--torch-profiler", action="store_true", help="track(..., torch_profiler=True)")
    args = ap.parse_args(argv)

    torch.manual_seed(0)
    torch.set_num_threads(max(1, args.threads))
    model = torch.nn.Sequential(
        torch.nn.Linear(64, args.width),
        torch.nn.ReLU(),
        torch.nn.Linear(args.width, 10),
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    n_params = sum(p.numel() for p in model.parameters())
    # Forward 2N + backward 4N multiply-adds per sample: the 6N of Kaplan et al. (2020).
    flops_per_step = gpuprof.flops_per_token(n_params, 1) * args.batch
    x = torch.randn(args.batch, 64)
    y = torch.randint(0, 10, (args.batch,))

    with gpuprof.track(args.name, out=args.out, torch_profiler=args.torch_profiler) as t:
        for step in range(1, args.steps + 1):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            if args.sleep > 0:
                time.sleep(args.sleep)
            t.step(tokens=args.batch * args.seq_len, samples=args.batch, flops=flops_per_step)
            if args.mark_eval and step % 5 == 0:
                t.mark("eval")
                with torch.no_grad():
                    model(x)
                t.mark("train")
    print(f"done {args.steps} steps", flush=True)
    return int(args.exit_code)


if __name__ == "__main__":
    sys.exit(main())
