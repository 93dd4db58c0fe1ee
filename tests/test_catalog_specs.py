"""The spec table's reader (gpuprof.catalog.specs): the fp4 column, files without it, bad cells,
and the per-architecture dtype rule the consistency test relies on."""

from __future__ import annotations

import pytest

from gpuprof.catalog.specs import (
    ARCH_DTYPES,
    GpuSpec,
    arch_family,
    load_specs,
    missing_dtypes,
    parse_specs_csv,
)
from gpuprof.errors import InputError

_HEADER = (
    "gpu,vendor,architecture,memory_gib,memory_type,memory_bw_gbs,fp64_tflops,"
    "fp64_matrix_tflops,fp32_tflops,tf32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,{fp4}"
    "int8_tops,tdp_w,interconnect,interconnect_gbs_bidir,pcie_gen,sm_count,cuda_cc,"
    "unsupported_formats,source,as_of,notes\n"
)


def _csv(row: str, *, fp4: bool) -> str:
    return _HEADER.format(fp4="fp4_tflops," if fp4 else "") + row + "\n"


def test_fp4_is_read_and_a_file_without_the_column_still_parses() -> None:
    new = _csv("X,NVIDIA,Blackwell,1,,,,,1,2,3,3,4,9,,,,,,,10.0,,src,2026,n", fp4=True)
    assert parse_specs_csv(new)["X"].peak_tflops("fp4") == 9
    old = _csv("Y,NVIDIA,Hopper,1,,,,,1,2,3,3,4,,,,,,,9.0,,src,2026,n", fp4=False)
    spec = parse_specs_csv(old)["Y"]
    assert spec.fp4_tflops is None and spec.peak_tflops("fp8") == 4
    assert spec.supports("fp4") is False  # cc 9.0


def test_a_bad_fp4_cell_names_the_file_and_line() -> None:
    bad = _csv("X,NVIDIA,Blackwell,1,,,,,1,2,3,3,4,lots,,,,,,,,,src,2026,n", fp4=True)
    with pytest.raises(InputError, match=r"specs\.csv:2"):
        parse_specs_csv(bad, name="specs.csv")


def test_architecture_families() -> None:
    assert arch_family(GpuSpec(key="a", architecture="Blackwell Ultra (Grace Blackwell)")) == (
        "Blackwell"
    )
    assert arch_family(GpuSpec(key="a", architecture="CDNA 3")) == "CDNA 3"
    assert arch_family(GpuSpec(key="a", architecture="Blackwellish")) is None
    assert arch_family(GpuSpec(key="a")) is None
    # A format the row marks unsupported is not missing.
    turing = GpuSpec(key="t", architecture="Turing", fp32_tflops=8.1, unsupported=frozenset())
    assert missing_dtypes(turing) == ("fp16",)
    assert ARCH_DTYPES["Ampere"] == ("fp32", "tf32", "fp16", "bf16")


def test_the_shipped_table_parses_with_fp4_on_blackwell_only() -> None:
    with_fp4 = {k for k, s in load_specs().items() if s.fp4_tflops is not None}
    assert with_fp4 == {"B200", "B300", "GB200", "GB300"}
