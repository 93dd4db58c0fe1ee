"""Map GPU names (NVML product names, cloud catalog labels, SkyPilot names) to spec-table keys.

Rules, in order (first match wins):

* a vGPU guest profile (``GRID ...``), a bare MIG profile label (``MIG 1g.5gb``) and the driver's
  ``Graphics Device`` placeholder map to ``None``: they do not say which physical GPU it is;
* a full MIG device name (``NVIDIA A100-SXM4-40GB MIG 3g.20gb``) maps to its parent GPU's row
  (rates of a MIG slice are a fraction of it; the caller can tell with :func:`is_mig_name`);
* otherwise the model is recognised by its number; memory and form factor come from the text or,
  when the text does not say (``NVIDIA A100``, ``H100``), from ``memory_gib``, then a documented
  default: A100 → 40 GB, V100 → 16 GB, both SXM; H100 → SXM (94 GiB → NVL) — the form factor
  clouds rent in 8-GPU boxes;
* products with no row in the spec table (A800 SXM, A16, RTX 5090, RTX PRO 6000 Max-Q, ...)
  map to ``None`` rather than to a near relative with other clocks or power; the China-market
  H800 (SXM), H20, L20 and A800 80GB PCIe have rows of their own.

:func:`file_stem` turns a name from outside (a provider, a file's stem) into a file name.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

from gpuprof.catalog.specs import GpuSpec, load_specs
from gpuprof.i18n import N_

__all__ = [
    "FILE_STEM_MAX",
    "PROVIDER_NAMES",
    "file_stem",
    "gpu_for_nvml_name",
    "is_mig_name",
    "normalize_gpu_model",
    "provider_key",
]

_NOISE = re.compile(r"\b(NVIDIA|TESLA|GEFORCE|AMD|AWS|GENERATION|INSTINCT)\b")
_MEM = re.compile(r"(\d+)\s*GB\b")


def _canon(text: str) -> str:
    t = text.upper().replace("_", " ").replace("-", " ").replace("(", " ").replace(")", " ")
    t = _NOISE.sub(" ", t)
    # SkyPilot's compact names: RTX3090, RTXA6000, RTX4000-Ada, RTXPRO6000.
    t = re.sub(r"\bRTX(?=(?:A|PRO)?\d)", "RTX ", t)
    t = re.sub(r"\bPRO(?=\d)", "PRO ", t)
    return " ".join(t.split())


#: Providers whose name the interface translates (zh_CN: 阿里云, 腾讯云, ...): the catalog's
#: spelling, marked for translation.
PROVIDER_NAMES = (
    N_("Alibaba Cloud"),
    N_("Tencent Cloud"),
    N_("Huawei Cloud"),
    N_("Baidu AI Cloud"),
    N_("Volcano Engine"),
)

# What users type for a provider (--provider alibaba, aliyun, 阿里云) → the catalog's name.
_PROVIDER_ALIASES = {
    "alibaba": "alibaba cloud",
    "aliyun": "alibaba cloud",
    "阿里云": "alibaba cloud",
    "tencent": "tencent cloud",
    "qcloud": "tencent cloud",
    "腾讯云": "tencent cloud",
    "huawei": "huawei cloud",
    "huaweicloud": "huawei cloud",
    "华为云": "huawei cloud",
    "baidu": "baidu ai cloud",
    "百度智能云": "baidu ai cloud",
    "volcano": "volcano engine",
    "volcengine": "volcano engine",
    "火山引擎": "volcano engine",
}


def provider_key(text: str) -> str:
    """A provider as typed (``alibaba``, ``Aliyun``, ``阿里云``, ``AWS``) → the lower-case name
    the catalog's rows use (``alibaba cloud``, ``aws``)."""
    key = " ".join(text.strip().lower().split())
    return _PROVIDER_ALIASES.get(key, key)


def is_mig_name(name: str) -> bool:
    """True for MIG device or profile names (``... MIG 3g.20gb``, ``MIG 1g.5gb``)."""
    return re.search(r"(^|\s)MIG\s+\d+[gc]\.", name.strip(), re.IGNORECASE) is not None


def _mem_in_text(t: str) -> int | None:
    match = _MEM.search(t)
    return int(match.group(1)) if match else None


def _sold_size(
    t: str, memory_gib: float | None, sizes: tuple[int, int], split: float
) -> int | None:
    """The memory (GB) of a GPU sold in two ``sizes``: the one its name says, else the larger
    when the reported ``memory_gib`` is at least ``split``, else the smaller; None for a size
    it was not sold in."""
    mem = _mem_in_text(t)
    if mem is None:
        mem = sizes[1] if memory_gib is not None and memory_gib >= split else sizes[0]
    return mem if mem in sizes else None


def _a100(t: str, memory_gib: float | None) -> str | None:
    mem = _sold_size(t, memory_gib, (40, 80), 60)
    if mem is None:
        return None  # e.g. the A100-SXM-64GB custom SKU: no row
    form = "PCIe" if "PCIE" in t else "SXM"
    return f"A100 {mem}GB {form}"


def _v100(t: str, memory_gib: float | None) -> str | None:
    mem = _sold_size(t, memory_gib, (16, 32), 24)
    if mem is None:
        return None
    form = "PCIe" if "PCIE" in t else "SXM2"
    return f"V100 {form} {mem}GB"


