"""Terminate / kill with real child processes: the core (procctl) and ``gpuprof kill``."""

from __future__ import annotations

import argparse
import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from gpuprof.commands import kill as kill_cmd
from gpuprof.telemetry import procctl
from gpuprof.telemetry.procctl import Refusal, Sig, SignalRefused, describe, send_signal, wait_gone
from tests.faults.hostile import ROOT, TIMEOUT_S, gpuprof_env

#: Ignores SIGTERM, so that only SIGKILL ends it.
STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); time.sleep(60)"


@pytest.fixture
def stubborn() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"1"  # handler set
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    proc.stdout.close()


def test_describe_a_child(sleep_child: subprocess.Popen[bytes]) -> None:
    t = describe(sleep_child.pid)
    assert t.pid == sleep_child.pid and t.name == "sleep" and t.cmdline == "sleep 60"
    assert t.uid == os.getuid() and t.user
    assert t.label == f"pid {sleep_child.pid} (sleep)"


def test_terminate(sleep_child: subprocess.Popen[bytes]) -> None:
    target = describe(sleep_child.pid)
    send_signal(target, Sig.TERM)
    assert sleep_child.wait(timeout=10) == -signal.SIGTERM
    assert wait_gone(target, 1.0)


def test_kill_ends_what_terminate_does_not(stubborn: subprocess.Popen[bytes]) -> None:
    target = describe(stubborn.pid)
    send_signal(target, Sig.TERM)
    assert not wait_gone(target, 0.3)  # ignored
    assert stubborn.poll() is None
    send_signal(target, Sig.KILL)
    assert stubborn.wait(timeout=10) == -signal.SIGKILL
    assert wait_gone(target, 1.0)  # a zombie or reaped: exited either way


def test_vanished_pid(sleep_child: subprocess.Popen[bytes]) -> None:
    target = describe(sleep_child.pid)
    sleep_child.kill()
    sleep_child.wait()
    with pytest.raises(SignalRefused) as refused:
        send_signal(target, Sig.TERM)
    assert refused.value.reason is Refusal.GONE and str(sleep_child.pid) in str(refused.value)
    with pytest.raises(SignalRefused, match="no process with pid"):
        describe(sleep_child.pid)


def test_a_zombie_is_gone_not_signalled(sleep_child: subprocess.Popen[bytes]) -> None:
    target = describe(sleep_child.pid)
    os.kill(sleep_child.pid, signal.SIGKILL)
    assert wait_gone(target, 5.0)  # not reaped yet: a zombie
    with pytest.raises(SignalRefused) as refused:
        send_signal(target, Sig.KILL)
    assert refused.value.reason is Refusal.GONE


def test_pid_reused_is_not_signalled(sleep_child: subprocess.Popen[bytes]) -> None:
    # What a reused pid looks like: the same pid, another start time.
    chosen = replace(
        describe(sleep_child.pid), start_time_s=describe(sleep_child.pid).start_time_s - 3600
    )
    with pytest.raises(SignalRefused) as refused:
        send_signal(chosen, Sig.KILL)
    assert refused.value.reason is Refusal.REUSED
    assert "different process" in str(refused.value) and "sleep" in str(refused.value)
    assert sleep_child.poll() is None  # untouched


@pytest.mark.skipif(os.geteuid() == 0, reason="root may signal every process")
def test_another_users_process_is_refused_pid_1() -> None:
    with pytest.raises(SignalRefused) as refused:
        send_signal(describe(1), Sig.TERM)
    assert refused.value.reason is Refusal.NOT_OWNER
    assert "only root" in str(refused.value)


def test_another_users_process_is_refused_unless_root(sleep_child: subprocess.Popen[bytes]) -> None:
    target = describe(sleep_child.pid)
    other = (target.uid or 0) + 1000
    with pytest.raises(SignalRefused) as refused:
        send_signal(target, Sig.KILL, euid=other)  # as if gpuprof ran as another user
    assert refused.value.reason is Refusal.NOT_OWNER
    assert f"belongs to user {target.user}" in str(refused.value)
    assert sleep_child.poll() is None
    send_signal(target, Sig.TERM, euid=0)  # root may
    assert sleep_child.wait(timeout=10) == -signal.SIGTERM


