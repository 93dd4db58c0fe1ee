"""Hostile strings and a telemetry source that carries them (tests/faults/test_terminal_text.py,
tests/faults/test_redaction.py).

Device names, bus ids, hostnames, labels, process names and command lines come from drivers,
recordings and other machines. :class:`HostileSource` is the SIMULATED box with those texts
replaced by the caller's: the real CLI code paths, no GPU needed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from gpuprof.telemetry.model import (
    ProcessSample,
    Snapshot,
    SourceKind,
    SourceState,
    SourceStatus,
)
from gpuprof.telemetry.simulated import SimulatedSource
from gpuprof.telemetry.source import KeptFacts
from gpuprof.termtext import plain

#: name -> a string that breaks a terminal, rich or a spreadsheet when shown as it is.
HOSTILE_TEXT: dict[str, str] = {
    "markup-close": "x[/]y",
    "markup-bold": "[bold]loud[/bold] [red]open",
    "markup-link": "[link=https://evil.example/]click[/link]",
    "emoji-code": "bus 00000000:AB:00.0 :ab: :smiley:",
    "esc-clear": "a\x1b[2Jb\x1b[31mred\x1b[0m",
    "osc-8-link": "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "c1-csi": "a\x9b2Jb\x85c\x9d0;title\x9c",
    "bidi": "txt.\u202eexe.\u2066x\u2069\u202a\u202b\u202c\u202d\u2067\u2068",
    "nul": "a\x00b",
    "cr": "safe\rEVIL",
    "backspace-bell": "ab\x08\x08XY\x07",
    "trailing-backslash": "back\\",
    "long": "L" * 20_000,
}

#: What no terminal output may contain: C0 (but newline) and C1 controls, bidi overrides.
UNSAFE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: Emoji that rich would substitute for ``:ab:`` or ``:smiley:``.
EMOJI = re.compile(r"[\U0001F000-\U0001FFFF]")


def visible(text: str) -> str:
    """How ``text`` must appear on a terminal: literally, its control characters as U+FFFD."""
    return plain(text)


def assert_terminal_safe(output: str) -> None:
    """No control or bidi character, no emoji, no traceback, no markup error."""
    bad = UNSAFE.search(output)
    assert bad is None, (repr(bad.group()), output[max(0, bad.start() - 80) : bad.end() + 80])
    assert EMOJI.search(output) is None, output[:2000]
    assert "Traceback" not in output and "MarkupError" not in output, output[-2000:]


def groups(size: int = 8) -> list[list[str]]:
    """The hostile strings in groups of ``size`` (one per device of the 8-GPU box)."""
    names = list(HOSTILE_TEXT)
    return [names[i : i + size] for i in range(0, len(names), size)]


class HostileSource(KeptFacts):
    """The SIMULATED 8×H100 box whose device names, hostname, label, status, UUIDs and
    processes carry ``texts`` (device ``i`` is named ``texts[i % len(texts)]``)."""

    kind = SourceKind.NVML

    def __init__(
        self,
        texts: Sequence[str],
        *,
        cmdline: str | None = None,
        hostname: str | None = None,
        label: str | None = None,
        status: bool = True,
    ) -> None:
        self._inner = SimulatedSource("h100x8", start_s=0.0)
        self.texts = list(texts)
        self.label = label if label is not None else " | ".join(self.texts)
        self._hostname = hostname if hostname is not None else " | ".join(self.texts)
        self._cmdline = cmdline
        self._system = dataclasses.replace(
            self._inner.system_info(), hostname=self._hostname, os=self._text(0)
        )
        self._devices = tuple(
            dataclasses.replace(d, name=self._text(d.index), uuid=self._text(d.index))
            for d in self._inner.devices()
        )
        self._topology = self._inner.topology()
        self._status = (
            SourceStatus(SourceState.ERROR, message=self.texts[0], hint=self.texts[-1])
            if status
            else SourceStatus()
        )

    def _text(self, i: int) -> str:
        return self.texts[i % len(self.texts)]

    def poll(self) -> Snapshot:
        snap = self._inner.poll()
        procs = tuple(
            ProcessSample(
                pid=1000 + k,
                gpu_index=k % 8,
                name=text,
                user=text,
                cmdline=self._cmdline if self._cmdline is not None else text,
                gpu_mem_bytes=2**30,
            )
            for k, text in enumerate(self.texts)
        )
        gpus = tuple(dataclasses.replace(g, uuid=self._text(g.index)) for g in snap.gpus)
        return dataclasses.replace(snap, gpus=gpus, processes=procs, status=self._status)
