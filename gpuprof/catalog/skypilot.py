"""Import SkyPilot catalog files (``catalogs/v*/<cloud>/vms.csv`` of skypilot-org/skypilot-catalog).

Columns used: ``InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price,
SpotPrice, Region, AvailabilityZone (optional), GpuInfo``. ``GpuInfo`` is a Python-literal dict,
e.g. ``{'Gpus': [{'Name': 'A100', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 40960}}], ...}``;
the per-GPU memory comes from it. Rows without an accelerator (CPU-only VMs) are skipped
silently; a row with an accelerator but a bad number is reported as ``file:line: reason``.
"""

from __future__ import annotations

import ast
import csv
import io
from datetime import date
from pathlib import Path

from gpuprof.catalog.instances import (
    CatalogIssue,
    Instance,
    instance_from_row,
    parse_instances_csv,
    write_instances_csv,
)
from gpuprof.errors import InputError

__all__ = ["import_catalog_file", "parse_skypilot_csv"]

_NEEDED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price")


def _gpu_mem_gib(gpu_info: str) -> str:
    text = gpu_info.strip()
    if not text:
        return ""
    try:
        info = ast.literal_eval(text)
        mib = info["Gpus"][0]["MemoryInfo"]["SizeInMiB"]
        return f"{float(mib) / 1024:g}"
    except (ValueError, SyntaxError, KeyError, IndexError, TypeError):
        return ""


def provider_from_path(path: Path) -> str:
    """``.../catalogs/v8/aws/vms.csv`` → ``aws``; otherwise the file's stem."""
    if path.stem.lower() == "vms" and path.parent.name:
        return path.parent.name
    return path.stem


def parse_skypilot_csv(
    text: str, *, name: str, provider: str, as_of: str = ""
) -> tuple[list[Instance], list[CatalogIssue]]:
    """SkyPilot rows → Instances (one per InstanceType/Region/AvailabilityZone row)."""
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in _NEEDED if c not in header]
    if missing:
        return [], [CatalogIssue(name, 1, f"not a SkyPilot vms.csv: missing {', '.join(missing)}")]
    reader.fieldnames = header
    rows: list[Instance] = []
    issues: list[CatalogIssue] = []
    line = reader.line_num
    for raw in reader:
        first_line, line = line + 1, reader.line_num
        accel = (raw.get("AcceleratorName") or "").strip()
        if not accel:
            continue
        row = {
            "provider": provider,
            "instance": raw.get("InstanceType") or "",
            "region": raw.get("Region") or "",
            "zone": raw.get("AvailabilityZone") or "",
            "gpu_model": accel,
            "gpu_count": raw.get("AcceleratorCount") or "",
            "gpu_mem_gib": _gpu_mem_gib(raw.get("GpuInfo") or ""),
            "vcpus": raw.get("vCPUs") or "",
            "ram_gib": raw.get("MemoryGiB") or "",
            "price_ondemand_usd_hr": raw.get("Price") or "",
            "price_spot_usd_hr": raw.get("SpotPrice") or "",
            "source": f"skypilot:{Path(name).name}",
            "as_of": as_of,
        }
        try:
            inst, warning = instance_from_row(row, origin=Path(name).name)
        except ValueError as exc:
            issues.append(CatalogIssue(name, first_line, str(exc)))
            continue
        if warning:
            issues.append(CatalogIssue(name, first_line, warning, "warning"))
        rows.append(inst)
    return rows, issues


def import_catalog_file(
    path: Path, *, fmt: str = "auto", provider: str | None = None, dest_dir: Path | None = None
) -> tuple[Path, list[Instance], list[CatalogIssue]]:
    """Validate ``path`` and store its good rows as an overlay in ``dest_dir``.

    ``fmt`` is "skypilot", "gpuprof" or "auto" (by header). Returns the stored file, the rows
    and the issues. Raises InputError when nothing could be read.
    """
    try:
        text = path.read_text("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    if fmt == "auto":
        first = text.splitlines()[0] if text else ""
        fmt = "skypilot" if "InstanceType" in first else "gpuprof"
    try:
        if fmt == "skypilot":
            prov = provider or provider_from_path(path)
            stamp = date.fromtimestamp(path.stat().st_mtime).isoformat()
            rows, issues = parse_skypilot_csv(text, name=str(path), provider=prov, as_of=stamp)
            stem = f"skypilot-{prov}"
        elif fmt == "gpuprof":
            rows, issues = parse_instances_csv(text, name=str(path), origin=path.name)
            stem = path.stem
        else:
            raise InputError(f"unknown catalog format {fmt!r} (use skypilot or gpuprof)")
    except csv.Error as exc:  # a malformed file: a field over the csv module's limit, a NUL
        raise InputError(f"{path}: not a readable CSV ({exc})") from None
    if not rows:
        reasons = "; ".join(str(i) for i in issues[:3]) or "no GPU rows"
        raise InputError(f"nothing imported from {path}: {reasons}")
    if dest_dir is None:
        from gpuprof.paths import user_catalog_dir

        dest_dir = user_catalog_dir()
    dest = dest_dir / f"{stem}.csv"
    write_instances_csv(rows, dest)
    return dest, rows, issues
