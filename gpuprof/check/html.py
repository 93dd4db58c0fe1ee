"""The acceptance check's HTML page (``gpuprof check --html``, the Check tab's Export HTML): the
verdict, the machine identity (hostname, serial numbers, UUIDs, driver) and the scorecard.

The page itself is the report's (:mod:`gpuprof.report.check`, ``check_page.html.j2``), the same
one that opens the app's Export report (HTML and PDF); this is the check's entry to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuprof.check.model import CheckResult

__all__ = ["render_html"]


def render_html(result: CheckResult, data: Mapping[str, Any] | None = None) -> str:
    """The standalone page of ``result``; ``data``, when given, is its (redacted) JSON form.
    Everything from the system is cleaned, redacted and escaped."""
    from gpuprof.report.check import check_section, check_section_of, render_check_html

    return render_check_html(check_section(data) if data is not None else check_section_of(result))
