"""Which container, and which Kubernetes pod, a process runs in (``/proc/PID/cgroup``).

What is read:

* The container id: the runtime's hex id in the process's cgroup path, for cgroup v1 (a line
  per hierarchy) and v2 (the ``0::`` line). Docker (cgroupfs ``/docker/<id>``, systemd
  ``docker-<id>.scope``), containerd and the CRI (``cri-containerd-<id>.scope``; the kubelet's
  cgroupfs layout ``/kubepods/<qos>/pod<uid>/<id>``), CRI-O (``crio-<id>.scope``), podman
  (``libpod-<id>.scope``, rootless under ``user@UID.service``, and cgroupfs
  ``/libpod_parent/libpod-<id>``), nerdctl and ECS (a bare 64-hex folder). The deepest id wins
  (docker in docker); conmon's own scopes (``libpod-conmon-<id>``) are not the container.
* The pod uid: ``pod<uid>`` in the kubelet's cgroupfs layout, or
  ``kubepods-<qos>-pod<uid with _ for ->.slice`` with the systemd cgroup driver.
* The pod's name and namespace, where this machine can read them: the kubelet's log folders
  ``/var/log/pods/<namespace>_<name>_<uid>`` (one per pod on the node), else the kubelet's
  ``/var/lib/kubelet/pods/<uid>/etc-hosts``, whose last host line names the pod (its
  hostname, which is the pod name unless the pod sets ``spec.hostname``; with a subdomain the
  fully qualified name ``<host>.<subdomain>.<namespace>.svc...`` gives the namespace too).
  Both usually need root.

Not read: the kubelet's pod-resources gRPC socket (``/var/lib/kubelet/pod-resources``) needs a
gRPC client and answers with device assignments, not with the pod of a process; and a process
in another PID namespace than gpuprof's (gpuprof itself in a container) has no ``/proc`` entry
here. Reading never raises: anything unreadable or unexpected is ``None``.
"""

from __future__ import annotations

import ipaddress
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CgroupInfo", "ContainerResolver", "Placement", "PodDirectory", "parse_cgroup"]

#: The most of a cgroup or etc-hosts file read: real ones are a few hundred bytes.
_MAX_READ = 64 * 1024

# A runtime's scope or folder name: prefix, id, optional .scope. conmon is not the container.
_PREFIXED = re.compile(
    r"^(?P<runtime>docker|cri-containerd|containerd|crio|libpod|nerdctl)-(?P<id>[0-9a-f]{12,64})"
    r"(?:\.scope)?$"
)
_BARE = re.compile(r"^[0-9a-f]{64}$")
_RUNTIME = {
    "docker": "docker",
    "cri-containerd": "containerd",
    "containerd": "containerd",
    "crio": "cri-o",
    "libpod": "podman",
    "nerdctl": "containerd",
}
_UUID = r"[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}"
# Static pods have the hash of their manifest (32 hex) as uid.
_POD = re.compile(rf"pod(?P<uid>{_UUID}|[0-9a-f]{{32}})(?:\.slice)?$")
# Names and namespaces are DNS labels / subdomains: lowercase letters, digits, '-' and '.'.
_DNS_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


@dataclass(frozen=True, slots=True)
class CgroupInfo:
    """What a cgroup file says: the container id (full hex), its runtime, the pod uid."""

    container_id: str | None = None
    runtime: str | None = None
    pod_uid: str | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a process runs: container id, pod uid, and the pod's name and namespace."""

    container_id: str | None = None
    pod_uid: str | None = None
    pod_name: str | None = None
    pod_namespace: str | None = None


NOWHERE = Placement()


def _container_in(path: str) -> tuple[str, str | None] | None:
    """(id, runtime) of the deepest container folder in one cgroup path."""
    parts = path.split("/")
    for i in range(len(parts) - 1, 0, -1):
        part = parts[i]
        m = _PREFIXED.match(part)
        if m is not None:
            return m.group("id"), _RUNTIME[m.group("runtime")]
        if _BARE.match(part):
            return part, "docker" if parts[i - 1] == "docker" else None
    return None


def _pod_in(path: str) -> str | None:
    if "kubepods" not in path:
        return None
    for part in reversed(path.split("/")):
        m = _POD.search(part)
        if m is not None:
            return m.group("uid").replace("_", "-")
    return None


