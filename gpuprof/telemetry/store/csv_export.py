"""The per-GPU CSV of a recording (``gpuprof export``, ``gpuprof monitor --csv``): one row per GPU
per snapshot, units in the column names."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, TYPE_CHECKING

from gpuprof import csvsafe
from gpuprof.fileio import atomic_open
from gpuprof.telemetry.model import GPU_NUMERIC_FIELDS, Snapshot

if TYPE_CHECKING:
    from gpuprof.telemetry.store import SessionStore

__all__ = ["CSV_HEADER", "CsvWritten", "csv_rows", "export_csv", "write_csv"]


#: Columns of the per-GPU CSV (``gpuprof export`` and ``gpuprof monitor --csv``); units in names.
CSV_HEADER: tuple[str, ...] = (
    "time_s",
    "time_utc",
    "source",
    "gpu_index",
    "uuid",
    "lost",
    *GPU_NUMERIC_FIELDS,
    "mem_used_pct",
    "throttle_reasons",
)


@dataclass(frozen=True)
class CsvWritten:
    """What a CSV holds: ``samples`` snapshots written as ``rows`` rows (one per GPU). A record
    the store could not read is skipped, so ``samples`` may be fewer than the store counts."""

    samples: int
    rows: int


def csv_rows(snap: Snapshot) -> Iterator[list[object]]:
    """One CSV row per GPU of ``snap`` (columns :data:`CSV_HEADER`); unsupported values empty."""
    stamp = datetime.fromtimestamp(snap.time_s, tz=timezone.utc).isoformat(timespec="milliseconds")
    for g in snap.gpus:
        values = [getattr(g, name) for name in GPU_NUMERIC_FIELDS]
        yield [
            repr(snap.time_s),
            stamp,
            snap.source.value,
            g.index,
            g.uuid or "",
            int(g.lost),
            *("" if v is None else v for v in values),
            "" if g.mem_used_pct is None else round(g.mem_used_pct, 3),
            "|".join(g.throttle_reasons),
        ]


def write_csv(snaps: Iterable[Snapshot], fh: IO[str]) -> CsvWritten:
    """Write :data:`CSV_HEADER` and the rows of ``snaps`` to an open text file."""
    writer = csvsafe.writer(fh)  # text cells (uuid, throttle reasons) never become formulas
    writer.writerow(CSV_HEADER)
    samples = rows = 0
    for snap in snaps:
        for row in csv_rows(snap):
            writer.writerow(row)
            rows += 1
        samples += 1
    return CsvWritten(samples, rows)


def export_csv(store: SessionStore, out_path: str | os.PathLike[str]) -> CsvWritten:
    """Write one row per GPU per snapshot of ``store`` to ``out_path``; says what it wrote.

    Columns: ``time_s`` (Unix), ``time_utc`` (ISO 8601), ``source``, ``gpu_index``, ``uuid``,
    ``lost``, every numeric GPU field (units in the names: ``power_w``, ``clock_sm_mhz``, ...),
    ``mem_used_pct`` and ``throttle_reasons`` (``|``-separated). Unsupported values are empty.
    """
    with atomic_open(out_path, "w", newline="") as fh:
        return write_csv(store.snapshots(), fh)
