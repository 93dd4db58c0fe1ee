"""GEMM on a ROCm build of torch (torch.version.hip): which dtypes an AMD GPU runs, judged by
its gfx architecture, not NVIDIA's compute capability; skipped with the reason otherwise.
No AMD GPU here: torch's device queries are replaced by an MI300X's / MI250X's answers."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gpuprof.bench import gemm

torch = pytest.importorskip("torch")


@pytest.fixture
def amd_gpu(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def use(arch: str) -> None:
        monkeypatch.setattr(torch.version, "hip", "6.3.42131", raising=False)
        props = SimpleNamespace(gcnArchName=f"{arch}:sramecc+:xnack-", name="AMD Instinct")
        monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _d: props)
        # ROCm's made-up capability (gfx942 -> 9.4) must not be what decides.
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda _d: (9, 4))

    return use


def test_mi300x_runs_fp8_as_fnuz_and_bf16(amd_gpu, monkeypatch) -> None:
    amd_gpu("gfx942")
    assert gemm.rocm_arch("cuda:0") == "gfx942"
    assert gemm._support("cuda:0", "fp8") is None
    assert gemm.ROCM_FP8["gfx942"] == "float8_e4m3fnuz"
    assert gemm._support("cuda:0", "bf16") is None and gemm._support("cuda:0", "fp16") is None


def test_mi250x_skips_fp8_with_the_reason(amd_gpu) -> None:
    amd_gpu("gfx90a")
    why = gemm._support("cuda:0", "fp8")
    assert why is not None and "gfx90a" in why and "MI300" in why


def test_tf32_on_amd_only_when_asked_for_on_mi300(amd_gpu, monkeypatch) -> None:
    amd_gpu("gfx942")
    monkeypatch.delenv("HIPBLASLT_ALLOW_TF32", raising=False)
    assert "HIPBLASLT_ALLOW_TF32" in (gemm._support("cuda:0", "tf32") or "")
    monkeypatch.setenv("HIPBLASLT_ALLOW_TF32", "1")
    assert gemm._support("cuda:0", "tf32") is None
    amd_gpu("gfx950")
    assert gemm._support("cuda:0", "tf32") is not None  # no XF32 on CDNA4


def test_cuda_and_cpu_are_not_rocm(monkeypatch) -> None:
    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    assert gemm.rocm_arch("cpu") is None
    assert gemm.rocm_arch("cuda:0") is None


def test_p2p_names_an_xgmi_pair() -> None:
    """Before: amdsmi's XGMI label read as a PCIe path ("PCIe (XGMI)")."""
    from gpuprof.bench.p2p import link_label

    assert link_label("XGMI") == "XGMI (Infinity Fabric)"