def test_gpuprof_itself_and_init_are_protected() -> None:
    with pytest.raises(SignalRefused) as refused:
        send_signal(describe(os.getpid()), Sig.KILL)
    assert refused.value.reason is Refusal.PROTECTED
    init = describe(1)
    with pytest.raises(SignalRefused) as refused:
        send_signal(init, Sig.TERM, euid=init.uid if init.uid is not None else 0)
    assert refused.value.reason is Refusal.PROTECTED


def test_the_kernel_saying_no_is_a_clear_refusal(
    sleep_child: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    def denied(*_args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    if not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfd here")
    # Only gpuprof uses pidfd_send_signal here: the fixtures still end their children.
    monkeypatch.setattr(procctl.signal, "pidfd_send_signal", denied)
    with pytest.raises(SignalRefused) as refused:
        send_signal(describe(sleep_child.pid), Sig.TERM)
    assert refused.value.reason is Refusal.DENIED
    assert "Operation not permitted" in str(refused.value)
    assert sleep_child.poll() is None


def test_without_pidfd_os_kill_is_used(
    sleep_child: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(procctl.os, "pidfd_open", raising=False)
    send_signal(describe(sleep_child.pid), Sig.TERM)
    assert sleep_child.wait(timeout=10) == -signal.SIGTERM


# --- gpuprof kill ---------------------------------------------------------------------------------


def _gpuprof(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpuprof", *args],
        stdin=subprocess.DEVNULL,  # not a terminal
        capture_output=True,
        text=True,
        env=gpuprof_env(home),
        cwd=ROOT,
        timeout=TIMEOUT_S,
    )


def test_cli_shows_the_process_and_terminates_it(
    sleep_child: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    ran = _gpuprof(["kill", str(sleep_child.pid), "--yes"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert f"pid {sleep_child.pid} (sleep) exited" in ran.stdout
    for shown in ("sleep 60", "SIGTERM", "GPU"):
        assert shown in ran.stdout
    assert sleep_child.wait(timeout=10) == -signal.SIGTERM


def test_cli_refuses_to_act_without_a_terminal_or_yes(
    sleep_child: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    ran = _gpuprof(["kill", str(sleep_child.pid), "--signal", "KILL"], tmp_path)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert "--yes" in line and str(sleep_child.pid) in line
    assert sleep_child.poll() is None


def test_cli_vanished_pid_is_one_line(sleep_child: subprocess.Popen[bytes], tmp_path: Path) -> None:
    sleep_child.kill()
    sleep_child.wait()
    ran = _gpuprof(["kill", str(sleep_child.pid), "--yes"], tmp_path)
    assert ran.returncode == 2
    (line,) = ran.stderr.strip().splitlines()
    assert f"no process with pid {sleep_child.pid}" in line


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _args(pid: int, sig: str = "TERM") -> argparse.Namespace:
    return argparse.Namespace(pid=pid, signal=sig, yes=False)


@pytest.fixture
def no_nvml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kill_cmd, "gpu_use", lambda pid: [(3, 2 * 1024**3)])


def test_cli_asks_and_a_no_sends_nothing(
    sleep_child: subprocess.Popen[bytes], no_nvml: None
) -> None:
    out = io.StringIO()
    assert kill_cmd.cmd_kill(_args(sleep_child.pid), stdin=_Tty("n\n"), stdout=out) == 1
    assert "nothing was signalled" in out.getvalue()
    assert "GPU 3, GPU memory 2.0 GiB" in out.getvalue()
    assert sleep_child.poll() is None


def test_cli_asks_and_a_yes_kills(stubborn: subprocess.Popen[bytes], no_nvml: None) -> None:
    out = io.StringIO()
    assert kill_cmd.cmd_kill(_args(stubborn.pid, "KILL"), stdin=_Tty("y\n"), stdout=out) == 0
    assert f"Send SIGKILL to pid {stubborn.pid}? [y/N]" in out.getvalue()
    assert stubborn.wait(timeout=10) == -signal.SIGKILL


def test_cli_terminate_ignored_suggests_kill(
    stubborn: subprocess.Popen[bytes], no_nvml: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kill_cmd, "WAIT_S", 0.2)
    out = io.StringIO()
    assert kill_cmd.cmd_kill(_args(stubborn.pid), stdin=_Tty("yes\n"), stdout=out) == 0
    assert "still running" in out.getvalue() and "--signal KILL" in out.getvalue()
    assert stubborn.poll() is None


def test_cli_hides_secrets_in_the_command_line(no_nvml: None, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; time.sleep(60)",
            "--hf-token",
            "hf_abcdefghijklmnopqrstuvwxyz0123",
        ]
    )
    try:
        out = io.StringIO()
        kill_cmd.cmd_kill(_args(proc.pid), stdin=_Tty("n\n"), stdout=out)
        assert "hf_abcdefghijklmnopqrstuvwxyz0123" not in out.getvalue()
        assert "--hf-token ***" in out.getvalue()
    finally:
        proc.kill()
        proc.wait()


def test_describe_with_the_rows_start_time_refuses_a_reused_pid(
    sleep_child: subprocess.Popen[bytes],
) -> None:
    start = describe(sleep_child.pid).start_time_s
    assert describe(sleep_child.pid, expected_start_s=start).pid == sleep_child.pid
    with pytest.raises(SignalRefused) as refused:
        describe(sleep_child.pid, expected_start_s=start - 60.0)
    assert refused.value.reason is Refusal.REUSED


# --- kernel threads -------------------------------------------------------------------------------


def _kthreadd() -> int:
    """pid 2 when it is kthreadd, a kernel thread (PF_KTHREAD in /proc/2/stat); else skip."""
    try:
        stat = Path("/proc/2/stat").read_bytes()
    except OSError:
        pytest.skip("no /proc/2 here (not Linux, or a pid namespace without kthreadd)")
    flags = int(stat[stat.rfind(b")") + 1 :].split()[6])
    if not flags & 0x00200000:
        pytest.skip("pid 2 is not a kernel thread here (a container's own pid namespace)")
    return 2


def test_is_kernel_thread_reads_pf_kthread(sleep_child: subprocess.Popen[bytes]) -> None:
    assert procctl.is_kernel_thread(_kthreadd())
    assert not procctl.is_kernel_thread(sleep_child.pid)
    assert not procctl.is_kernel_thread(os.getpid())
    sleep_child.kill()
    sleep_child.wait()
    assert not procctl.is_kernel_thread(sleep_child.pid)  # gone: nothing to say


def test_a_kernel_thread_is_refused_before_anything_is_asked() -> None:
    pid = _kthreadd()
    with pytest.raises(SignalRefused) as refused:
        describe(pid)
    assert refused.value.reason is Refusal.PROTECTED
    assert "kernel thread" in str(refused.value) and f"pid {pid}" in str(refused.value)


def test_a_kernel_thread_is_refused_at_the_signal_too(sleep_child: subprocess.Popen[bytes]) -> None:
    # A target made by hand (or described before the pid became a kernel thread: not possible
    # today, but the signal does not rely on describe alone).
    pid = _kthreadd()
    start_s = float(psutil.Process(pid).create_time())
    target = replace(describe(sleep_child.pid), pid=pid, uid=0, start_time_s=start_s)
    with pytest.raises(SignalRefused) as refused:
        send_signal(target, Sig.TERM, euid=0)
    assert refused.value.reason is Refusal.PROTECTED and "kernel thread" in str(refused.value)


def test_cli_refuses_a_kernel_thread_in_one_line(tmp_path: Path) -> None:
    pid = _kthreadd()
    ran = _gpuprof(["kill", str(pid), "--yes"], tmp_path)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr
    (line,) = ran.stderr.strip().splitlines()
    assert "kernel thread" in line and f"pid {pid}" in line
    assert "about to send" not in ran.stdout
