"""Every real NVML name string of reference/nvidia-smi/nvml_names.csv maps to the right spec row.

The expected row for each name is written out here (not derived by the code under test). ``None``
means the spec table has no row for that product (A800 SXM, A16, RTX 5090, ...), or the name does
not say which GPU it is (vGPU profiles, bare MIG profile labels, "Graphics Device").
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from gpuprof.catalog.names import gpu_for_nvml_name, is_mig_name, normalize_gpu_model
from gpuprof.catalog.specs import load_specs

# A copy of shared/reference/nvidia-smi/nvml_names.csv (73 real NVML names, each with its
# source), kept in the project so that a clone tests the same names with or without shared/.
NAMES_CSV = Path(__file__).resolve().parent / "data" / "nvml_names.csv"

EXPECTED: dict[str, str | None] = {
    "NVIDIA H100 80GB HBM3": "H100 SXM",
    "NVIDIA H100 PCIe": "H100 PCIe",
    "NVIDIA H100 NVL": "H100 NVL",
    "NVIDIA H800": "H800",  # China-market variant (issue 24): its own row
    "NVIDIA H200": "H200",
    "NVIDIA GH200 480GB": "GH200",
    "NVIDIA B200": "B200",
    "NVIDIA A100-SXM4-80GB": "A100 80GB SXM",
    "NVIDIA A100-SXM4-40GB": "A100 40GB SXM",
    "A100-SXM4-40GB": "A100 40GB SXM",
    "NVIDIA A100-PCIE-40GB": "A100 40GB PCIe",
    "NVIDIA A100 80GB PCIe": "A100 80GB PCIe",
    "NVIDIA A800 80GB PCIe": "A800 80GB PCIe",
    "NVIDIA A100-SXM-64GB": None,  # custom 64GB SKU: no row
    "NVIDIA A100-SXM4-40GB MIG 3g.20gb": "A100 40GB SXM",  # MIG device → parent GPU
    "NVIDIA A100-SXM4-40GB MIG 1g.5gb": "A100 40GB SXM",
    "MIG 1g.5gb": None,  # profile label only: parent unknown
    "MIG 3g.20gb": None,
    "MIG 1g.20gb": None,
    "MIG 1g.10gb": None,
    "MIG 3g.40gb": None,
    "MIG 2g.20gb": None,
    "MIG 1c.3g.71gb": None,
    "MIG 1g.18gb": None,
    "Tesla V100-SXM2-16GB": "V100 SXM2 16GB",
    "Tesla V100-SXM2-32GB": "V100 SXM2 32GB",
    "Tesla V100-PCIE-16GB": "V100 PCIe 16GB",
    "Tesla PG500-216": "V100 PCIe 32GB",  # OEM V100 PCIe 32GB board (device 0x1DF0)
    "GRID V100DX-16Q": None,  # vGPU profile
    "Tesla T4": "T4",
    "Tesla P100-PCIE-16GB": "P100",
    "Tesla K80": "K80",
    "GRID P4-1Q": None,
    "NVIDIA L4": "L4",
    "NVIDIA L40S": "L40S",
    "NVIDIA A10G": "A10G",
    "NVIDIA A10": "A10",
    "NVIDIA A40": "A40",
    "NVIDIA A16": None,
    "NVIDIA RTX A6000": "RTX A6000",
    "NVIDIA RTX A5000": None,
    "NVIDIA RTX 6000 Ada Generation": "RTX 6000 Ada",
    "NVIDIA RTX 4000 Ada Generation": "RTX 4000 Ada",
    "NVIDIA RTX 4000 SFF Ada Generation": None,  # the 70 W SFF part differs from RTX 4000 Ada
    "NVIDIA RTX 2000 Ada Generation": None,
    "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition": None,  # not the server edition
    "NVIDIA GeForce RTX 5090": None,
    "NVIDIA GeForce RTX 4090": "RTX 4090",
    "NVIDIA GeForce RTX 4080 SUPER": None,
    "NVIDIA GeForce RTX 4070 Laptop GPU": None,
    "NVIDIA GeForce RTX 4060 Ti": None,
    "NVIDIA GeForce RTX 3090": "RTX 3090",
    "NVIDIA GeForce RTX 3080": None,
    "NVIDIA GeForce RTX 3070": None,
    "NVIDIA GeForce RTX 3060": None,
    "NVIDIA GeForce RTX 2080 SUPER": None,
    "NVIDIA GeForce RTX 2080": None,
    "NVIDIA GeForce RTX 2070": None,
    "NVIDIA GeForce GTX 1650": None,
    "NVIDIA GeForce GTX 1050 Ti": None,
    "NVIDIA GeForce GTX 680": None,
    "NVIDIA GeForce GT 1030": None,
    "NVIDIA TITAN V": None,
    "TITAN RTX": None,
    "GeForce GTX 1080 Ti": None,
    "GeForce GTX 1080": None,
    "GeForce GTX 1070 Ti": None,
    "GeForce GTX 780": None,
    "Quadro P2000": None,
    "Quadro P400": None,
    "Quadro RTX 4000": None,
    "Quadro M2200": None,
    "Graphics Device": None,
}


# China-market names of the clouds' documents (issue 24), beside the captured NVML names.
CHINA_MARKET = {
    "NVIDIA H800 PCIe": None,  # the row is the SXM part
    "NVIDIA H20": "H20",
    "H20 96GB": "H20",
    "NVIDIA L20": "L20",
    "NVIDIA A800-SXM4-80GB": None,  # no SXM row: not the PCIe card's figures
    "A800 80GB PCIe": "A800 80GB PCIe",
}


@pytest.mark.parametrize(("name", "key"), sorted(CHINA_MARKET.items()))
def test_china_market_names(name: str, key: str | None) -> None:
    assert normalize_gpu_model(name) == key


def _csv_names() -> list[str]:
    with NAMES_CSV.open(encoding="utf-8") as fh:
        return [row["name_string"] for row in csv.DictReader(fh)]


@pytest.mark.skipif(not NAMES_CSV.exists(), reason="reference data not checked out beside the repo")
def test_expected_table_covers_every_real_name() -> None:
    names = _csv_names()
    assert len(names) == 73
    assert set(names) == set(EXPECTED)


@pytest.mark.parametrize(("name", "key"), sorted(EXPECTED.items()))
def test_nvml_name_maps_to_row(name: str, key: str | None) -> None:
    spec = gpu_for_nvml_name(name)
    assert (spec.key if spec else None) == key


def test_mig_names_are_recognised() -> None:
    assert is_mig_name("NVIDIA A100-SXM4-40GB MIG 3g.20gb")
    assert is_mig_name("MIG 1c.3g.71gb")
    assert not is_mig_name("NVIDIA A100-SXM4-40GB")


@pytest.mark.parametrize(
    ("text", "mem", "key"),
    [
        ("NVIDIA A100", 40.0, "A100 40GB SXM"),
        ("NVIDIA A100", 80.0, "A100 80GB SXM"),
        ("A100-80GB", None, "A100 80GB SXM"),
        ("A100 (40GB)", None, "A100 40GB SXM"),
        ("A100-80GB (PCIe)", None, "A100 80GB PCIe"),
        ("A100-80GB SXM4", None, "A100 80GB SXM"),
        ("H100", None, "H100 SXM"),
        ("H100 (H100-MEGA)", 80.0, "H100 SXM"),
        ("H100 (PCIe)", None, "H100 PCIe"),
        ("H100 NVL", 94.0, "H100 NVL"),
        ("H100 SXM5", None, "H100 SXM"),
        ("H200 SXM", None, "H200"),
        ("NVIDIA V100", 32.0, "V100 SXM2 32GB"),
        ("V100-32GB", None, "V100 SXM2 32GB"),
        ("V100 (16GB)", None, "V100 SXM2 16GB"),
        ("NVIDIA B200 Blackwell", None, "B200"),
        ("NVIDIA GB200 Grace Blackwell", None, "GB200"),
        ("RTX6000 (Quadro RTX 6000)", None, "Quadro RTX 6000"),
        ("A6000", None, "RTX A6000"),  # SkyPilot's name
        # SkyPilot's compact RunPod-style names
        ("RTX3090", None, "RTX 3090"),
        ("RTX4090", None, "RTX 4090"),
        ("RTX4000-Ada", None, "RTX 4000 Ada"),
        ("RTX6000-Ada", None, "RTX 6000 Ada"),
        ("RTXA6000", None, "RTX A6000"),
        ("RTXPRO6000", None, "RTX PRO 6000 Blackwell"),
        ("RTX6000", None, "Quadro RTX 6000"),
        ("RTX3090Ti", None, None),
        ("RTXA5000", None, None),
        ("RTX2000-Ada", None, None),
        ("H100-NVL", None, "H100 NVL"),
        ("AWS Inferentia2", None, "Inferentia2"),
        ("AMD Radeon Pro V520", None, "Radeon Pro V520"),
        ("NVIDIA RTX PRO 6000 Blackwell", None, "RTX PRO 6000 Blackwell"),
        ("Gaudi2", None, None),
        ("", None, None),
    ],
)
def test_normalize_cloud_names(text: str, mem: float | None, key: str | None) -> None:
    assert normalize_gpu_model(text, mem) == key


def test_every_key_maps_to_itself() -> None:
    for key in load_specs():
        assert normalize_gpu_model(key) == key
