"""The GPU spec table (``resources/gpu_specs.csv``): one row per GPU model, blanks stay ``None``.

TFLOPS are dense (without structured sparsity), per GPU. Every row names its sources and the
date of the newest dated source; a value no source gives is ``None``, never a guess.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from gpuprof.errors import InputError

__all__ = [
    "ARCH_DTYPES",
    "DTYPES",
    "SPEC_DTYPES",
    "GpuSpec",
    "arch_family",
    "load_specs",
    "missing_dtypes",
    "parse_specs_csv",
]

#: Compute dtypes the estimators rank by (a peak-rate column each in the spec table).
DTYPES = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8")
#: Every dtype with a peak-rate column: DTYPES and Blackwell's FP4.
SPEC_DTYPES = (*DTYPES, "fp4")

#: The floating-point dtypes each architecture runs at a published peak rate (FP16 is the
#: tensor-core rate where the part has tensor cores, else its packed half rate; INT8 is left
#: out: the inference estimators treat it as optional). A row of one of these architectures
#: must carry a figure for each, or mark the format unsupported, or be listed as an exception
#: with its reason in tests/test_catalog_consistency.py.
ARCH_DTYPES: Mapping[str, tuple[str, ...]] = {
    "Kepler": ("fp32",),
    "Maxwell": ("fp32",),
    "Pascal": ("fp32",),
    "Volta": ("fp32", "fp16"),
    "Turing": ("fp32", "fp16"),
    "Ampere": ("fp32", "tf32", "fp16", "bf16"),
    "Ada Lovelace": ("fp32", "tf32", "fp16", "bf16", "fp8"),
    "Hopper": ("fp32", "tf32", "fp16", "bf16", "fp8"),
    "Blackwell": ("fp32", "tf32", "fp16", "bf16", "fp8", "fp4"),
    "RDNA": ("fp32",),
    "CDNA 2": ("fp32", "fp16", "bf16"),
    "CDNA 3": ("fp32", "tf32", "fp16", "bf16", "fp8"),
    "CDNA 4": ("fp32", "fp16", "bf16", "fp8", "fp4"),
}


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model. Rates are dense TFLOPS (TOPS for int8) per GPU; ``None`` = not in sources."""

    key: str
    vendor: str | None = None
    architecture: str | None = None
    memory_gib: float | None = None
    memory_type: str | None = None
    memory_bw_gbs: float | None = None
    fp64_tflops: float | None = None
    fp64_matrix_tflops: float | None = None
    fp32_tflops: float | None = None
    tf32_tflops: float | None = None
    fp16_tflops: float | None = None
    bf16_tflops: float | None = None
    fp8_tflops: float | None = None
    fp4_tflops: float | None = None
    int8_tops: float | None = None
    tdp_w: float | None = None
    interconnect: str | None = None
    interconnect_gbs_bidir: float | None = None
    pcie_gen: int | None = None
    sm_count: int | None = None
    cuda_cc: tuple[int, int] | None = None
    unsupported: frozenset[str] = frozenset()
    source: str = ""
    as_of: str = ""
    notes: str = ""

    def peak_tflops(self, dtype: str) -> float | None:
        """Dense peak for ``dtype`` (fp64 prefers the FP64 tensor/matrix rate); None if unknown."""
        if dtype == "fp64":
            return self.fp64_matrix_tflops or self.fp64_tflops
        if dtype == "int8":
            return self.int8_tops
        value = getattr(self, f"{dtype}_tflops", None)
        return float(value) if value is not None else None

    def supports(self, dtype: str) -> bool | None:
        """False when a source says the format is unsupported; None when nobody says."""
        if dtype in self.unsupported:
            return False
        if self.cuda_cc is not None:
            # bf16 tensor cores since Ampere (cc 8.0); fp8 since Ada/Hopper (cc 8.9); fp4
            # since Blackwell (cc 10.0).
            need = {"bf16": (8, 0), "fp8": (8, 9), "tf32": (8, 0), "fp4": (10, 0)}.get(dtype)
            if need is not None:
                return self.cuda_cc >= need
            return True
        return None

    @property
    def has_nvlink(self) -> bool:
        text = (self.interconnect or "").lower()
        return "nvlink" in text and "c2c" not in text and "bridge" not in text

    @property
    def peer_link_gbs_bidir(self) -> float | None:
        """Per-GPU GPU-to-GPU fabric bandwidth (NVLink/NVSwitch, XGMI) in GB/s, both directions.

        None for PCIe-only parts and for pair bridges (A40), which do not connect a whole node.
        """
        text = (self.interconnect or "").lower()
        if self.has_nvlink or "xgmi" in text:
            return self.interconnect_gbs_bidir
        return None

    @property
    def is_nvidia(self) -> bool:
        return (self.vendor or "").upper() == "NVIDIA"


