"""``gpuprof recommend``'s view of this machine: ``--local-gpu``, ``--measured`` and the GEMM
results of ``gpuprof bench`` that set a GPU model's efficiency."""

from __future__ import annotations

import argparse
import math
import re
from typing import Any

from gpuprof.errors import InputError
from gpuprof.i18n import tr, tr_text

#: Achieved TFLOPS above this for one GPU is a typo (B200 FP4 dense is ~9000).
MAX_MEASURED_TFLOPS = 1e5


def measurements(items: list[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for item in items:
        m = re.fullmatch(r"(.+):(\w+)=([0-9.eE+]+)", item.strip())
        if not m:
            raise InputError(tr("--measured wants GPU:DTYPE=TFLOPS, got {t!r}", t=item))
        try:
            tflops = float(m.group(3))
        except ValueError:
            raise InputError(tr("--measured wants GPU:DTYPE=TFLOPS, got {t!r}", t=item)) from None
        if not (math.isfinite(tflops) and 0 < tflops <= MAX_MEASURED_TFLOPS):
            raise InputError(
                tr(
                    "--measured {t!r}: TFLOPS must be a finite number > 0 and at most {hi:g}",
                    t=item,
                    hi=MAX_MEASURED_TFLOPS,
                )
            )
        out.setdefault(m.group(1).strip(), {})[m.group(2).lower()] = tflops
    return out


def local_machine(text: str | None, util: float | None) -> Any:
    if not text:
        return None
    from gpuprof.recommend.rank import LocalMachine

    m = re.fullmatch(r"(.+?)\s*[x×]\s*(\d+)", text.strip())
    name, count = (m.group(1), int(m.group(2))) if m else (text.strip(), 1)
    return LocalMachine(((name, count),), util_pct=util)


def local_gpu_names(local_gpu: str | None) -> list[str]:
    """This machine's GPU names: ``--local-gpu`` when given, else what this machine's GPU
    libraries list (NVML, amdsmi, or both on a mixed box: ``open_local_source``), or none."""
    if local_gpu:
        m = re.fullmatch(r"(.+?)\s*[x×]\s*(\d+)", local_gpu.strip())
        return [m.group(1) if m else local_gpu.strip()]
    from gpuprof.telemetry.vendors import open_local_source

    try:
        source = open_local_source()
    except Exception:
        return []
    try:
        return [d.name for d in source.devices() if d.name]
    except Exception:
        return []
    finally:
        source.close()


def calibrated(args: argparse.Namespace) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """(measurements for ``recommend``, the calibrations taken from the results database).

    GEMM results of `gpuprof bench` on a GPU model that is in this machine set its efficiency,
    unless ``--no-measured``; a ``--measured`` value for the same GPU and dtype wins.
    """
    from gpuprof.catalog.names import normalize_gpu_model
    from gpuprof.paths import results_db_path

    manual = measurements(args.measured)
    if args.no_measured or not results_db_path().exists():  # no benchmarks: skip the NVML probe
        return manual, {}
    from gpuprof.recommend.calibrate import local_calibrations

    names = local_gpu_names(args.local_gpu)
    cals = local_calibrations(gpu_names=names) if names else {}
    for name, rates in manual.items():
        key = normalize_gpu_model(name) or name
        for dtype in rates:
            cals.get(key, {}).pop(dtype, None)
    cals = {k: v for k, v in cals.items() if v}
    merged: dict[str, dict[str, float]] = {
        k: {d: c.tflops for d, c in v.items()} for k, v in cals.items()
    }
    for name, rates in manual.items():
        merged.setdefault(normalize_gpu_model(name) or name, {}).update(rates)
    return merged, cals


def print_calibration(cals: dict[str, Any], dtype: str) -> None:
    from gpuprof.termtext import console

    for key, per in cals.items():
        cal = per.get(dtype)
        if cal is None:
            continue
        console().print(
            tr(
                "{g}: {d} GEMM {t:.1f} TFLOPS, {src} — sets its efficiency "
                "(--no-measured to ignore)",
                g=key,
                d=dtype,
                t=cal.tflops,
                src=tr_text(cal.label),
            ),
            highlight=False,
        )
