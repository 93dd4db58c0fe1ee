"""A small data-parallel PyTorch job on the CPU: RANKS processes, gloo on 127.0.0.1 (issue 13).

Run without ``RANK`` in the environment it is the launcher (what ``torchrun`` does): it starts
``--ranks`` copies of itself with ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE`` set, a file store in
a temporary folder for the rendezvous, and gloo bound to the loopback interface; it exits with
the first non-zero exit code of the ranks. Each rank trains a two-layer MLP wrapped in
``DistributedDataParallel`` (the gradients are all-reduced by gloo every step) inside
``gpuprof.track``, so that under ``gpuprof profile --torch`` every rank profiles a window and
writes its own time breakdown.

Run: ``python tests/data/train_ddp_small.py --ranks 2 --steps 12``; every rank prints
``rank R done STEPS steps``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile


def _launch(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="ddp-small-") as folder:
        env = dict(
            os.environ,
            WORLD_SIZE=str(args.ranks),
            MASTER_ADDR="127.0.0.1",
            GLOO_SOCKET_IFNAME="lo",
            DDP_SMALL_STORE=os.path.join(folder, "store"),
        )
        ranks = [
            subprocess.Popen(
                [sys.executable, __file__, *sys.argv[1:]],
                env=dict(env, RANK=str(r), LOCAL_RANK=str(r)),
            )
            for r in range(args.ranks)
        ]
        codes = [p.wait() for p in ranks]
    return next((c for c in codes if c), 0)


def _train(args: argparse.Namespace) -> int:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    import gpuprof

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group(
        "gloo",
        init_method="file://" + os.environ["DDP_SMALL_STORE"],
        rank=rank,
        world_size=world,
    )
    try:
        torch.manual_seed(rank)
        torch.set_num_threads(1)
        model = DistributedDataParallel(
            torch.nn.Sequential(
                torch.nn.Linear(64, args.width), torch.nn.ReLU(), torch.nn.Linear(args.width, 10)
            )
        )
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        loss_fn = torch.nn.CrossEntropyLoss()
        x = torch.randn(args.batch, 64)
        y = torch.randint(0, 10, (args.batch,))
        with gpuprof.track("ddp-small", torch_profiler=args.torch_profiler) as t:
            for _ in range(args.steps):
                opt.zero_grad(set_to_none=True)
                loss_fn(model(x), y).backward()  # DDP all-reduces the gradients here
                opt.step()
                t.step(samples=args.batch)
        print(f"rank {rank} done {args.steps} steps", flush=True)
    finally:
        dist.destroy_process_group()
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--steps", type=int, default=12, help="training steps (default 12)")
    ap.add_argument("--batch", type=int, default=32, help="samples per step and rank")
    ap.add_argument("--width", type=int, default=128, help="hidden width of the MLP")
    ap.add_argument("--torch-profiler", action="store_true", help="track(..., torch_profiler=True)")
    args = ap.parse_args()
    return _train(args) if "RANK" in os.environ else _launch(args)


if __name__ == "__main__":
    sys.exit(main())
