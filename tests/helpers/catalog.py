"""Catalog rows and catalogs made in a test, on the shipped GPU spec table."""

from __future__ import annotations

from typing import Any

from gpuprof.catalog.instances import Catalog, Instance
from gpuprof.catalog.specs import load_specs


def offer(
    name: str,
    gpu: str = "H100 SXM",
    count: float = 8,
    mem: float | None = 80.0,
    price: float | None = 50.0,
    **fields: Any,
) -> Instance:
    """A catalog row ``name`` of provider X: ``count`` GPUs ``gpu`` (its model and its name)
    of ``mem`` GiB each at ``price`` USD an hour on demand, as of 2026; ``fields``: the row's
    others (provider, as_of, network_gbps, the other prices, ...)."""
    fields.setdefault("provider", "X")
    fields.setdefault("as_of", "2026")
    return Instance(
        instance=name,
        gpu_model=gpu,
        gpu_name=gpu,
        gpu_count=count,
        gpu_mem_gib=mem,
        price_ondemand_usd_hr=price,
        **fields,
    )


def catalog_of(*rows: Instance) -> Catalog:
    """A catalog of ``rows`` alone, with the shipped GPU specs."""
    return Catalog(load_specs(), rows)
