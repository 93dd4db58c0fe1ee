"""Import SkyPilot catalog files (``catalogs/v*/<cloud>/vms.csv`` of skypilot-org/skypilot-catalog).

Columns used: ``InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price,
SpotPrice, Region, AvailabilityZone (optional), GpuInfo``. ``GpuInfo`` is a Python-literal dict,
e.g. ``{'Gpus': [{'Name': 'A100', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 40960}}], ...}``;
the per-GPU memory comes from it. Rows without an accelerator (CPU-only VMs) are skipped
silently; a row with an accelerator but a bad number is reported as ``file:line: reason``.
Rows repeated per zone with the same prices are merged (see :class:`RowMerger`).

The overlay's file name is made from the provider (``skypilot-<provider>.csv``) or the imported
file's stem, through :func:`~gpuprof.catalog.names.file_stem`: a provider ``a/b`` or 300
characters long never becomes a path or a name the file system refuses; a changed name is said.
"""

from __future__ import annotations

import ast
import io
import math
from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path

from gpuprof.catalog.csvrows import open_text, read_rows
from gpuprof.catalog.gcp_compose import HOST_PREFIXES, Attachable, Host, compose
from gpuprof.catalog.instances import (
    CatalogIssue,
    Instance,
    RowMerger,
    instance_from_row,
    read_instances_file,
    write_instances_csv,
)
from gpuprof.catalog.names import file_stem
from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = ["COMPOSED_MARK", "import_catalog_file", "parse_skypilot_csv"]

_NEEDED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price")


