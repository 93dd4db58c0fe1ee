"""The job profiler's modules on a system without POSIX job control (Windows): importing them,
``gpuprof.track`` and the live status must not fail for want of ``os.register_at_fork``,
``signal.SIGTTIN``, ``os.tcgetpgrp`` or ``os.O_CLOEXEC``.

Run in a fresh interpreter where those names are deleted before gpuprof is imported (what
Windows' ``os`` and ``signal`` lack), with ``sys.platform`` set to ``"win32"``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.faults.hostile import ROOT, TIMEOUT_S, gpuprof_env

WINDOWS_LIKE = """
import os, signal, sys
import psutil  # its own platform check, before the pretence (it has a Windows build)
for name in ("fork", "register_at_fork", "O_CLOEXEC", "tcgetpgrp", "tcsetpgrp", "getpgrp", "killpg"):
    if hasattr(os, name):
        delattr(os, name)
for name in ("SIGTTIN", "SIGTTOU", "SIGTSTP", "SIGCONT", "SIGWINCH", "pthread_sigmask"):
    if hasattr(signal, name):
        delattr(signal, name)
sys.platform = "win32"
"""


def _run(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "windows_like.py"
    script.write_text(WINDOWS_LIKE + textwrap.dedent(body))
    return subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        capture_output=True,
        text=True,
        env=gpuprof_env(tmp_path, PYTHONPATH=str(ROOT)),
        timeout=TIMEOUT_S,
        check=False,
    )


def test_the_profiler_modules_import_without_posix_job_control(tmp_path: Path) -> None:
    done = _run(
        """
        import gpuprof.commands.profile
        import gpuprof.profile.foreground as fg
        import gpuprof.profile.runner
        import gpuprof.profile.track
        assert fg.TerminalHandoff.open(0) is None
        print("imported")
        """,
        tmp_path,
    )
    assert done.returncode == 0 and "imported" in done.stdout, done.stderr


def test_track_records_standalone_without_fork_hooks_or_cloexec(tmp_path: Path) -> None:
    done = _run(
        """
        from pathlib import Path
        import gpuprof
        out = Path(sys.argv[1]) / "win.gpuprof"
        with gpuprof.track("win", out=out) as t:
            recording = t.recording
            for _ in range(3):
                t.step(tokens=1)
        print("recording", recording)
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert f"recording {tmp_path / 'win.gpuprof'}" in done.stdout, done.stdout + done.stderr
    assert "cannot record" not in done.stderr


def test_the_live_status_line_draws_without_process_groups(tmp_path: Path) -> None:
    """A console that is a terminal but has no TERM (Windows): the rewritten line, no error."""
    done = _run(
        """
        import io
        from gpuprof.commands.profile_status import StatusBar
        from gpuprof.profile.runner import LiveStatus

        class Console(io.StringIO):
            def isatty(self):
                return True

            def fileno(self):
                return sys.__stdout__.fileno()  # a pipe here: no size, no process group

        out = Console()
        bar = StatusBar(out, term="")
        with bar:
            bar(LiveStatus(elapsed_s=1.0, pid=1, steps=4))
        assert "steps 4" in out.getvalue(), out.getvalue()
        print("drawn")
        """,
        tmp_path,
    )
    assert done.returncode == 0 and "drawn" in done.stdout, done.stderr
