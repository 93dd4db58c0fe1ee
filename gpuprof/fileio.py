"""Writing output files so that a failure never leaves half a file behind.

Every writer of a file the user asked for (reports, CSV, JSON runs, catalog overlays) goes
through :func:`atomic_open` / :func:`write_atomic`: the data goes to a temporary file in the same
folder, which replaces the target only once it is complete. A full disk, a file-size limit or a
missing folder raises :class:`~gpuprof.errors.OutputError` naming the file, and whatever stood at
the target before is left as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from gpuprof.errors import OutputError
from gpuprof.i18n import tr

__all__ = ["atomic_open", "write_atomic"]


def _error(path: Path, exc: OSError) -> OutputError:
    reason = exc.strerror or str(exc)
    return OutputError(tr("cannot write {p}: {e}", p=path, e=reason))


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = "utf-8", **kw: Any
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on a clean exit it becomes ``path``.

    ``mode`` is ``"w"`` (text, ``encoding``) or ``"wb"``. An exception inside the block (or an
    OSError while writing) removes the temporary file and leaves ``path`` untouched.
    """
    out = Path(path)
    if out.is_dir():
        raise OutputError(tr("cannot write {p}: {e}", p=out, e=os.strerror(21)))
    binary = "b" in mode
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent or ".")
    except OSError as e:
        raise _error(out, e) from None
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding, **kw) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes it 0600; give what open() would
        os.replace(tmp, out)
    except OSError as e:
        _remove(tmp)
        raise _error(out, e) from None
    except BaseException:
        _remove(tmp)
        raise


def write_atomic(
    path: str | os.PathLike[str], data: str | bytes, *, errors: str = "strict"
) -> Path:
    """Write ``data`` (text as UTF-8 with ``errors``, or bytes) to ``path`` atomically."""
    if isinstance(data, bytes):
        with atomic_open(path, "wb", encoding=None) as fh:
            fh.write(data)
    else:
        with atomic_open(path, "w", errors=errors) as fh:
            fh.write(data)
    return Path(path)


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Read once at import: os.umask() can only be read by setting it, which is not thread-safe.
_UMASK = _read_umask()
