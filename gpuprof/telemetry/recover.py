"""``gpuprof recover``: a clean, closed copy of a recording that was not closed (or is damaged).

The source is read the way every reader reads it (:meth:`SessionStore.open
<gpuprof.telemetry.store.SessionStore.open>`): a ``kill -9``'d recording with or without its
``-wal``, in a read-only folder or not; records that cannot be read and impossible times are
left out, and metadata of the wrong type falls back to its default. What can be read is written
to a new file, snapshot by snapshot, which is closed (one file, no ``-wal``, marked closed) and
only then takes its name. The source is never written to.

What a higher layer wrote into the recording (a job's markers and profile, :mod:`gpuprof.profile`)
is carried over by the ``carry`` step its caller passes (``gpuprof recover`` passes
:func:`gpuprof.profile.storage.copy_job`): telemetry does not import the layers above it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpuprof.errors import InputError, OutputError
from gpuprof.fileio import regular_target
from gpuprof.telemetry.store import SessionStore
from gpuprof.telemetry.store.files import refuse_if_recording

__all__ = ["Recovered", "default_out", "recover"]


@dataclass(frozen=True)
class Recovered:
    """What :func:`recover` wrote: ``samples`` snapshots over ``span_s`` seconds to ``out``;
    ``skipped`` records of the source could not be read (or had an impossible time)."""

    out: Path
    samples: int
    skipped: int
    span_s: float
    was_closed: bool


def default_out(path: Path) -> Path:
    """``run.gpuprof`` -> ``run.recovered.gpuprof`` beside it."""
    suffix = path.suffix or ".gpuprof"
    return path.with_name(f"{path.stem if path.suffix else path.name}.recovered{suffix}")


def _remove(p: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            Path(str(p) + suffix).unlink()


def recover(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    force: bool = False,
    carry: Callable[[SessionStore, SessionStore], None] | None = None,
) -> Recovered:
    """Write what ``path`` holds that can be read to ``out`` (default :func:`default_out`) as a
    closed recording. :class:`InputError` for an unusable source, an existing ``out`` without
    ``force`` or ``out`` being the source; :class:`OutputError` when the copy cannot be written
    (nothing is left at ``out`` then) or is not a regular file. An ``out`` a live recorder
    writes is never replaced, ``force`` or not
    (:func:`~gpuprof.telemetry.store.files.refuse_if_recording`). ``carry(src, copy)``, when
    given, copies what else the recording holds, before the copy is closed."""
    src_path = Path(path)
    # Only a regular file is replaced (a device or a FIFO named by --out is refused, --force or
    # not); a symbolic link stays a link: the copy takes the place of the file it points to.
    dst = regular_target(default_out(src_path) if out is None else out)
    with SessionStore.open(src_path, warn=False) as src:
        with contextlib.suppress(OSError):
            if dst.exists() and dst.samefile(src_path):
                raise InputError(f"{dst}: is the recording itself; write the copy elsewhere")
        if dst.exists() and not force:
            raise InputError(f"{dst}: file exists; pass --force to overwrite it")
        # --force replaces a finished recording, never one a recorder still writes (it would
        # go on to report its samples saved while the copy took their place).
        refuse_if_recording(dst)
        if not dst.parent.is_dir():
            raise InputError(f"folder {dst.parent} does not exist")
        tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
        _remove(tmp)
        samples, first_s, last_s = 0, 0.0, 0.0
        try:
            try:
                copy = SessionStore.create(
                    tmp,
                    system_info=src.system_info(),
                    devices=src.devices(),
                    topology=src.topology(),
                    source_kind=src.source_kind,
                    meta=src.meta,
                    label=src.label,
                    created_s=src.created_s,
                )
            except InputError as e:  # about the temporary file: name the one asked for
                raise OutputError(f"cannot write {dst} ({e.__cause__ or e})") from None
            with copy:
                for snap in src.snapshots():  # in time order
                    copy.append(snap)
                    first_s = snap.time_s if samples == 0 else first_s
                    last_s = snap.time_s
                    samples += 1
                if carry is not None:
                    carry(src, copy)
            if copy.state != "closed" or Path(f"{tmp}-wal").exists():
                raise OutputError(f"cannot write {dst} (the copy could not be closed)")
            refuse_if_recording(dst)  # a recorder that started while the copy was written
            os.replace(tmp, dst)
        except sqlite3.Error as e:
            _remove(tmp)
            raise OutputError(f"cannot write {dst} ({e})") from None
        except OSError as e:
            _remove(tmp)
            raise OutputError(f"cannot write {dst} ({e.strerror or e})") from None
        except BaseException:
            _remove(tmp)
            raise
        skipped = src.skipped_rows + src.bad_time_rows
        return Recovered(dst, samples, skipped, last_s - first_s, not src.not_closed)
