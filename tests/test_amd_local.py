"""This machine's AMD GPUs outside the window (the fake amdsmi in ``sys.modules``, as the real
one would be): ``gpuprof kill`` shows an AMD process's GPU and VRAM, and ``recommend`` probes
the local GPU model through amdsmi where NVML lists none."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable

import pytest

from gpuprof.commands import kill as kill_cmd
from gpuprof.commands.recommend.local import local_gpu_names
from gpuprof.telemetry.amd import lib as amd_lib
from tests.fakes.devices import BOXES as NVIDIA_BOXES
from tests.fakes.fake_amdsmi import FakeAmdProcess, FakeAmdSmi


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_kill_describes_an_amd_process_with_its_vram(
    install_amd: Callable[[str], FakeAmdSmi], sleep_child: subprocess.Popen[bytes]
) -> None:
    import argparse

    fake = install_amd("mi300x8")
    fake.box.gpus[5].processes.append(FakeAmdProcess(sleep_child.pid, "sleep", 3 * 2**30))
    assert kill_cmd.gpu_use(sleep_child.pid) == [(5, 3 * 2**30)]
    out = io.StringIO()
    args = argparse.Namespace(pid=sleep_child.pid, signal="TERM", yes=False)
    assert kill_cmd.cmd_kill(args, stdin=_Tty("n\n"), stdout=out) == 1
    assert "GPU 5, GPU memory 3.0 GiB" in out.getvalue()
    assert "nothing was signalled" in out.getvalue() and sleep_child.poll() is None


def test_kill_on_a_mixed_box_numbers_the_amd_gpu_after_the_nvidia_ones(
    install_amd: Callable[[str], FakeAmdSmi],
    make_fake_nvml: Callable[..., object],
    sleep_child: subprocess.Popen[bytes],
) -> None:
    make_fake_nvml(NVIDIA_BOXES["rtx4090x2"]())
    fake = install_amd("mi210")
    fake.box.gpus[0].processes.append(FakeAmdProcess(sleep_child.pid, "sleep", 2**30))
    assert kill_cmd.gpu_use(sleep_child.pid) == [(2, 2**30)]


def test_kill_without_any_gpu_library_says_unknown(
    monkeypatch: pytest.MonkeyPatch, sleep_child: subprocess.Popen[bytes]
) -> None:
    monkeypatch.setattr(amd_lib, "amdsmi", None)
    monkeypatch.setitem(sys.modules, "amdsmi", None)
    monkeypatch.setattr(amd_lib, "amdsmi_installed", lambda: False)
    assert kill_cmd.gpu_use(sleep_child.pid) is None


def test_recommend_probes_the_local_amd_gpu(install_amd: Callable[[str], FakeAmdSmi]) -> None:
    fake = install_amd("mi300x8")
    assert local_gpu_names(None) == ["AMD Instinct MI300X"] * 8
    assert fake.shut_down  # the probe closes amdsmi again
    assert local_gpu_names("H100 x 8") == ["H100"]  # --local-gpu wins, nothing probed


def test_recommend_probes_both_vendors_on_a_mixed_box(
    install_amd: Callable[[str], FakeAmdSmi], make_fake_nvml: Callable[..., object]
) -> None:
    make_fake_nvml(NVIDIA_BOXES["rtx4090x2"]())
    install_amd("mi210")
    names = local_gpu_names(None)
    assert len(names) == 3 and names[2] == "AMD Instinct MI210" and "4090" in names[0]
