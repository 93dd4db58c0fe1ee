"""The live status of ``gpuprof profile`` on a terminal, kept off the job's own output (issue 13).

The job shares the terminal with gpuprof (it holds it: :mod:`gpuprof.profile.foreground`), so a
status redrawn with ``\\r`` at the start of the current line overwrote whatever the job had left
there: a prompt without a newline (``Continue? [y/n]``) vanished under it, and the job's lines
were mixed with it. :class:`StatusBar` draws it as apt draws its progress bar:

- **bar** (the status goes to a terminal whose ``TERM`` is set and not ``dumb`` and whose size
  is known, at least 3 rows): the bottom row is kept out of the scroll region (DECSTBM
  ``ESC[1;{rows-1}r``), so the job's output scrolls above it, and the status is drawn there
  with the cursor saved and restored around it (``ESC7 ESC[{rows};1H ESC[2K text ESC8``): the
  job's cursor, and a prompt it left, stay where they were. Setting the region first scrolls
  the screen up one line (the cursor, possibly on the last row, keeps its text). A new size
  (SIGWINCH when gpuprof holds the terminal; checked at every poll, since the terminal signals
  only its foreground group, the job) sets the region again. Before gpuprof stops with a job
  stopped at the terminal (Ctrl-Z), or with SIGTSTP itself, and on every way out (the job's
  end, killed, Ctrl-C, an exception: :meth:`StatusBar.close` in a ``with``; a SIGTERM or
  SIGHUP that ends gpuprof once the job is over), the bottom row is cleared and the region
  reset (``ESC[r``), so the shell and the summary get the whole terminal; on SIGCONT it is set again when gpuprof or the job holds the terminal (not after a
  shell's ``bg``). Limits, as apt's: a full-screen program in the job still sees the whole
  height, and its own ``ESC7``/``ESC8`` pair shares the one saved cursor with the status.
- **line** (a dumb terminal or an unknown size): the old ``\\r`` line, but drawn only while
  gpuprof's own process group holds the terminal (``--attach``, or standard input not the
  terminal, when the job cannot read it and so asks nothing there); while the job holds it,
  nothing is drawn, and only the summary is printed at the end.

Everything drawn is :func:`gpuprof.termtext.plain` text (no escape of its own reaches the
terminal) cut to the terminal's width in cells.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from gpuprof.i18n import tr

if TYPE_CHECKING:
    from gpuprof.profile.runner import LiveStatus

__all__ = ["StatusBar", "status_text"]

_CSI = "\x1b["
_SAVE, _RESTORE = "\x1b7", "\x1b8"
#: Fewer rows than this: no room for a reserved line (and 0 x 0 is a pty nobody sized).
_MIN_ROWS, _MIN_COLS = 3, 20
_FALLBACK_COLS = 120
#: Signals whose default action stops or ends gpuprof: handled (the region reset first) only
#: while nobody else handles or ignores them.
_ENDING_NAMES = ("SIGTSTP", "SIGTERM", "SIGHUP")
_ENDING = frozenset(getattr(signal, n) for n in _ENDING_NAMES if hasattr(signal, n))
#: None on Windows.
_SIGTSTP: int | None = getattr(signal, "SIGTSTP", None)


def status_text(status: LiveStatus) -> str:
    """The one line for ``status``, outside text already made safe (one line, no controls)."""
    from gpuprof.termtext import plain
    from gpuprof.units import fmt_bytes, fmt_duration, fmt_num, fmt_pct

    gpus = ",".join(str(i) for i in status.gpu_indices) or "-"
    step = "—" if status.step_s is None else f"{status.step_s * 1000:.0f} ms"
    text = tr(
        "{sim}{t} · GPUs {g} · util {u} · SM {s} · mem {m} · {p} · steps {n} ({st})",
        sim="SIMULATED · " if status.simulated else "",
        t=fmt_duration(status.elapsed_s),
        g=gpus,
        u=fmt_pct(status.util_pct),
        s=fmt_pct(status.sm_active_pct),
        m=fmt_bytes(status.mem_used_bytes),
        p=fmt_num(status.power_w, "W"),
        n=status.steps,
        st=step,
    )
    if status.stopping:
        text += tr(" · stopping…")
    return plain(text, one_line=True)


def fit(text: str, cells: int) -> str:
    """``text`` made safe and cut to at most ``cells`` terminal cells (a wide character is 2)."""
    from rich.cells import cell_len, set_cell_size

    from gpuprof.termtext import plain

    line = plain(text, one_line=True)
    if cell_len(line) <= cells:
        return line
    return set_cell_size(line, max(0, cells)).rstrip()


def _fileno(out: TextIO) -> int | None:
    try:
        return out.fileno()
    except (AttributeError, ValueError, OSError):
        return None


def _size(fd: int | None) -> tuple[int, int] | None:
    """(rows, columns) of the terminal on ``fd``, or None when unknown or too small."""
    if fd is None:
        return None
    try:
        cols, rows = os.get_terminal_size(fd)
    except (OSError, ValueError):
        return None
    if rows < _MIN_ROWS or cols < _MIN_COLS:
        return None
    return rows, cols


class StatusBar:
    """The live status on ``out`` (standard error); see the module doc. Call it with each
    :class:`~gpuprof.profile.runner.LiveStatus` (``on_status``); use it as a context manager
    around the run (:meth:`start` before the job starts, :meth:`close` on every way out).
    ``job_pgid`` tells the job's process group (None: not known, or not gpuprof's child)."""

    def __init__(
        self,
        out: TextIO,
        *,
        job_pgid: Callable[[], int | None] | None = None,
        term: str | None = None,
    ) -> None:
        self.out = out
        self.job_pgid = job_pgid or (lambda: None)
        self.fd = _fileno(out)
        try:
            tty = bool(out.isatty())
        except (AttributeError, ValueError):
            tty = False
        term = os.environ.get("TERM", "") if term is None else term
        self.mode = "off"
        if tty:
            bar = term not in ("", "dumb") and _size(self.fd) is not None
            self.mode = "bar" if bar else "line"
        #: bar: the reserved row (the terminal's last) while the scroll region is set.
        self.rows: int | None = None
        self.cols = 0
        self._text: str | None = None
        self._shown = False  # line: a status is on the current line
        self._busy = False
        self._pending: list[int] = []
        self._previous: dict[int, Any] = {}
        self._hooks = contextlib.ExitStack()
        self._closed = False

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    # -- the way in and out ----------------------------------------------------------------

    def __enter__(self) -> StatusBar:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Before the job starts: reserve the bottom row and follow resizes and stops."""
        if self.mode != "bar":
            return
        self._install()
        from gpuprof.profile import foreground

        self._hooks.enter_context(foreground.around_stops(self.suspend, self.refresh))
        self.refresh()

    def close(self) -> None:
        """The terminal whole again: bottom row cleared, scroll region reset (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self.mode == "bar":
            self._hooks.close()
            self._restore()
            self.suspend()
        elif self._shown:
            self._write("\r" + _CSI + "K")
            self._shown = False

    # -- drawing ---------------------------------------------------------------------------

    def __call__(self, status: LiveStatus) -> None:
        if self.mode == "off" or self._closed:
            return
        self._text = status_text(status)
        if self.mode == "bar":
            self.refresh()
            return
        if self._holder() not in ("own", "unknown"):
            return  # the job holds the terminal: it may be asking something on this line
        cols = (_size(self.fd) or (0, _FALLBACK_COLS))[1]
        if self._write("\r" + fit(self._text, cols - 1) + _CSI + "K"):
            self._shown = True

    def refresh(self) -> None:
        """bar: set the region when it is not (or the size changed), then draw the status."""
        if self.mode != "bar" or self._closed or self._holder() == "other":
            return  # in the background (``bg``, or started with ``&``): the shell's terminal
        size = _size(self.fd)
        if size is None:
            self.suspend()
            return
        rows, self.cols = size
        out = ""
        if self.rows != rows:
            # First, or a new size: from the whole screen, the last row scrolled up into the
            # region (the cursor, on that row or above, keeps its text: one row up), then the
            # region set (it homes the cursor, hence the save and restore around it).
            out = f"{_SAVE}{_CSI}r{_CSI}{rows};1H\n{_CSI}1;{rows - 1}r{_RESTORE}{_CSI}1A"
            self.rows = rows
        if self._text is not None:
            text = fit(self._text, self.cols - 1)
            out += f"{_SAVE}{_CSI}{rows};1H{_CSI}2K{text}{_RESTORE}"
        if out:
            self._write(out)

    def suspend(self) -> None:
        """bar: the bottom row cleared and the scroll region reset (before a stop, at the end)."""
        if self.rows is None:
            return
        rows, self.rows = self.rows, None
        self._write(f"{_SAVE}{_CSI}{rows};1H{_CSI}2K{_CSI}r{_RESTORE}")

    def _holder(self) -> str:
        """Who holds the terminal: "own" (gpuprof's group), "job", "other", or "unknown"
        (not gpuprof's controlling terminal)."""
        if self.fd is None or not hasattr(os, "tcgetpgrp"):  # Windows: no process groups
            return "unknown"
        try:
            pgrp = os.tcgetpgrp(self.fd)
        except OSError:
            return "unknown"
        if pgrp == os.getpgrp():
            return "own"
        return "job" if pgrp == self.job_pgid() else "other"

    def _write(self, text: str) -> bool:
        self._busy = True
        try:
            self.out.write(text)
            self.out.flush()
            ok = True
        except (OSError, ValueError, RuntimeError):  # closed, hung up, or re-entered
            ok = False
        finally:
            self._busy = False
        while self._pending:
            self._handle(self._pending.pop(0))
        return ok

    # -- signals ---------------------------------------------------------------------------

    def _install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        wanted = [getattr(signal, n, None) for n in ("SIGWINCH", "SIGCONT", *_ENDING_NAMES)]
        for signo in (s for s in wanted if s is not None):
            previous = signal.getsignal(signo)
            if signo in _ENDING and previous != signal.SIG_DFL:
                continue  # ignored or handled by someone else: leave it be
            self._previous[signo] = previous
            signal.signal(signo, self._on_signal)

    def _restore(self) -> None:
        for signo, previous in self._previous.items():
            with contextlib.suppress(ValueError, TypeError, OSError):
                signal.signal(signo, previous)
        self._previous = {}

    def _on_signal(self, signo: int, _frame: object) -> None:
        if self._busy:
            self._pending.append(signo)  # after the write in progress
            return
        self._handle(signo)

    def _handle(self, signo: int) -> None:
        if signo in _ENDING and signo != _SIGTSTP:
            # SIGTERM / SIGHUP outside the run (the runner forwards them to the job while it
            # runs): the terminal whole again, then the end they would have been.
            self.close()  # the previous disposition (the default) back
            os.kill(os.getpid(), signo)
            return
        if signo == _SIGTSTP:
            # Stopped itself (Ctrl-Z while gpuprof holds the terminal): the terminal whole
            # for the shell first, then the stop as it would have been; set again on SIGCONT.
            self.suspend()
            signal.signal(signo, signal.SIG_DFL)
            try:
                os.kill(os.getpid(), signo)
            finally:
                if not self._closed:
                    signal.signal(signo, self._on_signal)
        self.refresh()
