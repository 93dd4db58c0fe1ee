"""Writing output files so that a failure never leaves half a file behind, and so that what the
path names is never replaced unless it is a regular file.

Every writer of a file the user asked for (reports, CSV, JSON runs, catalog overlays) goes
through :func:`atomic_open` / :func:`write_atomic`. What happens depends on what the path is:

- a regular file, or nothing yet: the data goes to a temporary file in the same folder, which
  replaces the target only once it is complete. A full disk, a file-size limit or a missing
  folder raises :class:`~gpuprof.errors.OutputError` naming the file, and whatever stood at the
  target before is left as it was; a replaced file keeps its permissions (as ``> FILE`` does);
- a symbolic link: the same, on the file it points to (in that file's folder); the link stays;
- a character device or a FIFO (``/dev/null``, ``/dev/tty``, a named pipe), or one of this
  process's own descriptors (``/dev/stdout``, ``/dev/fd/N``): written through, never replaced
  (a rename onto ``/dev/null``, as root, would destroy it for the whole system);
- a folder, a block device or a socket: refused, naming it.

Recordings (SQLite, which cannot be written through a pipe) take :func:`regular_target`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from gpuprof.errors import OutputError
from gpuprof.i18n import tr

__all__ = ["atomic_open", "regular_target", "write_atomic"]

#: Paths that name one of this process's descriptors: written through a copy of it, as a
#: shell's ``> /dev/stdout`` does (reopening a file there would truncate what ``>>`` appends to).
_OWN_DESCRIPTOR = re.compile(r"/(?:dev/fd|proc/self/fd)/(\d{1,9})")
_STANDARD = {"/dev/stdout": 1, "/dev/stderr": 2}


def _error(path: Path, exc: OSError) -> OutputError:
    reason = exc.strerror or str(exc)
    return OutputError(tr("cannot write {p}: {e}", p=path, e=reason))


def _not_a_file(path: Path) -> OutputError:
    return OutputError(
        tr("cannot write {p}: not a regular file, a character device or a FIFO", p=path)
    )


def _is_folder(path: Path) -> OutputError:
    return OutputError(tr("cannot write {p}: {e}", p=path, e=os.strerror(errno.EISDIR)))


def _written_through(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = "utf-8", **kw: Any
) -> Iterator[IO[Any]]:
    """Open ``path`` for writing as the module docstring says; on a clean exit the data is there.

    ``mode`` is ``"w"`` (text, ``encoding``) or ``"wb"``. For a regular file an exception inside
    the block (or an OSError while writing) removes the temporary file and leaves ``path``
    untouched; what went to a device or a FIFO cannot be taken back.
    """
    out = Path(path)
    encoding = None if "b" in mode else encoding
    fd = _descriptor_to_write_through(out)
    if fd is not None:
        with _through(out, fd, mode, encoding, kw) as fh:
            yield fh
        return
    target = _replaced(out)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or "."
        )
    except OSError as e:
        raise _error(out, e) from None
    try:
        with os.fdopen(fd, mode, encoding=encoding, **kw) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(target))  # mkstemp makes it 0600
        os.replace(tmp, target)
    except OSError as e:
        _remove(tmp)
        raise _error(out, e) from None
    except BaseException:
        _remove(tmp)
        raise


def write_atomic(
    path: str | os.PathLike[str], data: str | bytes, *, errors: str = "strict"
) -> Path:
    """Write ``data`` (text as UTF-8 with ``errors``, or bytes) to ``path`` (:func:`atomic_open`)."""
    if isinstance(data, bytes):
        with atomic_open(path, "wb", encoding=None) as fh:
            fh.write(data)
    else:
        with atomic_open(path, "w", errors=errors) as fh:
            fh.write(data)
    return Path(path)


def regular_target(path: str | os.PathLike[str]) -> Path:
    """The file to create or replace for ``path``: ``path`` itself, or the file a symbolic link
    points to (so that the link stays a link). :class:`OutputError` naming ``path`` when it is
    anything but a regular file or nothing (a folder, a device, a FIFO): for writers that cannot
    write through, such as an SQLite recording."""
    out = Path(path)
    mode = _mode(out)
    if mode is not None and stat.S_ISDIR(mode):
        raise _is_folder(out)
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputError(tr("cannot write {p}: not a regular file; choose a file name", p=out))
    return _replaced(out)


def _mode(out: Path) -> int | None:
    """``st_mode`` of what ``out`` points to (links followed); None when there is nothing."""
    try:
        return os.stat(out).st_mode
    except FileNotFoundError:
        return None  # nothing there, or a link to nothing: a new file
    except OSError as e:  # a loop of links, a folder that cannot be searched
        raise _error(out, e) from None


def _replaced(out: Path) -> Path:
    """The regular file (existing or to be) that the rename goes onto: the link's target."""
    return Path(os.path.realpath(out)) if out.is_symlink() else out


def _own_descriptor(out: Path) -> int | None:
    name = os.path.normpath(os.path.abspath(out))
    if name in _STANDARD:
        return _STANDARD[name]
    match = _OWN_DESCRIPTOR.fullmatch(name)
    return int(match.group(1)) if match else None


def _descriptor_to_write_through(out: Path) -> int | None:
    """An open descriptor when ``out`` is written through (see the module docstring), None when
    it is a regular file or nothing (the atomic replace). Refuses what is neither."""
    own = _own_descriptor(out)
    if own is not None:
        for stream in (sys.stdout, sys.stderr):  # what was printed before comes first
            with contextlib.suppress(Exception):
                stream.flush()
        try:
            return os.dup(own)
        except OSError as e:
            raise _error(out, e) from None
    mode = _mode(out)
    if mode is None or stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        raise _is_folder(out)
    if not _written_through(mode):
        raise _not_a_file(out)  # a block device, a socket: nothing a report should go into
    try:
        # No O_CREAT: if the node went away meanwhile, a regular file must not appear in its
        # place without the atomic rename. A FIFO blocks here until a reader opens it.
        fd = os.open(out, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        raise _error(out, e) from None
    if not _written_through(os.fstat(fd).st_mode):  # replaced between the stat and the open
        os.close(fd)
        raise _not_a_file(out)
    return fd


@contextlib.contextmanager
def _through(
    out: Path, fd: int, mode: str, encoding: str | None, kw: dict[str, Any]
) -> Iterator[IO[Any]]:
    try:
        fh = os.fdopen(fd, mode, encoding=encoding, **kw)
    except BaseException:
        os.close(fd)
        raise
    try:
        with fh:  # closing flushes: a full device says so here
            yield fh
            fh.flush()
    except OSError as e:
        raise _error(out, e) from None


def _mode_for(target: Path) -> int:
    """The permissions of the file that replaces ``target``: its own when it exists (as
    ``> FILE`` keeps them: a report kept private with ``chmod 600`` stays private), else what
    ``open()`` gives a new file."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode) & 0o777  # never a set-id bit
    except OSError:
        return 0o666 & ~_UMASK


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Read once at import: os.umask() can only be read by setting it, which is not thread-safe.
_UMASK = _read_umask()