def parse_cgroup(text: str) -> CgroupInfo:
    """The container and pod in ``/proc/PID/cgroup`` text (v1, v2 or hybrid); empty
    :class:`CgroupInfo` for a process in no container, or for text that is not a cgroup file."""
    found: tuple[str, str | None] | None = None
    pod: str | None = None
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/"):
            continue
        path = parts[2].strip()
        if found is None:
            found = _container_in(path)
        if pod is None:
            pod = _pod_in(path)
        if found is not None and pod is not None:
            break
    if found is None:
        return CgroupInfo(pod_uid=pod)
    return CgroupInfo(container_id=found[0], runtime=found[1], pod_uid=pod)


def _read_text(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_READ)
    except (OSError, ValueError):
        return None
    return data.decode("utf-8", "replace")


def _hosts_pod(text: str) -> tuple[str | None, str | None]:
    """(name, namespace) from a kubelet-managed etc-hosts: the pod's own line is the last
    host line before the HostAliases section."""
    # Only the kubelet's own file, and only lines that start with an address: anything else
    # (a damaged or foreign file) must not name a pod.
    if not text.lstrip().startswith("# Kubernetes-managed hosts file"):
        return None, None
    own: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("# Entries added by HostAliases"):
            break
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        try:
            ipaddress.ip_address(fields[0])
        except ValueError:
            continue
        names = fields[1:]
        if names and not any(n == "localhost" or n.startswith("ip6-") for n in names):
            own = names
    if not own:
        return None, None
    short = own[-1] if _DNS_NAME.match(own[-1]) and "." not in own[-1] else None
    namespace = None
    fqdn = next((n for n in own if ".svc." in n), None)
    if fqdn is not None:
        labels = fqdn.split(".")
        svc = labels.index("svc")
        if svc >= 1 and _DNS_NAME.match(labels[svc - 1]):
            namespace = labels[svc - 1]
        short = short or (labels[0] if _DNS_NAME.match(labels[0]) else None)
    return short, namespace


class PodDirectory:
    """Pod uid -> (name, namespace) from what the kubelet leaves on this node (see the module
    docstring). ``root`` is the file system root (tests pass a folder). The log folders are
    listed again, at most every ``refresh_s`` seconds, when an unknown uid is asked for."""

    def __init__(
        self,
        root: str = "/",
        *,
        refresh_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._root = root
        self._refresh_s = refresh_s
        self._clock = clock
        self._lock = threading.Lock()
        self._by_uid: dict[str, tuple[str, str]] = {}
        self._listed_at: float | None = None

    def _list_logs(self) -> None:
        folder = os.path.join(self._root, "var", "log", "pods")
        try:
            entries = os.listdir(folder)
        except (OSError, ValueError):
            return
        by_uid: dict[str, tuple[str, str]] = {}
        for entry in entries:
            parts = entry.split("_")
            if len(parts) != 3:
                continue
            namespace, name, uid = parts
            if _DNS_NAME.match(namespace) and _DNS_NAME.match(name) and uid:
                by_uid[uid.lower()] = (name, namespace)
        self._by_uid = by_uid

    def lookup(self, uid: str) -> tuple[str | None, str | None]:
        """(name, namespace) of the pod, each ``None`` where this machine cannot tell."""
        uid = uid.lower()
        with self._lock:
            known = self._by_uid.get(uid)
            now = self._clock()
            if known is None and (
                self._listed_at is None or now - self._listed_at >= self._refresh_s
            ):
                self._listed_at = now
                self._list_logs()
                known = self._by_uid.get(uid)
        if known is not None:
            return known
        if not re.fullmatch(r"[0-9a-f-]{32,36}", uid):
            return None, None
        hosts = _read_text(
            os.path.join(self._root, "var", "lib", "kubelet", "pods", uid, "etc-hosts")
        )
        return _hosts_pod(hosts) if hosts else (None, None)


class ContainerResolver:
    """The :class:`Placement` of a pid: read once per process by the process-facts cache.

    ``proc_root`` and ``root`` are ``/proc`` and ``/`` (tests pass folders of recorded files).
    """

    def __init__(
        self,
        *,
        proc_root: str = "/proc",
        root: str = "/",
        pods: PodDirectory | None = None,
    ) -> None:
        self._proc_root = proc_root
        self.pods = pods if pods is not None else PodDirectory(root)

    def placement(self, pid: int) -> Placement:
        text = _read_text(os.path.join(self._proc_root, str(int(pid)), "cgroup"))
        if not text:
            return NOWHERE
        info = parse_cgroup(text)
        if info.container_id is None and info.pod_uid is None:
            return NOWHERE
        name = namespace = None
        if info.pod_uid is not None:
            name, namespace = self.pods.lookup(info.pod_uid)
        return Placement(info.container_id, info.pod_uid, name, namespace)
