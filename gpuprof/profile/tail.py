"""Following the marker file a job appends to (:mod:`gpuprof.profile.markers`).

:class:`MarkerTail` reads what was added since its last read, only whole lines (a line the job is
still writing waits for the next read), at most :data:`READ_LIMIT` bytes a read so a job that
floods the file cannot stall the profiler. A line longer than the protocol allows is dropped up
to its end and counted as skipped, like any other line that is not a marker.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from gpuprof.profile.markers import MAX_LINE, Marker, decode_line, parse_lines

__all__ = ["READ_LIMIT", "MarkerTail"]

#: The most one :meth:`MarkerTail.read` takes from the file (the rest waits for the next).
READ_LIMIT = 4 * 2**20
T = TypeVar("T")
#: :meth:`MarkerTail.drain` reads at most this many times :data:`READ_LIMIT`.
DRAIN_READS = 16


class MarkerTail:
    """New markers of the file at ``path`` at each :meth:`read`; :attr:`skipped` counts lines
    that were not markers."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.offset = 0
        self.skipped = 0
        self._partial = b""
        self._dropping = False  # inside an over-long line: drop up to its newline

    def read(self, *, final: bool = False) -> list[Marker]:
        """The markers in the whole lines added since the last read (``final``: the last
        partial line too, the job having ended)."""
        markers, skipped = parse_lines(self._lines(final))
        self.skipped += skipped
        return markers

    def read_rows(self, *, final: bool = False) -> list[tuple[float, str]]:
        """As :meth:`read`, ready to store (:func:`~gpuprof.profile.storage.append_marker_rows`):
        ``(time_s, line)`` per marker, the line as the job wrote it (decoded once, checked, not
        encoded again: the same marker when read back)."""
        rows: list[tuple[float, str]] = []
        for line in self._lines(final):
            if not line.strip():
                continue
            try:
                marker = decode_line(line)
                rows.append((marker.time_s, line.decode("utf-8").strip()))
            except (ValueError, UnicodeDecodeError, RecursionError):
                self.skipped += 1
        return rows

    def _lines(self, final: bool) -> list[bytes]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read(READ_LIMIT)
        except OSError:
            return []  # not there (yet), or removed by the job: nothing to read
        self.offset += len(data)
        buf = self._partial + data
        lines = buf.split(b"\n")
        self._partial = lines.pop()
        if self._dropping and lines:
            lines.pop(0)  # the rest of the over-long line
            self._dropping = False
        if len(self._partial) > MAX_LINE:
            if not self._dropping:
                self.skipped += 1
            self._partial = b""
            self._dropping = True
        if final and self._partial and not self._dropping:
            lines.append(self._partial)
            self._partial = b""
        return lines

    def drain(self) -> list[Marker]:
        """Everything left in the file (the job has ended), in :data:`READ_LIMIT` pieces."""
        return self._drain(self.read)

    def drain_rows(self) -> list[tuple[float, str]]:
        """As :meth:`drain`, as rows (:meth:`read_rows`)."""
        return self._drain(self.read_rows)

    def _drain(self, read: Callable[..., list[T]]) -> list[T]:
        out: list[T] = []
        for _ in range(DRAIN_READS):  # a process left behind may write for ever
            before = self.offset
            out.extend(read())
            if self.offset == before:
                break
        out.extend(read(final=True))
        return out
