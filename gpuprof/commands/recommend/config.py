"""``gpuprof recommend --gpu X --gpus N``: the one configuration asked for, as a one-row catalog.

Up to the catalog's largest node of that GPU it is one node; beyond it a cluster of catalog
nodes on that instance's network (issue 16).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import sys
from typing import Any

from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.recommend.workload import LIMITS

__all__ = ["one_config_catalog"]


def one_config_catalog(cat: Any, gpu: str, gpus: int) -> tuple[Any, int]:
    """(a one-row catalog, nodes): ``gpus`` × ``gpu`` priced at the catalog's median $/GPU-h.

    Up to the largest node the catalog has for that GPU, one node; beyond it a cluster of
    ``ceil(gpus / per node)`` such nodes on that instance's network (the fastest stated)."""
    from gpuprof.catalog.instances import Instance
    from gpuprof.catalog.names import normalize_gpu_model

    key = normalize_gpu_model(gpu)
    if key is None:
        raise InputError(tr("unknown GPU {g!r}; see `gpuprof catalog gpus`", g=gpu))
    same = [
        i
        for i in cat.instances
        if i.gpu_model == key and i.price_ondemand_usd_hr and i.gpu_count >= 1
    ]
    per_gpu = (
        statistics.median(i.price_ondemand_usd_hr / i.gpu_count for i in same) if same else None
    )
    spot = [i.price_spot_usd_hr / i.gpu_count for i in same if i.price_spot_usd_hr]
    spec = cat.specs[key]
    mem = (
        statistics.median(i.gpu_mem_gib for i in same if i.gpu_mem_gib)
        if any(i.gpu_mem_gib for i in same)
        else spec.memory_gib
    )
    # The node: the catalog's largest instance of this GPU, the fastest network among those.
    node = max(
        same, key=lambda i: (i.network_gbps is not None, i.gpu_count, i.network_gbps), default=None
    )
    biggest = max((int(i.gpu_count) for i in same), default=gpus)
    per_node = int(node.gpu_count) if node and gpus > biggest else gpus
    nodes = max(1, math.ceil(gpus / per_node))
    if nodes > LIMITS["node_limit"]:  # name what was typed, not the node_limit it became
        raise InputError(
            tr(
                "{name} {v:.3g} is beyond any real workload (at most {lim:.3g}); check the number",
                name="--gpus",
                v=float(gpus),
                lim=LIMITS["node_limit"] * per_node,
            )
        )
    if nodes > 1 and (node is None or node.network_gbps is None):
        # A multi-node row is costed over the instance's network: without it nothing runs.
        raise InputError(
            tr(
                "--gpus {n}: more {gpu} than one node holds ({per}), and no catalog instance with "
                "{gpu} states its network speed to cost several nodes; use --gpus {per} or fewer",
                n=gpus,
                gpu=key,
                per=per_node,
            )
        )
    count = math.ceil(gpus / nodes)  # 12 GPUs on 8-GPU nodes: 2 nodes × 6
    if count * nodes != gpus:  # 9 on 8-GPU nodes: 2 × 5 = 10, priced and timed as 10
        print(
            "gpuprof: "
            + tr(
                "note: --gpus {n} on {per}-GPU nodes is costed as {nodes} nodes × {c} = {t} "
                "GPUs (the same number on each node)",
                n=gpus,
                per=per_node,
                nodes=nodes,
                c=count,
                t=count * nodes,
            ),
            file=sys.stderr,
        )
    name = f"{count}x {key}" if nodes == 1 else f"{count}x {key} ({node.instance if node else ''})"
    inst = Instance(
        provider="custom",
        instance=name,
        gpu_model=key,
        gpu_name=key,
        gpu_count=float(count),
        gpu_mem_gib=mem,
        network_gbps=node.network_gbps if node and nodes > 1 else None,
        price_ondemand_usd_hr=per_gpu * count if per_gpu else None,
        price_spot_usd_hr=statistics.median(spot) * count if spot else None,
        source=f"median $/GPU-h of {len(same)} catalog rows with {key}",
        as_of=max((i.as_of for i in same), default=""),
    )
    return dataclasses.replace(cat, instances=(inst,)), nodes
