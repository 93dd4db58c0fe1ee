"""The only module of gpuprof that imports ``amdsmi`` (AMD's Python binding, on PyPI).

Importing the real module needs ``libamd_smi.so``; without it amdsmi 7.0.2 *prints* two lines
to stdout ("...libamd_smi.so: cannot open shared object file", "Unable to find libamd_smi.so
library try installing amd-smi-lib ...") and raises ``KeyError: 'libamd_smi.so'`` (not
ImportError) from its ctypes wrapper (``reference/amd/api.md`` §1). :func:`load_amdsmi` keeps
that print off our stdout (a ``--json`` on stdout stays JSON) and turns every way the import
fails into :class:`AmdSmiUnavailable` with one line saying why.

Every call then goes through :class:`AmdQuery`, which turns an ``AmdSmiException`` into
``None`` plus a reason the UI shows ("not supported on this GPU"), remembers fields that will
never work on a device (NOT_SUPPORTED, NO_PERM) and records each failure once in a
:class:`~gpuprof.telemetry.diagnostics.Diagnostics` registry.

Tests swap the library: put a fake module in ``sys.modules["amdsmi"]`` or assign it to
:data:`amdsmi` (``tests/fakes/fake_amdsmi.py``); the production code runs unchanged.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuprof.telemetry.diagnostics import Diagnostics

__all__ = [
    "AmdQuery",
    "AmdSmiUnavailable",
    "DeviceState",
    "amdsmi",
    "amdsmi_installed",
    "load_amdsmi",
]

#: The amdsmi module in use; ``None`` until first needed. Tests assign a fake here.
amdsmi: Any = None

# amdsmi status codes (amdsmi_wrapper.py AMDSMI_STATUS_*) and what they mean to a user.
STATUS_NOT_SUPPORTED = 2
STATUS_NOT_YET_IMPLEMENTED = 3
STATUS_NO_PERM = 10
STATUS_NOT_FOUND = 31
STATUS_NOT_INIT = 32
STATUS_DRIVER_NOT_LOADED = 34
STATUS_NO_DATA = 40

_REASONS = {
    STATUS_NOT_SUPPORTED: "not supported on this GPU (amdsmi: NOT_SUPPORTED)",
    STATUS_NOT_YET_IMPLEMENTED: "not implemented by this amdsmi (NOT_YET_IMPLEMENTED)",
    STATUS_NO_PERM: "not permitted: run as root or in the video/render group (amdsmi: NO_PERM)",
    STATUS_NOT_FOUND: "not found on this GPU (amdsmi: NOT_FOUND)",
    STATUS_NO_DATA: "no data yet (amdsmi: NO_DATA)",
}
#: Codes that will not change while the source is open: the field is not asked again.
PERMANENT = frozenset(
    {STATUS_NOT_SUPPORTED, STATUS_NOT_YET_IMPLEMENTED, STATUS_NO_PERM, STATUS_NOT_FOUND}
)


class AmdSmiUnavailable(Exception):
    """amdsmi cannot be used here: not installed, or ``libamd_smi.so`` / the driver missing."""


def load_amdsmi() -> Any:
    """The amdsmi module, imported on first use with its stdout captured.

    Raises :class:`AmdSmiUnavailable` for ImportError, OSError and the KeyError amdsmi raises
    when ``libamd_smi.so`` is missing; the message names the cause in one line.
    """
    global amdsmi
    if amdsmi is not None:
        return amdsmi
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            import amdsmi as module
    except ImportError as exc:
        raise AmdSmiUnavailable(f"the amdsmi Python package is not installed ({exc})") from exc
    except (KeyError, OSError, AttributeError) as exc:
        said = " ".join(line.strip() for line in printed.getvalue().splitlines() if line.strip())
        detail = said or f"{type(exc).__name__}: {exc}"
        raise AmdSmiUnavailable(
            f"amdsmi is installed but libamd_smi.so could not be loaded ({detail[:300]})"
        ) from exc
    amdsmi = module
    return amdsmi


def amdsmi_installed() -> bool:
    """Whether an amdsmi package is there to import (already loaded, or findable on the path),
    without importing it: a box without it keeps the NVML-only path untouched."""
    if amdsmi is not None or sys.modules.get("amdsmi") is not None:
        return True
    try:
        return importlib.util.find_spec("amdsmi") is not None
    except (ImportError, ValueError):
        return False


def error_code(exc: BaseException) -> int | None:
    """The amdsmi status code of ``exc`` (``err_code``), or None."""
    code = getattr(exc, "err_code", None)
    return abs(code) if isinstance(code, int) else None


def error_reason(exc: BaseException) -> str:
    """What an amdsmi failure means, for a tooltip or a log line."""
    code = error_code(exc)
    if code in _REASONS:
        return _REASONS[code]
    if code is not None:
        return f"amdsmi error {code}"
    return f"amdsmi raised {type(exc).__name__}"


@dataclass
class DeviceState:
    """One AMD GPU (or compute partition) and what the readers keep between polls."""

    index: int
    handle: Any
    skip: dict[str, str] = field(default_factory=dict)  # field -> why it never works here
    info: Any = None  # DeviceInfo once read
    xgmi_prev: tuple[float, float, float] | None = None  # (clock s, read KB, write KB)
    proc_prev: dict[int, tuple[float, float]] = field(default_factory=dict)  # pid -> (s, gfx ns)
    ecc: Any = None  # EccCounts from the last slow read
    process_denied: bool = False


class AmdQuery:
    """The one query helper: every amdsmi call of gpuprof goes through it."""

    __slots__ = ("_fns", "closing", "diagnostics", "smi")

    def __init__(self, smi: Any, diagnostics: Diagnostics) -> None:
        self.smi = smi
        self.diagnostics = diagnostics
        self.closing = False
        self._fns: dict[str, Callable[..., Any]] = {}

    def const(self, enum_name: str, member: str) -> Any:
        """A member of one of amdsmi's enums (``AmdSmiClkType.GFX``)."""
        return getattr(getattr(self.smi, enum_name), member)

    def fn(self, name: str) -> Callable[..., Any]:
        fn = self._fns.get(name)
        if fn is None:
            fn = getattr(self.smi, name, None)
            if fn is None:
                raise AttributeError(f"this amdsmi has no {name}")
            self._fns[name] = fn
        return fn

    def call(self, name: str, *args: Any) -> Any:
        """Call ``name``; exceptions propagate (init, discovery)."""
        return self.fn(name)(*args)

    def get(
        self, dev: DeviceState, fld: str, fn_name: str, *args: Any, reasons: dict[str, str]
    ) -> Any:
        """``fn_name(handle, *args)``, or None with the reason put in ``reasons[fld]``."""
        why = dev.skip.get(fld)
        if why is not None:
            reasons[fld] = why
            return None
        try:
            return self.fn(fn_name)(dev.handle, *args)
        except Exception as exc:  # one field never breaks a poll
            why = self.failed(dev, fld, fn_name, exc)
            reasons[fld] = why
            return None

    def failed(self, dev: DeviceState | None, fld: str, fn_name: str, exc: BaseException) -> str:
        why = f"{fn_name}: {error_reason(exc)}" if not isinstance(exc, AttributeError) else str(exc)
        code = error_code(exc)
        kind = type(exc).__name__ if code is None else f"amdsmi:{code}"
        self.diagnostics.record(None if dev is None else dev.index, fld, kind, str(exc))
        if dev is not None and (code in PERMANENT or isinstance(exc, AttributeError)):
            dev.skip[fld] = why
        if dev is not None and code == STATUS_NO_PERM and fld == "processes":
            dev.process_denied = True
        return why