def arch_family(spec: GpuSpec) -> str | None:
    """The :data:`ARCH_DTYPES` key of ``spec``'s architecture (``"Hopper (Grace Hopper)"`` →
    ``"Hopper"``, ``"Blackwell Ultra"`` → ``"Blackwell"``); None when unknown or not listed."""
    arch = (spec.architecture or "").strip()
    for family in sorted(ARCH_DTYPES, key=len, reverse=True):
        if arch == family or arch.startswith(family + " "):
            return family
    return None


def missing_dtypes(spec: GpuSpec) -> tuple[str, ...]:
    """The dtypes ``spec``'s architecture runs (:data:`ARCH_DTYPES`) that its row neither gives
    a peak for nor marks unsupported; ``("architecture",)`` when the architecture is unknown."""
    family = arch_family(spec)
    if family is None:
        return ("architecture",)
    return tuple(
        d for d in ARCH_DTYPES[family] if spec.peak_tflops(d) is None and d not in spec.unsupported
    )


def _opt_float(text: str) -> float | None:
    text = text.strip()
    return float(text) if text else None


def _opt_int(text: str) -> int | None:
    text = text.strip()
    return int(float(text)) if text else None


def _cc(text: str) -> tuple[int, int] | None:
    text = text.strip()
    if not text:
        return None
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def _unsupported(text: str) -> frozenset[str]:
    items = {t.strip().lower() for t in text.split(";") if t.strip()}
    return frozenset(items)


def parse_specs_csv(text: str, *, name: str = "gpu_specs.csv") -> dict[str, GpuSpec]:
    """Parse the spec CSV; a malformed number raises InputError naming ``file:line``."""
    reader = csv.DictReader(io.StringIO(text))
    specs: dict[str, GpuSpec] = {}
    for row in reader:
        try:
            spec = GpuSpec(
                key=row["gpu"].strip(),
                vendor=row["vendor"].strip() or None,
                architecture=row["architecture"].strip() or None,
                memory_gib=_opt_float(row["memory_gib"]),
                memory_type=row["memory_type"].strip() or None,
                memory_bw_gbs=_opt_float(row["memory_bw_gbs"]),
                fp64_tflops=_opt_float(row["fp64_tflops"]),
                fp64_matrix_tflops=_opt_float(row["fp64_matrix_tflops"]),
                fp32_tflops=_opt_float(row["fp32_tflops"]),
                tf32_tflops=_opt_float(row["tf32_tflops"]),
                fp16_tflops=_opt_float(row["fp16_tflops"]),
                bf16_tflops=_opt_float(row["bf16_tflops"]),
                fp8_tflops=_opt_float(row["fp8_tflops"]),
                fp4_tflops=_opt_float(row.get("fp4_tflops") or ""),
                int8_tops=_opt_float(row["int8_tops"]),
                tdp_w=_opt_float(row["tdp_w"]),
                interconnect=row["interconnect"].strip() or None,
                interconnect_gbs_bidir=_opt_float(row["interconnect_gbs_bidir"]),
                pcie_gen=_opt_int(row["pcie_gen"]),
                sm_count=_opt_int(row["sm_count"]),
                cuda_cc=_cc(row["cuda_cc"]),
                unsupported=_unsupported(row["unsupported_formats"]),
                source=row["source"].strip(),
                as_of=row["as_of"].strip(),
                notes=row["notes"].strip(),
            )
        except (KeyError, ValueError) as exc:
            raise InputError(f"{name}:{reader.line_num}: {exc}") from None
        specs[spec.key] = spec
    return specs


@cache
def load_specs() -> Mapping[str, GpuSpec]:
    """The packaged spec table, keyed by :attr:`GpuSpec.key` (read once)."""
    text = resources.files("gpuprof.resources").joinpath("gpu_specs.csv").read_text("utf-8")
    return parse_specs_csv(text)
