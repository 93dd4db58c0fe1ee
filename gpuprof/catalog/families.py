"""Instance families as the Chinese clouds name them (issue 24): ``ecs.gn7i-c8g1.2xlarge`` is
阿里云's GPU计算型 gn7i, ``GN10Xp.20XLARGE320`` 腾讯云's GPU计算型 GN10Xp, ``p2s.2xlarge.8``
华为云's 计算加速型 P2s. The kind is marked for translation (zh_CN shows the providers' own
words); the family code stays as the provider writes it.

Sources of the kinds: Alibaba's instance-family documentation ("GPU计算型实例规格族 gn7i",
"GPU计算型弹性裸金属服务器实例规格族 ebmgn7e", "vGPU加速型实例规格族 vgn6i"); Tencent's
'NVIDIA 系列实例' (计算型 GN10Xp / GT4 / GN7, 高性能计算集群 HCC); Huawei's ECS flavor tables
(计算加速型 P 系列, 推理加速型 Pi 系列, 图形加速型 G 系列); the catalog rows' own notes for
Volcano Engine (GPU计算型 gni2) and Baidu AI Cloud (GPU计算型 hgn5IB)."""

from __future__ import annotations

import re

from gpuprof.i18n import N_, tr

__all__ = ["family_label", "family_of", "instance_label"]

GPU_COMPUTE = N_("GPU compute")
GPU_BARE_METAL = N_("GPU compute bare metal")
VGPU = N_("vGPU accelerated")
HPC_CLUSTER = N_("HPC cluster")
COMPUTE_ACCELERATED = N_("computing-accelerated")
INFERENCE_ACCELERATED = N_("inference-accelerated")
GRAPHICS_ACCELERATED = N_("graphics-accelerated")

_ALIBABA = re.compile(r"^(?:ecs\.)?((?:ebm|v|s)?gn[0-9][0-9a-z]*)(?:[-.]|$)", re.IGNORECASE)
_TENCENT = re.compile(r"^((?:HCC)?[A-Z]+[0-9]+[A-Za-z]*)(?:\.|$)")
_HUAWEI = re.compile(r"^((?:pi|p|g)[0-9]+[a-z]*)(?:\.|$)", re.IGNORECASE)
_VOLCANO = re.compile(r"^(?:ecs\.)?((?:g|i)n[a-z]*[0-9]+[a-z]*)(?:\.|$)", re.IGNORECASE)
_BAIDU = re.compile(r"^(?:bcc\.)?([a-z]*gn[0-9]+[A-Za-z]*)(?:\.|$)")


def family_of(provider: str, instance: str) -> tuple[str, str] | None:
    """(kind, family code) of a Chinese cloud's instance type; None for another provider or a
    name that follows none of its patterns."""
    p = provider.strip().lower()
    name = instance.strip()
    if p == "alibaba cloud" and (m := _ALIBABA.match(name)):
        code = m.group(1).lower()
        kind = GPU_BARE_METAL if code.startswith("ebm") else VGPU if code[0] == "v" else GPU_COMPUTE
        return kind, code
    if p == "tencent cloud" and (m := _TENCENT.match(name)):
        code = m.group(1)
        return (HPC_CLUSTER if code.startswith("HCC") else GPU_COMPUTE), code
    if p == "huawei cloud" and (m := _HUAWEI.match(name)):
        code = m.group(1)
        low = code.lower()
        kind = (
            INFERENCE_ACCELERATED
            if low.startswith("pi")
            else COMPUTE_ACCELERATED
            if low.startswith("p")
            else GRAPHICS_ACCELERATED
        )
        return kind, code[0].upper() + code[1:].lower()  # Huawei writes P2s, Pi2, G6
    if p == "volcano engine" and (m := _VOLCANO.match(name)):
        return GPU_COMPUTE, m.group(1).lower()
    if p == "baidu ai cloud" and (m := _BAIDU.match(name)):
        return GPU_COMPUTE, m.group(1)
    return None


def family_label(provider: str, instance: str) -> str:
    """The family as its cloud's users know it, in the interface language ("GPU compute gn7i";
    zh_CN "GPU计算型 gn7i"); "" where none is known."""
    found = family_of(provider, instance)
    if found is None:
        return ""
    kind, code = found
    return tr("{kind} {code}", kind=tr(kind), code=code)


def instance_label(provider: str, instance: str) -> str:
    """The instance with its family where one is known: "ecs.gn7i-c8g1.2xlarge (GPU compute
    gn7i)"; the bare name otherwise (and where the name is the family itself: "GN10Xp")."""
    family = family_label(provider, instance)
    found = family_of(provider, instance)
    bare = instance.strip().lower().removeprefix("ecs.")
    if not family or (found is not None and found[1].lower() == bare):
        return instance
    return tr("{instance} ({family})", instance=instance, family=family)
