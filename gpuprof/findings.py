"""The health finding record shared by the checks (:mod:`gpuprof.health.diagnose` and
:mod:`gpuprof.health.activity`) and their readers (Health tab, reports)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Finding", "Severity"]


class Severity(str, enum.Enum):
    """How urgent a finding is; sorts critical first."""

    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"critical": 0, "warning": 1, "info": 2}[self.value]

    @property
    def label(self) -> str:
        """The name as shown in text output: the value, translated (JSON keeps the value)."""
        from gpuprof.i18n import tr

        return {"critical": tr("critical"), "warning": tr("warning"), "info": tr("info")}[
            self.value
        ]


@dataclass(frozen=True, slots=True)
class Finding:
    """One health finding. ``code`` is stable (tests, JSON reports); the texts are translated."""

    code: str
    severity: Severity
    title: str
    detail: str
    hint: str
    gpu_index: int | None = None
