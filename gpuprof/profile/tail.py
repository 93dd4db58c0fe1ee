"""Following the marker file a job appends to (:mod:`gpuprof.profile.markers`).

:class:`MarkerTail` reads what was added since its last read, only whole lines (a line the job is
still writing waits for the next read), at most :data:`READ_LIMIT` bytes a read so a job that
floods the file cannot stall the profiler. A line longer than the protocol allows is dropped up
to its end and counted as skipped, like any other line that is not a marker.
"""

from __future__ import annotations

import os
from pathlib import Path

from gpuprof.profile.markers import MAX_LINE, Marker, parse_lines

__all__ = ["READ_LIMIT", "MarkerTail"]

#: The most one :meth:`MarkerTail.read` takes from the file (the rest waits for the next).
READ_LIMIT = 4 * 2**20
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
        markers, skipped = parse_lines(lines)
        self.skipped += skipped
        return markers

    def drain(self) -> list[Marker]:
        """Everything left in the file (the job has ended), in :data:`READ_LIMIT` pieces."""
        out: list[Marker] = []
        for _ in range(DRAIN_READS):  # a process left behind may write for ever
            before = self.offset
            out.extend(self.read())
            if self.offset == before:
                break
        out.extend(self.read(final=True))
        return out
