"""``--selector '{cluster="a", job=~"dcgm.*"}'``: PromQL label matchers, read and re-used.

The selector narrows every query of the fleet. It is parsed here (not merely pasted into the
query text), so a typo is one clear error before anything is asked of Prometheus, and so its
matchers can be split: those on per-GPU labels (``gpu``, ``UUID``, ``modelName``, ...) apply to
the GPU series only, the others (``cluster``, ``job``, ``instance``, ``node``) to the scrape
targets' ``up`` series as well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr

__all__ = ["GPU_LABELS", "Matcher", "Selector", "parse_selector"]

#: Labels an exporter puts on each GPU's series (dcgm-exporter's and ours, Kubernetes and HPC
#: job mapping, MIG), as opposed to the scrape target's labels.
GPU_LABELS = frozenset(
    {
        "gpu",
        "UUID",
        "device",
        "modelName",
        "Hostname",
        "pci_bus_id",
        "DCGM_FI_DRIVER_VERSION",
        "GPU_I_ID",
        "GPU_I_PROFILE",
        "pod",
        "namespace",
        "container",
        "hpc_job",
        "err_code",
        "err_msg",
        "reason",
    }
)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OP = re.compile(r"=~|!~|!=|=")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`[^`]*`')
_MAX_LEN = 4000


@dataclass(frozen=True, slots=True)
class Matcher:
    """One label matcher, its value kept as the quoted literal the user wrote."""

    name: str
    op: str
    literal: str

    def __str__(self) -> str:
        return f"{self.name}{self.op}{self.literal}"


@dataclass(frozen=True, slots=True)
class Selector:
    """The matchers of ``--selector`` (none: the whole fleet)."""

    matchers: tuple[Matcher, ...] = ()
    text: str = ""

    def for_gpus(self, metric: str = "", *extra: str) -> str:
        """``metric{every matcher, extra...}``."""
        parts = [*(str(m) for m in self.matchers), *extra]
        return f"{metric}{{{', '.join(parts)}}}" if parts else metric or "{}"

    def for_targets(self, metric: str, *extra: str) -> str:
        """``metric{matchers on target labels, extra...}``: per-GPU labels left out."""
        parts = [*(str(m) for m in self.matchers if m.name not in GPU_LABELS), *extra]
        return f"{metric}{{{', '.join(parts)}}}" if parts else metric


def _error(text: str, pos: int, what: str) -> InputError:
    shown = text if len(text) <= 80 else text[:77] + "…"
    return InputError(tr("--selector {s!r}: {w} at character {n}", s=shown, w=what, n=pos + 1))


def parse_selector(text: str | None) -> Selector:
    """``{a="x", b=~"y.*"}`` (the braces may be left out) → :class:`Selector`."""
    if text is None or not text.strip():
        return Selector()
    if len(text) > _MAX_LEN:
        raise InputError(tr("--selector is longer than {n} characters", n=_MAX_LEN))
    s = text.strip()
    pos = 0
    if s.startswith("{"):
        if not s.endswith("}"):
            raise _error(s, len(s) - 1, tr("no closing }"))
        body, offset = s[1:-1], 1
    else:
        if _NAME.fullmatch(s.split("{", 1)[0].strip() or "-") and "{" in s:
            raise _error(s, 0, tr("give label matchers only, without a metric name"))
        body, offset = s, 0
    matchers: list[Matcher] = []
    n = len(body)

    def skip_space() -> int:
        nonlocal pos
        while pos < n and body[pos].isspace():
            pos += 1
        return pos

    def token(pattern: re.Pattern[str], expected: str) -> re.Match[str]:
        """The ``pattern`` after any white space, or the error saying what was ``expected``."""
        nonlocal pos
        found = pattern.match(body, skip_space())
        if found is None:
            raise _error(s, pos + offset, tr(expected))
        pos = found.end()
        return found

    while skip_space() < n:
        name = token(_NAME, N_("expected a label name"))
        op = token(_OP, N_("expected =, !=, =~ or !~"))
        literal = token(_STRING, N_("expected a quoted value"))
        if name.group() == "__name__":
            raise _error(s, name.start() + offset, tr("the metric name cannot be selected"))
        matchers.append(Matcher(name.group(), op.group(), literal.group()))
        if skip_space() < n:
            if body[pos] != ",":
                raise _error(s, pos + offset, tr("expected , between matchers"))
            pos += 1
    return Selector(tuple(matchers), s)
