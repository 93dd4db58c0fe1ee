"""A bearer token file (``--token-file``), read the same way by every command that takes one: the
exporter, ``--connect`` and ``--prometheus`` / ``gpuprof fleet``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = ["MAX_TOKEN_BYTES", "read_token"]

#: A token file longer than this is not a token.
MAX_TOKEN_BYTES = 4096


def read_token(path: str | os.PathLike[str]) -> tuple[str, list[str]]:
    """The token in the file ``path`` (surrounding white space removed) and warnings (a file
    that every user may read). ``InputError`` naming the file when it is missing, a folder or
    not a regular file, empty, too long or not one line of printable ASCII (what an HTTP header
    can carry: no other text, no second line)."""
    p = Path(path)
    try:
        # Non-blocking: a FIFO given as the token file must not hang the command.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(
            tr("{p}: cannot read the token file: {e}", p=p, e=exc.strerror or exc)
        ) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(tr("{p}: the token file is a folder", p=p))
        if not stat.S_ISREG(st.st_mode):
            raise InputError(tr("{p}: the token file is not a regular file", p=p))
        data = os.read(fd, MAX_TOKEN_BYTES + 1)
    except OSError as exc:
        raise InputError(
            tr("{p}: cannot read the token file: {e}", p=p, e=exc.strerror or exc)
        ) from None
    finally:
        os.close(fd)
    if len(data) > MAX_TOKEN_BYTES:
        raise InputError(tr("{p}: the token file is longer than {n} bytes", p=p, n=MAX_TOKEN_BYTES))
    token = data.strip()
    if not token:
        raise InputError(tr("{p}: the token file is empty", p=p))
    if any(b < 0x21 or b > 0x7E for b in token):
        raise InputError(
            tr("{p}: the token must be one line of printable ASCII without spaces", p=p)
        )
    warnings = []
    if os.name == "posix" and st.st_mode & stat.S_IROTH:
        warnings.append(tr("{p}: the token file is readable by every user (chmod 600 {p})", p=p))
    return token.decode("ascii"), warnings
