"""Container and pod of a process, from recorded /proc/PID/cgroup files (tests/data/cgroup)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from gpuprof.telemetry.containers import (
    CgroupInfo,
    ContainerResolver,
    Placement,
    PodDirectory,
    parse_cgroup,
)

DATA = Path(__file__).resolve().parent / "data" / "cgroup"
CASES: dict[str, dict[str, str | None]] = json.loads((DATA / "cases.json").read_text("utf-8"))


def test_every_recorded_layout_has_a_case() -> None:
    assert sorted(p.name for p in DATA.glob("*.cgroup")) == sorted(CASES)
    assert len(CASES) >= 12


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded_layout(name: str) -> None:
    want = CASES[name]
    got = parse_cgroup((DATA / name).read_text("utf-8"))
    assert got == CgroupInfo(want["container_id"], want["runtime"], want["pod_uid"])


def test_systemd_pod_uid_has_dashes_and_the_deepest_container_wins() -> None:
    got = parse_cgroup((DATA / "k8s-containerd-v2-systemd.cgroup").read_text("utf-8"))
    assert got.pod_uid is not None and "_" not in got.pod_uid and got.pod_uid.count("-") == 4
    text = (DATA / "docker-in-docker-v1.cgroup").read_text("utf-8")
    outer = text.split("/docker/")[1].split("/")[0]
    assert parse_cgroup(text).container_id != outer


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\0" * 4096,
        "not a cgroup file at all\n",
        "0::relative/docker-" + "a" * 64 + ".scope\n",  # not an absolute path
        "::::\n:\n0:\n",
        "0::/docker/" + "A" * 64 + "\n",  # upper case is not a runtime id
        "0::/docker/" + "a" * 63 + "\n",  # one short
        "0::/kubepods/podnot-a-uid/" + "b" * 63 + "\n",
        "\udcff\ufffd" * 1000,
    ],
)
def test_text_that_is_not_a_container_gives_nothing(text: str) -> None:
    assert parse_cgroup(text) == CgroupInfo()


def _proc(tmp_path: Path, pid: int, layout: str) -> Path:
    proc = tmp_path / "proc"
    (proc / str(pid)).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / layout, proc / str(pid) / "cgroup")
    return proc


def test_pod_name_and_namespace_from_the_kubelet_log_folders(tmp_path: Path) -> None:
    layout = "k8s-containerd-v2-systemd.cgroup"
    uid = CASES[layout]["pod_uid"]
    assert uid is not None
    proc = _proc(tmp_path, 4242, layout)
    logs = tmp_path / "var" / "log" / "pods"
    (logs / f"ml-team_llama-finetune-7b9c4_{uid}").mkdir(parents=True)
    (logs / "kube-system_coredns-5d78c9869d-x2x7r_0f9e1a3c-0000-4000-8000-000000000001").mkdir()
    (logs / "stray_folder").mkdir()
    resolver = ContainerResolver(proc_root=str(proc), root=str(tmp_path))
    assert resolver.placement(4242) == Placement(
        container_id=CASES[layout]["container_id"],
        pod_uid=uid,
        pod_name="llama-finetune-7b9c4",
        pod_namespace="ml-team",
    )


def test_a_pod_that_starts_later_is_found_after_the_refresh_interval(tmp_path: Path) -> None:
    now = [0.0]
    pods = PodDirectory(str(tmp_path), refresh_s=30.0, clock=lambda: now[0])
    uid = "3d274242-8ee0-11e9-a8a6-1e68d864ef1a"
    assert pods.lookup(uid) == (None, None)
    (tmp_path / "var" / "log" / "pods" / f"default_late_{uid}").mkdir(parents=True)
    now[0] = 5.0
    assert pods.lookup(uid) == (None, None)  # not listed again yet: a miss costs one listdir
    now[0] = 31.0
    assert pods.lookup(uid) == ("late", "default")


def _pod(tmp_path: Path, pid: int, layout: str) -> tuple[Path, Path]:
    """Process ``pid`` in the pod of the cgroup file ``layout`` (as :func:`_proc`), and that
    pod's kubelet folder, made empty."""
    uid = CASES[layout]["pod_uid"]
    assert uid is not None
    pod_dir = tmp_path / "var" / "lib" / "kubelet" / "pods" / uid
    pod_dir.mkdir(parents=True)
    return _proc(tmp_path, pid, layout), pod_dir


@pytest.mark.parametrize(
    ("hosts", "want"),
    [
        ("etc-hosts", ("llama-finetune-7b9c4", None)),
        ("etc-hosts-subdomain", ("trainer-0", "ml-team")),
    ],
)
def test_pod_name_from_the_kubelet_hosts_file(
    tmp_path: Path, hosts: str, want: tuple[str | None, str | None]
) -> None:
    layout = "k8s-containerd-v1.cgroup"
    proc, pod_dir = _pod(tmp_path, 77, layout)
    shutil.copyfile(DATA / hosts, pod_dir / "etc-hosts")
    got = ContainerResolver(proc_root=str(proc), root=str(tmp_path)).placement(77)
    assert (got.pod_name, got.pod_namespace) == want
    assert got.container_id == CASES[layout]["container_id"]


def test_unreadable_kubelet_files_leave_the_pod_unnamed(tmp_path: Path) -> None:
    layout = "k8s-crio-v2-systemd.cgroup"
    proc, pod_dir = _pod(tmp_path, 9, layout)
    # Hostile: random bytes (they once held a line that read as host "6g"), and a file that
    # looks like hosts but is not the kubelet's.
    (pod_dir / "etc-hosts").write_bytes(os.urandom(8192) + b"\n10.0.0.1 6g\n")
    (tmp_path / "var" / "log").mkdir(parents=True)
    (tmp_path / "var" / "log" / "pods").write_text("a file where a folder should be")
    got = ContainerResolver(proc_root=str(proc), root=str(tmp_path)).placement(9)
    assert got.pod_uid == CASES[layout]["pod_uid"]
    assert got.container_id == CASES[layout]["container_id"]
    assert (got.pod_name, got.pod_namespace) == (None, None)


def test_only_the_kubelets_hosts_file_and_address_lines_name_a_pod() -> None:
    from gpuprof.telemetry.containers import _hosts_pod

    kubelet = "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"
    assert _hosts_pod(kubelet + "10.1.2.3\ttrainer-0\n") == ("trainer-0", None)
    assert _hosts_pod(kubelet + "garbage trainer-0\n") == (None, None)
    assert _hosts_pod("127.0.0.1 localhost\n10.1.2.3 trainer-0\n") == (None, None)


def test_a_process_in_no_container_or_gone_is_nowhere(tmp_path: Path) -> None:
    proc = _proc(tmp_path, 5, "host-v2.cgroup")
    resolver = ContainerResolver(proc_root=str(proc), root=str(tmp_path))
    assert resolver.placement(5) == Placement()
    assert resolver.placement(6) == Placement()  # no such pid
    (proc / "7").mkdir()
    (proc / "7" / "cgroup").mkdir()  # a folder where the file should be
    assert resolver.placement(7) == Placement()


def test_this_process_reads_without_error() -> None:
    got = ContainerResolver().placement(os.getpid())
    assert got.container_id is None or len(got.container_id) >= 12
