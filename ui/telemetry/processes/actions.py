"""Terminate / Kill in the Processes tab: when they are offered, and what the confirmation says.

The work is :mod:`gpuprof.telemetry.procctl`'s: the row's pid is described again (and must still
have the row's start time), the user confirms what will be signalled, and the signal goes only
if the pid is still that process. Never offered for SIMULATED or REPLAY rows: their pids are not
processes of this machine now.
"""

from __future__ import annotations

import time

from gpuprof.redact import redact_cmdline
from gpuprof.telemetry.model import ProcessSample, SourceKind
from gpuprof.telemetry.procctl import ProcessTarget, Sig
from gpuprof.units import NA, fmt_bytes, fmt_duration

from ...shell.i18n import translate as _t

__all__ = ["confirmation_text", "unavailable_reason"]


def unavailable_reason(kind: SourceKind | None, row: ProcessSample | None) -> str | None:
    """Why Terminate / Kill are disabled now (their tooltip), or ``None`` when they are offered."""
    if kind is SourceKind.SIMULATED:
        return _t(
            "Not offered for SIMULATED data: its processes are made up, not processes of this "
            "machine"
        )
    if kind is SourceKind.REPLAY:
        return _t(
            "Not offered in REPLAY: the recorded processes are not running now, and their pids "
            "may belong to other processes"
        )
    if kind not in (SourceKind.NVML, SourceKind.AMDSMI):  # a mixed box's kind is NVML
        return _t("Not offered: no live GPU processes are shown")
    if row is None:
        return _t("Select a process first")
    return None


def confirmation_text(target: ProcessTarget, row: ProcessSample, sig: Sig) -> tuple[str, str]:
    """(question, details) of the confirmation dialog: what will be signalled."""
    question = (
        _t("Send %1 (ask the process to exit) to pid %2?")
        if sig is Sig.TERM
        else _t("Send %1 (end the process at once, without cleanup) to pid %2?")
    )
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(target.start_time_s))
    running = fmt_duration(max(0.0, time.time() - target.start_time_s))
    lines = [
        (_t("Process"), f"{target.pid}  {target.name or NA}"),
        (_t("User"), target.user or NA),
        (
            _t("GPU"),
            _t("%1, GPU memory %2")
            .replace("%1", str(row.gpu_index))
            .replace("%2", fmt_bytes(row.gpu_mem_bytes)),
        ),
        (_t("Started"), _t("%1 (running %2)").replace("%1", started).replace("%2", running)),
        (_t("Command line"), redact_cmdline(target.cmdline, keep=True, max_len=600) or NA),
    ]
    details = "\n".join(f"{k}: {v}" for k, v in lines)
    return question.replace("%1", sig.label).replace("%2", str(target.pid)), details
