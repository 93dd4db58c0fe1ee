"""Run a command (or attach to a process) under the profiler: ``gpuprof profile``.

:class:`JobRunner` starts the command (an argv list, no shell) in a process group of its own,
with :data:`~gpuprof.profile.markers.ENV_VAR` naming a marker file (and, with ``torch``,
``GPUPROF_TORCH_DIR`` a folder for the torch profiler's window; without it
``GPUPROF_TORCH_ASKED_DIR`` the folder a ``track(..., torch_profiler=True)`` window of the job
writes to, collected the same way), and records a telemetry
session (:class:`~gpuprof.telemetry.session.TelemetrySession`) into a recording while it runs.
Every poll it follows the job's process tree (:class:`~gpuprof.profile.tree.ProcessTree`),
moves the new markers into the recording and reports a :class:`LiveStatus`. When the job ends
the :class:`~gpuprof.profile.model.JobProfile` is built from the recording and stored in it.

With :attr:`JobOptions.terminal` (the CLI) and a terminal on standard input, the job's group is
made the terminal's foreground group while it runs, so that it may read from it
(:mod:`gpuprof.profile.foreground`): Ctrl-C then reaches the job directly, as under a shell.

Signals: SIGINT, SIGTERM and SIGHUP received by the profiler go to the job's process group
first; the profile is saved once the job has exited, or after :attr:`JobOptions.grace_s` more
seconds (the group is then killed with SIGKILL and a note says so). A second signal skips the
wait. Attached to a process gpuprof did not start, a signal only ends the profiling.

The exit status of :meth:`JobRunner.run` is the job's: its exit code, or ``128 + N`` when
signal N killed it (a shell's convention); attached, 0.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.errors import GpuprofError, InputError
from gpuprof.fileio import regular_target
from gpuprof.profile import markers as marker_protocol
from gpuprof.profile.build import JobRun
from gpuprof.profile.foreground import TerminalHandoff
from gpuprof.profile.job_files import (
    TORCH_ENV_VAR,
    default_out,
    job_name,
    jobs_dir,
    torch_outputs,
    trace_path_for,
)
from gpuprof.profile.model import JobProfile, StepMarker
from gpuprof.profile.storage import append_markers, profile_of_store, write_job_profile
from gpuprof.profile.tail import MarkerTail
from gpuprof.profile.torch_window import ENV_ASKED as TORCH_ASKED_ENV_VAR
from gpuprof.profile.tree import ProcessTree, has_exited
from gpuprof.telemetry.model import Snapshot, SourceKind

if TYPE_CHECKING:
    from gpuprof.telemetry.session import TelemetrySession
    from gpuprof.telemetry.source import TelemetrySource
    from gpuprof.telemetry.store import SessionStore

__all__ = [
    "TORCH_ENV_VAR",
    "JobOptions",
    "JobResult",
    "JobRunner",
    "LiveStatus",
    "default_out",
    "jobs_dir",
    "run_job",
    "trace_path_for",
]

log = logging.getLogger(__name__)

_SIGNALS = tuple(
    s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGTERM", "SIGHUP")) if s is not None
)


@dataclass(frozen=True)
class JobOptions:
    """What to profile and how. Exactly one of ``command`` and ``attach_pid``."""

    command: tuple[str, ...] = ()
    attach_pid: int | None = None
    out: Path | None = None  # None: a timestamped file in jobs_dir()
    name: str = ""
    interval_s: float = 1.0
    torch: bool = False
    demo: bool = False
    dtype: str | None = "bf16"  # MFU against the spec peak at this dtype
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # added to the inherited environment
    overwrite: bool = False
    grace_s: float = 10.0  # after a forwarded signal, how long the job may take to exit
    #: Lend the job the controlling terminal when standard input is one and gpuprof is in the
    #: foreground (the CLI; :mod:`gpuprof.profile.foreground`): then the job may read it.
    terminal: bool = False


@dataclass(frozen=True, slots=True)
class LiveStatus:
    """The job right now (the one-line status; the app's live view)."""

    elapsed_s: float
    pid: int
    gpu_indices: tuple[int, ...] = ()
    util_pct: float | None = None  # mean over the job's GPUs
    sm_active_pct: float | None = None
    mem_used_bytes: int | None = None  # summed over the job's GPUs
    power_w: float | None = None
    steps: int = 0
    step_s: float | None = None  # the last step's time
    processes: int = 0
    simulated: bool = False
    stopping: bool = False


@dataclass(frozen=True)
class JobResult:
    """The outcome: the profile, where it is stored, and the exit status to pass on."""

    profile: JobProfile
    out: Path
    exit_status: int
    trace: Path | None = None
    #: Why the recording or the profile in it could not be written completely (a full disk),
    #: or None; the profile itself is still complete in :attr:`profile`.
    save_error: str | None = None


def _signal_name(signo: int) -> str:
    try:
        return signal.Signals(signo).name
    except ValueError:
        return f"signal {signo}"


class JobRunner:
    """One job under the profiler; :meth:`run` blocks until it ends (see the module doc).

    ``source``: the telemetry source (default: NVML, or the simulator with ``demo``); closed
    at the end. ``on_status`` is called from :meth:`run`'s thread after each poll; it must not
    block. :meth:`request_stop` may be called from any thread (the app's Stop button).
    """

    def __init__(
        self,
        options: JobOptions,
        *,
        source: TelemetrySource | None = None,
        on_status: Callable[[LiveStatus], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if bool(options.command) == (options.attach_pid is not None):
            raise InputError("give a command to run or a process to attach to (--attach PID)")
        self.options = options
        self._source = source
        self._on_status = on_status
        self._clock = clock
        self._stop_requests: list[int] = []
        self._stop_lock = threading.Lock()
        self._wake = threading.Event()
        self._latest: Snapshot | None = None
        self._steps = 0
        self._last_step_s: float | None = None
        self._notes: list[str] = []
        self.pid: int | None = None
        self.out: Path | None = None
        self._command: tuple[str, ...] = tuple(options.command)
        self._handoff: TerminalHandoff | None = None

    # -- control -----------------------------------------------------------------------------

    def request_stop(self, signo: int = signal.SIGINT) -> None:
        """Stop the job as if the profiler had received ``signo`` (thread-safe)."""
        with self._stop_lock:
            self._stop_requests.append(int(signo))
        self._wake.set()

    def _take_requests(self) -> list[int]:
        with self._stop_lock:
            out, self._stop_requests = self._stop_requests, []
        return out

    @contextlib.contextmanager
    def _signals(self) -> Any:
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signo: int, _frame: object) -> None:
            self.request_stop(signo)

        previous = {s: signal.signal(s, handler) for s in _SIGNALS}
        try:
            yield
        finally:
            for s, h in previous.items():
                signal.signal(s, h)

    # -- the run -----------------------------------------------------------------------------

    def run(self) -> JobResult:
        opts = self.options
        out = self._check_out()
        if opts.attach_pid is not None:
            self._check_attach(opts.attach_pid)
        workdir = Path(tempfile.mkdtemp(prefix="gpuprof-job-"))
        try:
            return self._run(out, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _check_out(self) -> Path:
        opts = self.options
        if opts.out is None:
            name = opts.name or job_name(opts.command)
            return default_out(name or f"pid-{opts.attach_pid}")
        out = Path(opts.out)
        if out.is_dir():
            raise InputError(f"{out}: is a folder; give a file name for the recording")
        regular_target(out)  # a device or a FIFO is refused before "pass --force"
        if out.exists() and not opts.overwrite:
            raise InputError(f"{out}: file exists (pass --force to overwrite it)")
        if not out.parent.is_dir():
            raise InputError(f"folder {out.parent} does not exist")
        return out

    @staticmethod
    def _check_attach(pid: int) -> None:
        import psutil

        if pid == os.getpid():
            raise InputError(f"--attach {pid}: that is gpuprof itself")
        try:
            if has_exited(psutil.Process(pid)):
                raise InputError(f"--attach {pid}: the process has already exited")
        except psutil.NoSuchProcess:
            raise InputError(f"--attach {pid}: no such process") from None
        except psutil.AccessDenied:
            pass  # another user's: its tree is read as far as permitted

    def _open_source(self) -> TelemetrySource:
        if self._source is not None:
            return self._source
        from gpuprof.telemetry.sources import open_source

        return open_source(demo=self.options.demo)

    def _run(self, out: Path, workdir: Path) -> JobResult:
        from gpuprof.telemetry.session import MINIMAL_HISTORY, TelemetrySession
        from gpuprof.telemetry.store import SessionStore

        opts = self.options
        marker_file = workdir / "markers.jsonl"
        marker_file.touch(mode=0o600)
        # Always there: a job's own track(..., torch_profiler=True) writes to it even without
        # --torch (GPUPROF_TORCH_ASKED_DIR), and its breakdown is collected all the same.
        torch_dir = workdir / "torch" if opts.attach_pid is None else None
        if torch_dir is not None:
            torch_dir.mkdir()
        source = self._open_source()
        session = TelemetrySession(
            source, interval_s=opts.interval_s, history_capacity=MINIMAL_HISTORY
        )
        session.watch_gpm()  # the job's true utilization (SM, tensor, DRAM) at every poll
        session.subscribe(self._on_snapshot)
        store: SessionStore | None = None
        try:
            store = SessionStore.create(
                out,
                source=source,
                overwrite=opts.overwrite,
                meta={"job": {"name": opts.name, "command": list(opts.command)}},
            )
            session.record_to(store, out)  # the store stays ours: the job profile goes in
            status: int | None = None
            with self._signals():
                try:
                    child, started_s = self._start(session, marker_file, torch_dir, store)
                    tree = ProcessTree(child.pid if child else int(opts.attach_pid or 0))
                    tail = MarkerTail(marker_file)
                    session.start()
                    status, rusage = self._follow(child, session, tree, tail, store, started_s)
                finally:
                    self._release_terminal(status)
            ended_s = self._clock()
            with contextlib.suppress(Exception):
                session.poll_once()  # the end: the last energy reading
            return self._finish(
                out,
                session,
                store,
                tree,
                tail,
                child,
                status,
                rusage,
                started_s,
                ended_s,
                torch_dir,
            )
        except BaseException:
            session.close()
            if store is not None and self.pid is None:
                # Nothing ran: no recording is left behind.
                store.close()
                for suffix in ("", "-wal", "-shm", "-journal"):
                    with contextlib.suppress(OSError):
                        Path(f"{out}{suffix}").unlink()
            elif store is not None:
                store.close()
            raise

    def _start(
        self,
        session: TelemetrySession,
        marker_file: Path,
        torch_dir: Path | None,
        store: SessionStore,
    ) -> tuple[subprocess.Popen[bytes] | None, float]:
        opts = self.options
        session.poll_once()  # the baseline before the job (energy counters, memory in use)
        if opts.attach_pid is not None:
            self.pid = opts.attach_pid
            self._command = self._attached_command(opts.attach_pid)
            return None, self._clock()
        env = dict(os.environ)
        env.update(opts.env)
        env[marker_protocol.ENV_VAR] = str(marker_file)
        if torch_dir is not None and opts.torch:
            env[TORCH_ENV_VAR] = str(torch_dir)
        else:
            env.pop(TORCH_ENV_VAR, None)
        if torch_dir is not None:
            env[TORCH_ASKED_ENV_VAR] = str(torch_dir)
        started_s = self._clock()
        cmd0 = opts.command[0]
        try:
            child = subprocess.Popen(list(opts.command), env=env, cwd=opts.cwd, process_group=0)
        except FileNotFoundError:
            where = f" in {opts.cwd}" if opts.cwd and not Path(opts.cwd).is_dir() else ""
            raise InputError(f"{cmd0}: command not found{where}") from None
        except PermissionError:
            raise InputError(f"{cmd0}: permission denied (not executable?)") from None
        except OSError as e:
            raise InputError(f"{cmd0}: cannot run ({e.strerror or e})") from None
        self.pid = child.pid
        if opts.terminal:
            self._handoff = TerminalHandoff.open()
            if self._handoff is not None:
                self._handoff.give(child.pid)  # its process group (process_group=0)
        return child, started_s

    def _release_terminal(self, status: int | None) -> None:
        """The terminal back from the job; its modes as well when it died of a signal."""
        handoff, self._handoff = self._handoff, None
        if handoff is not None:
            handoff.take_back(restore_modes=status is None or os.WIFSIGNALED(status))

    def _on_snapshot(self, snap: Snapshot) -> None:
        self._latest = snap

    def _follow(
        self,
        child: subprocess.Popen[bytes] | None,
        session: TelemetrySession,
        tree: ProcessTree,
        tail: MarkerTail,
        store: SessionStore,
        started_s: float,
    ) -> tuple[int | None, Any]:
        """Wait for the job to end; returns its wait status (None attached) and rusage."""
        interval = self.options.interval_s
        next_poll = 0.0
        stopping_since: float | None = None
        escalated = False
        while True:
            if child is not None:
                handoff = self._handoff
                flags = os.WNOHANG | (os.WUNTRACED if handoff is not None else 0)
                pid, status, rusage = os.wait4(child.pid, flags)
                if pid == child.pid and handoff is not None and os.WIFSTOPPED(status):
                    handoff.job_stopped(os.WSTOPSIG(status))  # Ctrl-Z, or a read too early
                elif pid == child.pid:
                    child.returncode = os.waitstatus_to_exitcode(status)
                    return status, rusage
            elif not tree.root_alive:
                return None, None
            requests = self._take_requests()
            if requests:
                if child is None:
                    self._notes.append(
                        f"profiling stopped by {_signal_name(requests[0])}; the process ran on"
                    )
                    return None, None
                if stopping_since is not None:
                    escalated = True  # a second signal: no more waiting
                else:
                    stopping_since = time.monotonic()
                for signo in requests:
                    self._forward(child.pid, signo)
            if stopping_since is not None and not escalated:
                escalated = time.monotonic() - stopping_since > self.options.grace_s
                if escalated:
                    self._notes.append(
                        f"the job did not exit within {self.options.grace_s:g} s of the signal: "
                        "killed (SIGKILL)"
                    )
            if escalated:
                self._forward(child.pid if child else 0, signal.SIGKILL)
            now = time.monotonic()
            if now >= next_poll:
                next_poll = now + interval
                sample = tree.refresh()
                new = tail.read()
                self._count_steps(new)
                with contextlib.suppress(Exception):
                    append_markers(store, new)
                self._report(started_s, tree, sample.processes, stopping_since is not None)
            self._wake.wait(min(0.05, interval))
            self._wake.clear()

    @staticmethod
    def _forward(pid: int, signo: int) -> None:
        if pid <= 0:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signo)

    def _count_steps(self, new: Sequence[marker_protocol.Marker]) -> None:
        for m in new:
            if isinstance(m, StepMarker):
                self._steps += 1
                if m.duration_s is not None:
                    self._last_step_s = m.duration_s

    def _report(self, started_s: float, tree: ProcessTree, processes: int, stopping: bool) -> None:
        if self._on_status is None:
            return
        snap = self._latest
        pids = tree.pids
        gpus: tuple[int, ...] = ()
        util = sm = power = None
        mem = None
        if snap is not None:
            simulated = snap.source is SourceKind.SIMULATED
            mine = {p.gpu_index for p in snap.processes if p.pid in pids}
            if simulated or not snap.processes:
                mine = {g.index for g in snap.gpus}
            chosen = [g for g in snap.gpus if g.index in mine and not g.lost]
            gpus = tuple(g.index for g in chosen)
            util = _mean([g.util_gpu_pct for g in chosen])
            sm = _mean([g.prof_sm_active_pct for g in chosen])
            power = _sum([g.power_w for g in chosen])
            mem_sum = _sum([g.mem_used_bytes for g in chosen])
            mem = None if mem_sum is None else int(mem_sum)
        status = LiveStatus(
            elapsed_s=max(0.0, self._clock() - started_s),
            pid=self.pid or 0,
            gpu_indices=gpus,
            util_pct=util,
            sm_active_pct=sm,
            mem_used_bytes=mem,
            power_w=power,
            steps=self._steps,
            step_s=self._last_step_s,
            processes=processes,
            simulated=snap is not None and snap.source is SourceKind.SIMULATED,
            stopping=stopping,
        )
        try:
            self._on_status(status)
        except Exception:
            log.exception("the live status callback failed")

    # -- the end -----------------------------------------------------------------------------

    def _finish(
        self,
        out: Path,
        session: TelemetrySession,
        store: SessionStore,
        tree: ProcessTree,
        tail: MarkerTail,
        child: subprocess.Popen[bytes] | None,
        status: int | None,
        rusage: Any,
        started_s: float,
        ended_s: float,
        torch_dir: Path | None,
    ) -> JobResult:
        opts = self.options
        session.sampler.stop(timeout=2.0)
        session.stop_recording()
        recording_error = session.recording_error
        if recording_error:
            self._notes.append(
                f"the recording stopped early ({recording_error}); its samples end there"
            )
        if rusage is not None:
            tree.refresh()
            tree.set_root_final(rusage)
        info = tree.finish()
        with contextlib.suppress(Exception):
            append_markers(store, tail.drain())
        exit_code = exit_signal = None
        exit_status = 0
        if status is not None:
            if os.WIFSIGNALED(status):
                signo = os.WTERMSIG(status)
                exit_signal = _signal_name(signo)
                exit_status = 128 + signo
            else:
                exit_code = os.waitstatus_to_exitcode(status)
                exit_status = exit_code
        notes = list(self._notes)
        if opts.attach_pid is not None:
            notes.append("attached: exit code unknown; no step markers unless the job sends them")
        breakdown, trace = torch_outputs(torch_dir, out, notes, asked=opts.torch)
        command = tuple(opts.command) or self._command
        run = JobRun(
            name=opts.name or job_name(command) or f"pid {self.pid}",
            command=command,
            pid=self.pid or 0,
            started_s=started_s,
            ended_s=max(ended_s, started_s),
            attached=opts.attach_pid is not None,
            exit_code=exit_code,
            exit_signal=exit_signal,
            interval_s=opts.interval_s,
            notes=tuple(notes),
            dtype=opts.dtype,
        )
        profile = profile_of_store(
            store, run, tree=info, tail_skipped=tail.skipped, breakdown=breakdown
        )
        save_error = recording_error
        try:
            write_job_profile(store, profile)
        except (sqlite3.Error, OSError, GpuprofError) as e:
            save_error = f"the job profile could not be stored ({e})"
        try:
            store.close()
        except (sqlite3.Error, OSError) as e:
            save_error = save_error or f"the recording could not be closed ({e})"
        session.close()
        self.out = out
        return JobResult(profile, out, exit_status, trace, save_error)

    @staticmethod
    def _attached_command(pid: int | None) -> tuple[str, ...]:
        import psutil

        try:
            return tuple(psutil.Process(pid).cmdline()) if pid else ()
        except psutil.Error:
            return ()


def _mean(values: Sequence[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return sum(got) / len(got) if got else None


def _sum(values: Sequence[float | int | None]) -> float | None:
    got = [v for v in values if v is not None]
    return float(sum(got)) if got else None


def run_job(options: JobOptions, **kwargs: Any) -> JobResult:
    """:meth:`JobRunner.run` in one call."""
    return JobRunner(options, **kwargs).run()
