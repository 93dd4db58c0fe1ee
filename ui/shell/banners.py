"""The state banner's text: a lost GPU, no driver, no permission, a lost connection to a remote
exporter (and its coming back), each with a hint.

:func:`banner_message` turns the source's status (and the latest snapshot) into the banner's
``(key, text, severity)``; the window shows it with :class:`~gpuprof.ui.shell.widgets.Banner`.
"""

from __future__ import annotations

from gpuprof.i18n import N_
from gpuprof.telemetry.model import Snapshot, SourceKind, SourceState, SourceStatus

from .i18n import translate as _t

__all__ = ["banner_message", "status_message"]


_DEFAULT_HINTS = {
    SourceState.LIBRARY_NOT_FOUND: N_(
        "Install the NVIDIA driver (it ships libnvidia-ml); "
        "on a machine without an NVIDIA GPU, try --demo."
    ),
    SourceState.DRIVER_NOT_LOADED: N_(
        "Load the driver (sudo modprobe nvidia) or reboot after installing it; check `nvidia-smi`."
    ),
    SourceState.VERSION_MISMATCH: N_(
        "The kernel driver and the user-space library differ: reboot after a driver update."
    ),
    SourceState.NO_PERMISSION: N_("Run as a user in the video group, or ask the administrator."),
    SourceState.NO_GPUS: N_(
        "No NVIDIA GPU is visible. Check CUDA_VISIBLE_DEVICES and `nvidia-smi`."
    ),
    SourceState.GPU_LOST: N_(
        "Check `dmesg` for Xid errors; a GPU that fell off the bus needs a "
        "reset (nvidia-smi -r) or a reboot. The other GPUs keep updating."
    ),
    SourceState.ERROR: N_("See the message; sampling goes on for what still answers."),
}


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?:" else text + "."


def _with_hint(text: str, hint: str) -> str:
    return text + "  " + _t("Hint:") + " " + hint


def status_message(status: SourceStatus, lost: tuple[int, ...]) -> tuple[str, str, str] | None:
    """(key, text, severity) for the banner, or ``None`` when all is well."""
    state = status.state
    if lost or state is SourceState.GPU_LOST:
        gpus = ", ".join(str(i) for i in lost) or "?"
        text = _t("GPU %1 lost: it stopped answering.").replace("%1", gpus)
        if status.message:
            text += " " + _sentence(status.message)
        hint = status.hint or _t(_DEFAULT_HINTS[SourceState.GPU_LOST])
        return f"lost:{gpus}", _with_hint(text, hint), "error"
    if state in (SourceState.LIBRARY_NOT_FOUND, SourceState.DRIVER_NOT_LOADED, SourceState.NO_GPUS):
        text = _t("No NVIDIA GPU: showing host telemetry only.")
        if status.message:
            text += " " + _sentence(status.message)
        hint = status.hint or _t(_DEFAULT_HINTS[state])
        return f"nogpu:{state.value}", _with_hint(text, hint), "warning"
    if state is not SourceState.OK:
        text = _sentence(status.message or state.value)
        hint = status.hint or _t(_DEFAULT_HINTS.get(state, ""))
        return f"state:{state.value}", _with_hint(text, hint), "error"
    if not status.process_info_permitted:
        text = _t(
            "No permission to read other users' GPU processes: the process table is incomplete."
        )
        hint = status.hint or _t("Run gpuprof as root or as the processes' owner to see them all.")
        return "noproc", _with_hint(text, hint), "warning"
    if status.message and status.hint:  # all is well, with news: a connection came back
        return "notice", _with_hint(_sentence(status.message), status.hint), "info"
    return None


def banner_message(
    status: SourceStatus, latest: Snapshot | None, source_kind: SourceKind | None
) -> tuple[str, str, str] | None:
    """:func:`status_message` for the GPUs the status or the latest snapshot says are lost,
    plus "no GPU" when a live source's latest snapshot has none."""
    lost = set(status.lost_gpus)
    if latest is not None:
        lost.update(g.index for g in latest.gpus if g.lost)
    message = status_message(status, tuple(sorted(lost)))
    if (
        message is None
        and latest is not None
        and not latest.gpus
        and source_kind is not None
        and source_kind is not SourceKind.REPLAY
    ):
        message = (
            "nogpu",
            _with_hint(
                _t("No NVIDIA GPU: showing host telemetry only."),
                _t(_DEFAULT_HINTS[SourceState.NO_GPUS]),
            ),
            "warning",
        )
    return message
