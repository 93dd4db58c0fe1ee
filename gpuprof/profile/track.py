"""``gpuprof.track``: step markers from inside the user's job (issue 13).

::

    import gpuprof

    with gpuprof.track("llama-ft") as t:
        for batch in loader:
            train_step(batch)
            t.step(tokens=batch_tokens, samples=len(batch), flops=6 * params * batch_tokens)
            if step % 500 == 0:
                t.mark("eval")
                evaluate()
                t.mark("train")

Under ``gpuprof profile`` (the environment names a marker file, :data:`markers.ENV_VAR`) every
marker is one line of the marker protocol appended to that file. Standalone, ``track`` starts
its own telemetry session on a background thread (NVML, or host only without a driver; never
SIMULATED) recording to ``out`` (default ``<data folder>/jobs/<time>-<name>.gpuprof``), hands
its markers to that thread in memory (the lines of the protocol, appended to a deque) which
moves them into the recording after each poll, and stores the job profile in the recording at
the end of the block (:mod:`gpuprof.profile.track_standalone`: a killed process loses at most
its last second; forked workers, and a standalone block at an interval over 0.5 s, write the
marker file beside the recording).

A marker written to a file is one ``os.write`` of one line on a file descriptor opened once
with ``O_APPEND``: nothing is buffered in the process, so a crash keeps every marker written
before it, lines of several processes (forked DataLoader workers, which inherit the descriptor
and put their own pid in their lines) and threads never interleave, and ``step()`` costs a few
microseconds (a clock read, a formatted line, a system call; in memory, no system call). A
write that fails (a full disk, a file-size limit) disables the markers of this process with one
warning; nothing the tracker does ever raises into the training loop.

Nested or repeated ``track`` blocks share the process's marker file (and standalone, the
outermost block's recording) and get distinct run names (``name``, ``name-2``, ...).
``torch_profiler=True``, or the environment variable of :mod:`gpuprof.profile.torch_window`
(``gpuprof profile --torch``), opens a bounded ``torch.profiler`` window stepped by ``step()``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import math
import os
import threading
import time
import weakref
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.profile import markers as _markers
from gpuprof.profile.model import PhaseMark
from gpuprof.telemetry.interval import checked_interval

if TYPE_CHECKING:
    from gpuprof.profile.track_standalone import Recorder

__all__ = ["Tracker", "track"]

log = logging.getLogger("gpuprof.track")

_MAX_NAME = 200  # what the marker reader keeps of a run name or a label

_pid = os.getpid()
_state_lock = threading.Lock()
_channel: _Channel | None = None
_users = 0  # track blocks of this process using _channel
_names: dict[str, int] = {}  # run names given out in this process, and how often
_live: weakref.WeakSet[Tracker] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # A lock held by another thread at the fork stays held for ever in the child.
    global _pid, _state_lock
    _pid = os.getpid()
    _state_lock = threading.Lock()
    for tracker in list(_live):
        tracker._lock = threading.Lock()
    if _channel is not None:
        _channel.lock = threading.RLock()
        _channel.sink = None  # nobody takes them here: the file, which the parent reads


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _at_exit() -> None:
    """Blocks still open when the interpreter exits (``start()`` without ``stop()``) end
    here, innermost first, so that a standalone recording is closed with its profile."""
    channel = _channel
    if channel is None or channel.owner_pid != _pid:
        return  # nothing open, or a forked child exiting: the parent ends its blocks
    for tracker in sorted(_live, key=lambda t: t.started_s or 0.0, reverse=True):
        if tracker._channel is not None:
            tracker.stop()


atexit.register(_at_exit)


def _number(value: object) -> str | None:
    """A count as a JSON number, or None when it is not a finite non-negative number."""
    try:
        f = float(value)  # type: ignore[arg-type]  # int, float, numpy scalar, 0-d tensor
    except Exception:
        return None
    return repr(f) if 0.0 <= f < math.inf else None


class _Channel:
    """The marker file this process appends to; standalone, the recording that reads it and
    the deque its own markers go to instead (:attr:`Recorder.pending`)."""

    def __init__(self, path: str, fd: int, recorder: Recorder | None = None) -> None:
        self.path = path
        self.fd = fd
        self.recorder = recorder
        #: ``(time_s, line)`` without the newline; None in a forked child and without a
        #: standalone recorder taking them in memory.
        self.sink: deque[tuple[float, str]] | None = (
            recorder.pending if recorder is not None else None
        )
        self.owner_pid = _pid
        self.lock = threading.RLock()
        self.window: Any = None  # a torch_window.TorchWindow
        self.window_pid = 0
        self.window_tried = False

    def put(self, time_s: float, line: str) -> None:
        """One marker: its line (ASCII, no newline) to the sink, or appended to the file."""
        sink = self.sink
        if sink is not None:
            sink.append((time_s, line))  # atomic; the sampler thread takes it at its next poll
        else:
            self.write(f"{line}\n".encode())

    def write(self, data: bytes) -> None:
        # Under the lock: another thread ending the block (close) cannot close the descriptor
        # under this write, whose number the next file opened (the recording's) would take.
        # Reentrant: a signal handler may mark while this thread writes.
        with self.lock:
            fd = self.fd
            if fd < 0:
                return
            try:
                n = os.write(fd, data)
            except OSError as e:
                self.disable(e.strerror or str(e))
                return
        if n != len(data):
            self.disable(f"short write ({n} of {len(data)} bytes)")

    def disable(self, why: str) -> None:
        with self.lock:
            fd, self.fd = self.fd, -1
        if fd < 0:
            return
        with contextlib.suppress(OSError):
            os.close(fd)
        log.warning(
            "gpuprof.track: cannot write markers to %s (%s); step markers are off for "
            "process %d, the job goes on",
            self.path,
            why,
            _pid,
        )

    def close(self) -> None:
        with self.lock:
            fd, self.fd = self.fd, -1
            self.sink = None
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


def _open_append(path: str, *, truncate: bool = False) -> int:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags | (os.O_TRUNC if truncate else 0), 0o600)


def _open_channel(tracker: Tracker) -> _Channel:
    """The marker file of ``gpuprof profile``, or a standalone recording with its own."""
    env_path = os.environ.get(_markers.ENV_VAR)
    if env_path:
        try:
            fd = _open_append(env_path)
        except OSError as e:
            channel = _Channel(env_path, -1)
            log.warning(
                "gpuprof.track: cannot open the marker file %s (%s); no step markers, the job "
                "goes on",
                env_path,
                e.strerror or e,
            )
            return channel
        return _Channel(env_path, fd)
    from gpuprof.profile.track_standalone import Recorder

    recorder = Recorder.start(tracker.name, tracker.out, tracker.interval_s)
    if recorder is None:
        return _Channel("", -1)
    return _Channel(str(recorder.marker_path), recorder.write_fd, recorder)


def _open_window(channel: _Channel, tracker: Tracker) -> None:
    """The torch.profiler window, when asked for (the environment or ``torch_profiler``)."""
    from gpuprof.profile import torch_window as _tw  # lazy: only when a window may open

    if not (os.environ.get(_tw.ENV_VAR) or tracker.torch_profiler):
        return
    channel.window_tried = True
    if os.environ.get(_tw.ENV_VAR):
        window = _tw.window_from_env()
    else:
        folder = channel.recorder.torch_dir if channel.recorder is not None else None
        asked = os.environ.get(_tw.ENV_ASKED)  # gpuprof profile without --torch collects it
        if folder is None and asked:
            folder = Path(asked)
        if folder is None:
            from gpuprof.paths import data_dir

            folder = data_dir() / "torch" / f"{tracker.run}-{_pid}"
            log.warning(
                "gpuprof.track: torch_profiler=True under `gpuprof profile` without --torch: "
                "the trace goes to %s",
                folder,
            )
        window = _tw.open_window(folder)
    channel.window, channel.window_pid = window, _pid


def _acquire(tracker: Tracker) -> _Channel:
    global _channel, _users
    with _state_lock:
        channel = _channel
        if channel is None:
            channel = _channel = _open_channel(tracker)
        _users += 1
    wants_window = tracker.torch_profiler or bool(os.environ.get("GPUPROF_TORCH_DIR"))
    if wants_window and not channel.window_tried and channel.owner_pid == _pid:
        try:
            _open_window(channel, tracker)
        except ImportError:
            log.warning("gpuprof.track: no torch profiler support here; no time breakdown")
        except Exception:  # the profiler must never break the job
            log.warning("gpuprof.track: cannot open the torch profiler window", exc_info=True)
    return channel


def _release(tracker: Tracker, channel: _Channel) -> None:
    global _channel, _users
    with _state_lock:
        _users -= 1
        last = _users <= 0 and _channel is channel
        if last:
            _channel, _users = None, 0
    if not last or channel.owner_pid != _pid:
        return  # an inner block, or a forked child leaving a block its parent opened
    window = channel.window
    if window is not None:
        with contextlib.suppress(Exception):
            window.close()
    recorder = channel.recorder
    channel.close()
    if recorder is not None:
        started = tracker.started_s if tracker.started_s is not None else time.time()
        recorder.finish(run=tracker.run, started_s=started, window=window, dtype=tracker.dtype)


def _claim_name(name: str) -> str:
    base = (str(name) or "job")[: _MAX_NAME - 8]
    with _state_lock:
        k = _names.get(base, 0) + 1
        _names[base] = k
    return base if k == 1 else f"{base}-{k}"


class Tracker:
    """One ``track`` block: :meth:`step` at the end of every step, :meth:`mark` for phases.

    Thread-safe; usable from forked worker processes. Use it as a context manager, or call
    :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        name: str = "job",
        *,
        interval: float = 0.1,
        out: str | os.PathLike[str] | None = None,
        torch_profiler: bool = False,
        dtype: str | None = None,
    ) -> None:
        interval_s = checked_interval(interval, "track: interval")
        self.name = str(name)
        self.interval_s = interval_s
        self.out: Path | None = Path(out) if out is not None else None
        self.torch_profiler = bool(torch_profiler)
        self.dtype = str(dtype) if dtype else None
        #: This block's run name in the markers (unique in the process).
        self.run = ""
        self.started_s: float | None = None
        self._lock = threading.Lock()
        self._count = 0
        self._last = 0.0
        self._channel: _Channel | None = None
        self._run_json = '""'
        self._bad_arg_warned = False
        _live.add(self)

    # -- the block ---------------------------------------------------------------------------

    def start(self) -> Tracker:
        """Begin the block (what ``with`` does): the ``start`` marker."""
        if self._channel is not None:
            return self
        self.run = _claim_name(self.name)
        self._run_json = json.dumps(self.run, ensure_ascii=True)
        self._channel = _acquire(self)
        self.started_s = time.time()
        self._last = time.perf_counter()
        self._phase("start", "")
        return self

    def stop(self) -> None:
        """End the block: the ``end`` marker; the outermost block of a standalone run also
        stores the job profile in its recording and closes it."""
        channel, self._channel = self._channel, None
        if channel is None:
            return
        self._phase("end", "", channel)
        try:
            _release(self, channel)
        except Exception:
            log.warning("gpuprof.track: finishing the job profile failed", exc_info=True)

    def __enter__(self) -> Tracker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- markers -----------------------------------------------------------------------------

    @property
    def steps(self) -> int:
        """Steps reported so far (by this process)."""
        return self._count

    @property
    def recording(self) -> Path | None:
        """The standalone recording this block writes to (None under ``gpuprof profile``)."""
        channel = self._channel
        recorder = channel.recorder if channel is not None else None
        return recorder.out if recorder is not None else None

    def step(
        self, tokens: float | None = None, samples: float | None = None, flops: float | None = None
    ) -> None:
        """One step ended: the time since the previous one and what it processed (optional:
        ``tokens``, ``samples``, ``flops`` — floating-point operations of this step over all
        the GPUs this process drives). Never raises."""
        now = time.time()
        mono = time.perf_counter()
        with self._lock:
            self._count += 1
            n = self._count
            dt = mono - self._last
            self._last = mono
        channel = self._channel
        if channel is None:
            return
        extra = ""
        if tokens is not None:
            extra += self._field("tokens", tokens)
        if samples is not None:
            extra += self._field("samples", samples)
        if flops is not None:
            extra += self._field("flops", flops)
        channel.put(
            now,
            f'{{"v":1,"kind":"step","t":{now!r},"run":{self._run_json},"pid":{_pid},'
            f'"step":{n},"dt":{max(dt, 0.0)!r}{extra}}}',
        )
        window = channel.window
        if window is not None and channel.window_pid == _pid:
            window.step()  # cheap outside the window; never raises

    def _field(self, key: str, value: object) -> str:
        text = _number(value)
        if text is not None:
            return f',"{key}":{text}'
        if not self._bad_arg_warned:
            self._bad_arg_warned = True
            log.warning(
                "gpuprof.track: step(%s=%.40r) is not a finite non-negative number; left out",
                key,
                value,
            )
        return ""

    def mark(self, label: str) -> None:
        """Label what follows (``"eval"``, ``"checkpoint"``, ``"train"``). Never raises (a
        label with no text, its ``str()`` failing, is ``"?"``)."""
        try:
            text = str(label)[:_MAX_NAME]
        except Exception:
            text = "?"
        self._phase("mark", text)

    def _phase(self, kind: str, label: str, channel: _Channel | None = None) -> None:
        channel = channel or self._channel
        if channel is None:
            return
        mark = PhaseMark(time_s=time.time(), kind=kind, label=label, run=self.run, pid=_pid)
        channel.put(mark.time_s, _markers.encode(mark).decode("ascii").rstrip("\n"))


def track(
    name: str = "job",
    *,
    interval: float = 0.1,
    out: str | os.PathLike[str] | None = None,
    torch_profiler: bool = False,
    dtype: str | None = None,
) -> Tracker:
    """A :class:`Tracker` for ``with``: step markers of the job (see the module doc).

    ``interval``: seconds between telemetry samples of a standalone recording (0.1–60);
    ``out``: its file (default in the data folder's ``jobs``); both are ignored under
    ``gpuprof profile`` and by blocks nested in another. ``torch_profiler``: profile a short
    window of steps with ``torch.profiler`` (the time breakdown). ``dtype`` (``"bf16"``,
    ``"fp16"``, ``"tf32"``, ...): the precision for the MFU of a standalone recording, whose
    spec peak is looked up for its GPUs (``gpuprof profile --dtype`` under the profiler).
    """
    return Tracker(name, interval=interval, out=out, torch_profiler=torch_profiler, dtype=dtype)