def _gpu_mem_gib(gpu_info: str) -> str:
    text = gpu_info.strip()
    if not text:
        return ""
    try:
        info = ast.literal_eval(text)
        mib = float(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"])
        if mib < 1024:  # RunPod's v8 catalog writes GB here ('SizeInMiB': 80): not MiB
            return ""
        return repr(mib / 1024)  # exact: 81559 MiB is 79.6474609375 GiB, not 79.6475
    except (ValueError, SyntaxError, KeyError, IndexError, TypeError):
        return ""


def provider_from_path(path: Path) -> str:
    """``.../catalogs/v8/aws/vms.csv`` → ``aws``; otherwise the file's stem."""
    if path.stem.lower() == "vms" and path.parent.name:
        return path.parent.name
    return path.stem


def parse_skypilot_csv(
    text: str | Iterable[str], *, name: str, provider: str, as_of: str = ""
) -> tuple[list[Instance], list[CatalogIssue]]:
    """SkyPilot rows → Instances (one per InstanceType/Region; zones with the same prices merged).

    ``text`` is the file's text or its lines (a file opened with ``newline=""``)."""
    lines = io.StringIO(text) if isinstance(text, str) else text
    merger = RowMerger(name)
    on_issue = merger.on_issue
    missing = "not a SkyPilot vms.csv: missing {cols}"
    hosts: list[Host] = []
    attachable: list[Attachable] = []

    def add(row: dict[str, str], first_line: int) -> None:
        merger.take(first_line, lambda: instance_from_row(row, origin=Path(name).name))

    for first_line, raw in read_rows(
        lines, name=name, required=_NEEDED, on_issue=on_issue, missing=missing
    ):
        accel = (raw.get("AcceleratorName") or "").strip()
        itype = (raw.get("InstanceType") or "").strip()
        if not accel:
            # A VM without GPUs: skipped, but kept as a possible host of GPU rows (GCP).
            if itype.startswith(HOST_PREFIXES):
                host = _host(raw, itype)
                if host is not None:
                    hosts.append(host)
            continue
        if not itype:
            # A GPU without a machine type (GCP): composed with its host below. TPUs are not
            # GPUs: skipped like CPU-only rows.
            if not accel.lower().startswith("tpu"):
                gpu = _attachable(raw, accel, first_line)
                if gpu is None:
                    on_issue(first_line, tr("{a}: bad count or price", a=accel), "error")
                else:
                    attachable.append(gpu)
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
        add(row, first_line)
    paired, alone = compose(attachable, hosts)
    for gpu, host in paired:
        add(_composed_row(gpu, host, provider=provider, name=name, as_of=as_of), gpu.line)
    if alone:
        first = alone[0]
        on_issue(
            first.line,
            tr(
                "{n} GPU rows without a machine type have no host VM in their zone "
                "(first: {c}x {g} in {z}); skipped",
                n=len(alone),
                c=f"{first.count:g}",
                g=first.name,
                z=first.zone or first.region,
            ),
            "warning",
        )
    return merger.result()


#: How a composed row's notes begin (``catalog import`` counts them).
COMPOSED_MARK = "composed:"


def _num(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _host(raw: Mapping[str, str | None], itype: str) -> Host | None:
    price = _num(raw.get("Price"))
    if price is None:
        return None
    return Host(
        instance=itype,
        region=(raw.get("Region") or "").strip(),
        zone=(raw.get("AvailabilityZone") or "").strip(),
        vcpus=_num(raw.get("vCPUs")),
        ram_gib=_num(raw.get("MemoryGiB")),
        price=price,
        spot=_num(raw.get("SpotPrice")),
    )


def _attachable(raw: Mapping[str, str | None], accel: str, line: int) -> Attachable | None:
    count, price = _num(raw.get("AcceleratorCount")), _num(raw.get("Price"))
    if not count or price is None:
        return None
    return Attachable(
        line=line,
        name=accel,
        count=count,
        region=(raw.get("Region") or "").strip(),
        zone=(raw.get("AvailabilityZone") or "").strip(),
        price=price,
        spot=_num(raw.get("SpotPrice")),
        gpu_info=raw.get("GpuInfo") or "",
    )


def _composed_row(
    gpu: Attachable, host: Host, *, provider: str, name: str, as_of: str
) -> dict[str, str]:
    built_in = not host.instance.startswith("n1-")
    instance = host.instance if built_in else f"{host.instance} + {gpu.count:g}x {gpu.name}"
    spot = "" if gpu.spot is None or host.spot is None else repr(gpu.spot + host.spot)
    return {
        "provider": provider,
        "instance": instance,
        "region": gpu.region,
        "zone": gpu.zone,
        "gpu_model": gpu.name,
        "gpu_count": repr(gpu.count),
        "gpu_mem_gib": _gpu_mem_gib(gpu.gpu_info),
        "vcpus": "" if host.vcpus is None else repr(host.vcpus),
        "ram_gib": "" if host.ram_gib is None else repr(host.ram_gib),
        "price_ondemand_usd_hr": repr(round(gpu.price + host.price, 6)),
        "price_spot_usd_hr": spot and repr(round(float(spot), 6)),
        "source": f"skypilot:{Path(name).name}",
        "as_of": as_of,
        "notes": (
            f"{COMPOSED_MARK} host {host.instance} ${host.price:g}/h + {gpu.count:g}x "
            f"{gpu.name} ${gpu.price:g}/h (GPUs and VM listed apart, as in SkyPilot's GCP "
            "catalog)"
        ),
    }


def _first_line(path: Path) -> str:
    with open_text(path) as fh:
        try:
            return fh.readline()
        except UnicodeDecodeError as exc:
            raise InputError(tr("{p}: not UTF-8 text ({e})", p=path, e=exc.reason)) from None
        except OSError as exc:
            raise InputError(
                tr("cannot read catalog {p}: {e}", p=path, e=exc.strerror or exc)
            ) from None


def import_catalog_file(
    path: Path, *, fmt: str = "auto", provider: str | None = None, dest_dir: Path | None = None
) -> tuple[Path, list[Instance], list[CatalogIssue]]:
    """Validate ``path`` and store its good rows as an overlay in ``dest_dir``.

    ``fmt`` is "skypilot", "gpuprof" or "auto" (by header). Returns the stored file, the rows
    and the issues. Raises InputError when nothing could be read.
    """
    if fmt == "auto":
        fmt = "skypilot" if "InstanceType" in _first_line(path) else "gpuprof"
    if fmt == "skypilot":
        prov = (provider or provider_from_path(path)).strip()
        if not prov:
            raise InputError(f"{path}: the provider name is empty (give --provider)")
        try:
            stamp = date.fromtimestamp(path.stat().st_mtime).isoformat()
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
        with open_text(path) as fh:
            rows, issues = parse_skypilot_csv(fh, name=str(path), provider=prov, as_of=stamp)
        wanted, stem = f"skypilot-{prov}", f"skypilot-{file_stem(prov, fallback='provider')}"
    elif fmt == "gpuprof":
        rows, issues = read_instances_file(path)
        wanted = path.stem
        stem = file_stem(wanted)
    else:
        raise InputError(tr("unknown catalog format {f!r} (use skypilot or gpuprof)", f=fmt))
    if not rows:
        errors = [i for i in issues if i.severity == "error"]
        reasons = "; ".join(str(i) for i in errors[:3]) or tr("no GPU rows")
        raise InputError(tr("nothing imported from {p}: {r}", p=path, r=reasons))
    if stem != wanted:
        shown = wanted if len(wanted) <= 80 else f"{wanted[:77]}..."
        issues.append(
            CatalogIssue(
                str(path), 0, f"stored as {stem}.csv (a file name made from {shown!r})", "warning"
            )
        )
    if dest_dir is None:
        from gpuprof.paths import user_catalog_dir

        dest_dir = user_catalog_dir()
    dest = dest_dir / f"{stem}.csv"  # file_stem: no separator, no "..", never too long
    write_instances_csv(rows, dest)
    return dest, rows, issues
