"""Cloud instance catalog: the packaged ``resources/cloud_instances.csv`` plus user overlays.

File format (UTF-8 CSV, header required; the packaged file and overlays share it):

``provider, instance, region, zone, gpu_model, gpu_count, gpu_mem_gib, vcpus, ram_gib,
interconnect, network_gbps, price_ondemand_usd_hr, price_spot_usd_hr, price_reserved_1y_usd_hr,
price_reserved_3y_usd_hr, source, as_of, notes``

``provider``, ``instance``, ``gpu_model`` and ``gpu_count`` are required; every other cell may be
blank (unknown). Prices are USD per hour for the whole instance. A bad row is reported as
``file:line: reason`` and skipped; the good rows load. A GPU name the spec table does not know is
kept (its rates are unknown) and flagged. An overlay row with the same provider, instance and
region as a packaged row replaces it (negotiated prices, private clouds).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from gpuprof.catalog.names import normalize_gpu_model
from gpuprof.catalog.specs import GpuSpec, load_specs
from gpuprof.errors import InputError
from gpuprof.fileio import atomic_open

__all__ = [
    "COLUMNS",
    "Catalog",
    "CatalogIssue",
    "Instance",
    "load_catalog",
    "parse_instances_csv",
    "read_instances_file",
    "write_instances_csv",
]

COLUMNS = (
    "provider",
    "instance",
    "region",
    "zone",
    "gpu_model",
    "gpu_count",
    "gpu_mem_gib",
    "vcpus",
    "ram_gib",
    "interconnect",
    "network_gbps",
    "price_ondemand_usd_hr",
    "price_spot_usd_hr",
    "price_reserved_1y_usd_hr",
    "price_reserved_3y_usd_hr",
    "source",
    "as_of",
    "notes",
)
_REQUIRED = ("provider", "instance", "gpu_model", "gpu_count")


@dataclass(frozen=True)
class Instance:
    """One rentable machine shape. ``gpu_model`` is the spec-table key when ``gpu_known``."""

    provider: str
    instance: str
    gpu_model: str
    gpu_count: float
    region: str = ""
    zone: str = ""
    gpu_name: str = ""  # the GPU name as the source wrote it
    gpu_known: bool = True
    gpu_mem_gib: float | None = None  # per GPU
    vcpus: float | None = None
    ram_gib: float | None = None
    interconnect: str = ""
    network_gbps: float | None = None
    price_ondemand_usd_hr: float | None = None
    price_spot_usd_hr: float | None = None
    price_reserved_1y_usd_hr: float | None = None
    price_reserved_3y_usd_hr: float | None = None
    source: str = ""
    as_of: str = ""
    notes: str = ""
    origin: str = "packaged"  # "packaged" or the overlay file's name

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.provider.lower(), self.instance.lower(), self.region.lower())


@dataclass(frozen=True)
class CatalogIssue:
    """A problem with one row of a catalog file; ``severity`` is "error" (row skipped) or "warning"."""

    file: str
    line: int
    reason: str
    severity: str = "error"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass(frozen=True, eq=False)
class Catalog:
    """Specs + instances + what went wrong while reading them (compared by identity)."""

    specs: Mapping[str, GpuSpec]
    instances: tuple[Instance, ...]
    issues: tuple[CatalogIssue, ...] = ()
    files: tuple[str, ...] = field(default=())

    def spec_for(self, instance: Instance) -> GpuSpec | None:
        return self.specs.get(instance.gpu_model) if instance.gpu_known else None

    def filter(
        self,
        *,
        gpu: str | None = None,
        providers: Iterable[str] | None = None,
        regions: Iterable[str] | None = None,
        instance: str | None = None,
    ) -> Catalog:
        """A catalog with only the matching instances (``gpu`` is normalized first)."""
        rows: Iterable[Instance] = self.instances
        if gpu:
            key = normalize_gpu_model(gpu)
            want = key.lower() if key else gpu.strip().lower()
            rows = [r for r in rows if r.gpu_model.lower() == want or r.gpu_name.lower() == want]
        if providers:
            wanted = {p.strip().lower() for p in providers if p.strip()}
            rows = [r for r in rows if r.provider.lower() in wanted]
        if regions:
            wanted_r = {p.strip().lower() for p in regions if p.strip()}
            rows = [r for r in rows if r.region.lower() in wanted_r]
        if instance:
            rows = [r for r in rows if r.instance.lower() == instance.strip().lower()]
        return replace(self, instances=tuple(rows))

    @property
    def providers(self) -> tuple[str, ...]:
        return tuple(sorted({r.provider for r in self.instances}))


def _num(row: Mapping[str, str | None], name: str, *, positive: bool = False) -> float | None:
    text = (row.get(name) or "").strip().replace("$", "").replace(",", "")
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} is not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be {'> 0' if positive else '>= 0'}, got {text}")
    return value


def instance_from_row(row: Mapping[str, str | None], *, origin: str) -> tuple[Instance, str | None]:
    """Build an Instance; returns (instance, warning or None). Raises ValueError for a bad row."""
    for name in _REQUIRED:
        if not (row.get(name) or "").strip():
            raise ValueError(f"missing {name}")
    count = _num(row, "gpu_count", positive=True)
    assert count is not None
    mem = _num(row, "gpu_mem_gib", positive=True)
    gpu_name = (row.get("gpu_model") or "").strip()
    key = normalize_gpu_model(gpu_name, mem)
    warning = None
    if key is None:
        warning = f"unknown GPU {gpu_name!r}: kept, but its rates are unknown"
    specs = load_specs()
    if mem is None and key is not None:
        mem = specs[key].memory_gib  # the spec table's figure when the row gives none
    inst = Instance(
        provider=(row.get("provider") or "").strip(),
        instance=(row.get("instance") or "").strip(),
        region=(row.get("region") or "").strip(),
        zone=(row.get("zone") or "").strip(),
        gpu_model=key or gpu_name,
        gpu_name=gpu_name,
        gpu_known=key is not None,
        gpu_count=count,
        gpu_mem_gib=mem,
        vcpus=_num(row, "vcpus"),
        ram_gib=_num(row, "ram_gib"),
        interconnect=(row.get("interconnect") or "").strip(),
        network_gbps=_num(row, "network_gbps"),
        price_ondemand_usd_hr=_num(row, "price_ondemand_usd_hr"),
        price_spot_usd_hr=_num(row, "price_spot_usd_hr"),
        price_reserved_1y_usd_hr=_num(row, "price_reserved_1y_usd_hr"),
        price_reserved_3y_usd_hr=_num(row, "price_reserved_3y_usd_hr"),
        source=(row.get("source") or "").strip() or f"user:{origin}",
        as_of=(row.get("as_of") or "").strip(),
        notes=(row.get("notes") or "").strip(),
        origin=origin,
    )
    return inst, warning


def parse_instances_csv(
    text: str, *, name: str, origin: str = "packaged"
) -> tuple[list[Instance], list[CatalogIssue]]:
    """Parse a catalog CSV; bad rows become issues (``name:line: reason``), good rows load."""
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in _REQUIRED if c not in header]
    if missing:
        return [], [CatalogIssue(name, 1, f"missing column(s): {', '.join(missing)}")]
    reader.fieldnames = header
    out: list[Instance] = []
    issues: list[CatalogIssue] = []
    line = reader.line_num
    for row in reader:
        first_line, line = line + 1, reader.line_num
        if None in row:  # more cells than header columns
            issues.append(CatalogIssue(name, first_line, "more cells than header columns"))
            continue
        if not any((v or "").strip() for v in row.values()):
            continue
        try:
            inst, warning = instance_from_row(row, origin=origin)
        except ValueError as exc:
            issues.append(CatalogIssue(name, first_line, str(exc)))
            continue
        if warning:
            issues.append(CatalogIssue(name, first_line, warning, "warning"))
        out.append(inst)
    return out, issues


def read_instances_file(path: Path) -> tuple[list[Instance], list[CatalogIssue]]:
    try:
        text = path.read_text("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read catalog {path}: {exc}") from None
    try:
        return parse_instances_csv(text, name=str(path), origin=path.name)
    except csv.Error as exc:  # a field over the csv module's limit, a NUL byte
        raise InputError(f"{path}: not a readable CSV ({exc})") from None


def write_instances_csv(rows: Sequence[Instance], path: Path) -> None:
    """Write instances in the catalog format (``gpu_model`` as the source named it)."""
    with atomic_open(path, "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(COLUMNS)
        for r in rows:
            values = {
                "provider": r.provider,
                "instance": r.instance,
                "region": r.region,
                "zone": r.zone,
                "gpu_model": r.gpu_name or r.gpu_model,
                "gpu_count": r.gpu_count,
                "gpu_mem_gib": r.gpu_mem_gib,
                "vcpus": r.vcpus,
                "ram_gib": r.ram_gib,
                "interconnect": r.interconnect,
                "network_gbps": r.network_gbps,
                "price_ondemand_usd_hr": r.price_ondemand_usd_hr,
                "price_spot_usd_hr": r.price_spot_usd_hr,
                "price_reserved_1y_usd_hr": r.price_reserved_1y_usd_hr,
                "price_reserved_3y_usd_hr": r.price_reserved_3y_usd_hr,
                "source": r.source,
                "as_of": r.as_of,
                "notes": r.notes,
            }
            writer.writerow(["" if values[c] is None else _fmt(values[c]) for c in COLUMNS])


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}" if abs(value) < 1e15 else repr(value)
    return str(value)


def _packaged() -> tuple[list[Instance], list[CatalogIssue]]:
    text = resources.files("gpuprof.resources").joinpath("cloud_instances.csv").read_text("utf-8")
    return parse_instances_csv(text, name="cloud_instances.csv")


def load_catalog(
    overlays: bool = True, *, extra_files: Sequence[Path] = (), overlay_dir: Path | None = None
) -> Catalog:
    """Packaged catalog + user overlays (``paths.user_catalog_dir()/*.csv``) + ``extra_files``."""
    rows, issues = _packaged()
    files = ["cloud_instances.csv"]
    extra: list[Path] = []
    if overlays:
        if overlay_dir is None:
            from gpuprof.paths import user_catalog_dir

            overlay_dir = user_catalog_dir()
        extra.extend(sorted(overlay_dir.glob("*.csv")))
    extra.extend(extra_files)
    by_key = {r.key: i for i, r in enumerate(rows)}
    for path in extra:
        more, more_issues = read_instances_file(path)
        issues.extend(more_issues)
        files.append(str(path))
        for inst in more:
            idx = by_key.get(inst.key)
            if idx is not None and rows[idx].origin == "packaged":
                rows[idx] = inst
            else:
                by_key[inst.key] = len(rows)
                rows.append(inst)
    return Catalog(load_specs(), tuple(rows), tuple(issues), tuple(files))
