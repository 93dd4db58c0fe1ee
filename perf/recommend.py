"""Time ranking a synthetic 10,000-row catalog for one workload; prints JSON (target: ≤ 50 ms).

``cold_ms`` includes gathering the per-instance arrays (once per catalog); ``warm_ms`` is a
re-rank of the same catalog (a changed form in the GUI). Usage: ``python perf/recommend.py``.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpuprof.catalog.instances import Catalog, Instance, load_catalog
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.workload import Workload


def synthetic(n: int = 10_000, seed: int = 1) -> Catalog:
    base = load_catalog(overlays=False)
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        src = rng.choice(base.instances)
        price = src.price_ondemand_usd_hr
        rows.append(
            Instance(
                provider=rng.choice(("AWS", "GCP", "Azure", "OCI", "Lambda", "RunPod")),
                instance=f"{src.instance}-{i}",
                region=f"r{i % 20}",
                gpu_model=src.gpu_model,
                gpu_name=src.gpu_name,
                gpu_known=src.gpu_known,
                gpu_count=src.gpu_count,
                gpu_mem_gib=src.gpu_mem_gib,
                network_gbps=src.network_gbps or rng.choice((None, 100.0, 400.0)),
                price_ondemand_usd_hr=price * rng.uniform(0.7, 1.3) if price else None,
                price_spot_usd_hr=price * 0.4 if price and rng.random() < 0.5 else None,
                source="synthetic",
                as_of="2026",
            )
        )
    return Catalog(base.specs, tuple(rows))


def main() -> None:
    w = Workload(
        "pretrain", 70e9, "bf16", tokens=2e11, deadline_hours=24 * 14, budget_usd=2e6, spot=True
    )
    cold, warm = [], []
    for k in range(7):
        cat = synthetic(seed=k)
        t0 = time.perf_counter()
        recommend(w, cat)
        cold.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        rec = recommend(w, cat)
        warm.append((time.perf_counter() - t0) * 1e3)
    print(
        json.dumps(
            {
                "bench": "recommend_10k",
                "rows": 10_000,
                "runs": len(cold),
                "cold_ms_median": round(statistics.median(cold), 2),
                "warm_ms_median": round(statistics.median(warm), 2),
                "target_ms": 50,
                "viable": rec.viable,
                "returned_rows": len(rec.rows),
            }
        )
    )


if __name__ == "__main__":
    main()