def _h100(t: str, memory_gib: float | None) -> str | None:
    if "NVL" in t or (memory_gib is not None and 90 <= memory_gib < 100):
        return "H100 NVL"
    if "PCIE" in t:
        return "H100 PCIe"
    return "H100 SXM"


def _rule_key(t: str, memory_gib: float | None) -> str | None:
    words = set(t.split())
    if "GH200" in words:
        return "GH200"
    for key in (
        "GB300",
        "GB200",
        "B300",
        "B200",
        "H200",
        "MI355X",
        "MI325X",
        "MI300X",
        "MI250X",
        "MI210",
    ):
        if key in words:
            return key
    for key in ("H800", "H20", "L20"):  # China-market parts: one row each
        if key in words:
            return None if key == "H800" and "PCIE" in words else key
    if "A800" in words:  # only the 80 GB PCIe card has a row
        return "A800 80GB PCIe" if "PCIE" in words and _mem_in_text(t) in (80, None) else None
    if "H100" in words:
        return _h100(t, memory_gib)
    if "A100" in words:
        return _a100(t, memory_gib)
    if "V100" in words:
        return _v100(t, memory_gib)
    if "PG500" in words:
        return "V100 PCIe 32GB"  # OEM V100 PCIe 32GB board (device 0x1DF0)
    if "LAPTOP" in words or "TI" in words or "SUPER" in words:
        return None
    if "RTX" in words and "PRO" in words and "6000" in words:
        return None if ({"MAX", "WORKSTATION"} & words) else "RTX PRO 6000 Blackwell"
    if "ADA" in words:
        if "SFF" in words:
            return None
        if "6000" in words or "RTX6000" in words:
            return "RTX 6000 Ada"
        if "4000" in words:
            return "RTX 4000 Ada"
        return None
    if "A6000" in words:
        return "RTX A6000"
    if "RTX" in words and "6000" in words:  # neither Ada nor PRO: Turing's Quadro RTX 6000
        return "Quadro RTX 6000"
    if "RTX" in words and "4090" in words:
        return "RTX 4090"
    if "RTX" in words and "3090" in words:
        return "RTX 3090"
    simple = {
        "A10G": "A10G",
        "A10": "A10",
        "A30": "A30",
        "A40": "A40",
        "L40S": "L40S",
        "L40": "L40",
        "L4": "L4",
        "T4": "T4",
        "P100": "P100",
        "P4": "P4",
        "K80": "K80",
        "M60": "M60",
        "V520": "Radeon Pro V520",
        "INFERENTIA2": "Inferentia2",
        "INFERENTIA": "Inferentia",
        "TRAINIUM2": "Trainium2",
        "TRAINIUM": "Trainium",
    }
    for word, key in simple.items():
        if word in words:
            return key
    return None


@functools.lru_cache(maxsize=4096)  # a catalog names a few dozen GPUs in 100,000 rows
def normalize_gpu_model(text: str, memory_gib: float | None = None) -> str | None:
    """The spec-table key for a GPU name from NVML, a cloud catalog or SkyPilot; None if unknown.

    ``memory_gib`` (per GPU) disambiguates names that omit it: ``("NVIDIA A100", 80)`` →
    ``"A100 80GB SXM"``. A key of the spec table maps to itself.
    """
    raw = text.strip()
    if not raw:
        return None
    specs = load_specs()
    for key in specs:
        if raw.lower() == key.lower():
            return key
    if raw.upper().startswith("GRID ") or raw.lower() == "graphics device":
        return None
    if is_mig_name(raw):
        parent = re.split(r"\s+MIG\s+", raw, maxsplit=1, flags=re.IGNORECASE)[0]
        if parent.upper().startswith("MIG"):
            return None
        raw = parent
    found = _rule_key(_canon(raw), memory_gib)
    return found if found in specs else None


def gpu_for_nvml_name(name: str, memory_gib: float | None = None) -> GpuSpec | None:
    """The spec row for an NVML device name (``nvmlDeviceGetName``, ``nvidia-smi -L``)."""
    key = normalize_gpu_model(name, memory_gib)
    return load_specs()[key] if key is not None else None


#: The longest file stem :func:`file_stem` returns (well under the 255 bytes of most file systems).
FILE_STEM_MAX = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# Names Windows keeps for devices, whatever the extension (CON.csv is the console).
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}


def file_stem(name: str, *, fallback: str = "catalog") -> str:
    """``name`` as a safe file stem: ASCII letters, digits, ``.``, ``_`` and ``-``;
    anything else (``/``, ``..``, spaces, control characters) a ``-``; at most
    :data:`FILE_STEM_MAX` characters, with a short hash of the whole name when cut, so that two
    long names stay two files. ``"Lambda Labs/EU"`` → ``"Lambda-Labs-EU"``."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    stem = _UNSAFE.sub("-", text)
    stem = re.sub(r"\.{2,}", ".", re.sub(r"[-.]*-[-.]*", "-", stem)).strip("-.")
    if not stem:  # nothing ASCII in it (云, ...): two such names must still be two files
        stem = f"{fallback}-{digest}" if name.strip() else fallback
    if stem.split(".")[0].lower() in _RESERVED:
        stem = f"{fallback}-{stem}"
    if len(stem) > FILE_STEM_MAX:
        stem = f"{stem[: FILE_STEM_MAX - 9].rstrip('-.')}-{digest}"
    return stem
