"""SessionStore and codec: exact round-trip, kill -9 durability, broken files, CSV export."""

from __future__ import annotations

import csv
import dataclasses
import enum
import os
import signal
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

import pytest

from gpuprof.errors import InputError, OutputError
from gpuprof.telemetry import codec, model
from gpuprof.telemetry.model import (
    GPU_NUMERIC_FIELDS,
    DeviceInfo,
    GpuSample,
    HostSample,
    Snapshot,
    SourceKind,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.sources import SimulatedSource
from gpuprof.telemetry.store import SCHEMA_VERSION, SessionStore, export_csv
from tests.helpers.sqlite import execute

REPO = Path(__file__).resolve().parents[1]


def _value_for(tp: typing.Any, seed: int) -> typing.Any:
    """A non-default value of type ``tp`` (every field differs from its default)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return _value_for(next(a for a in args if a is not type(None)), seed)
    if tp is bool:
        return True
    if tp is int:
        return 1_000_003 * seed + 7
    if tp is float:
        return 0.1 + seed * 1.0000001
    if tp is str:
        return f"värde-{seed} <&>"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        members = list(tp)
        return (
            members[seed % len(members)]
            if members[seed % len(members)] != members[0]
            else members[-1]
        )
    if dataclasses.is_dataclass(tp):
        return _full_instance(tp, seed)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value_for(args[0], seed + k) for k in range(2))
        return tuple(_value_for(a, seed + k) for k, a in enumerate(args))
    raise AssertionError(f"no test value for {tp!r}")


def _full_instance(cls: type, seed: int = 1) -> typing.Any:
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for k, f in enumerate(dataclasses.fields(cls)):
        value = _value_for(hints[f.name], seed + k)
        if value is True and f.default is True:
            value = False
        kwargs[f.name] = value
    return cls(**kwargs)


MODEL_CLASSES = [
    getattr(model, name) for name in model.__all__ if dataclasses.is_dataclass(getattr(model, name))
]


@pytest.mark.parametrize("cls", MODEL_CLASSES, ids=lambda c: c.__name__)
def test_codec_round_trips_every_model_class_exactly(cls: type) -> None:
    full = _full_instance(cls)
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            assert getattr(full, f.name) != f.default, (
                f"{cls.__name__}.{f.name} test value is the default"
            )
    back = codec.loads(cls, codec.dumps(full))
    assert back == full
    assert type(back) is cls
    # Minimal instances (defaults omitted on the wire) round-trip too.
    required = {
        f.name: _value_for(typing.get_type_hints(cls)[f.name], 3)
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    minimal = cls(**required)
    assert codec.loads(cls, codec.dumps(minimal)) == minimal


def test_codec_keeps_types_enums_tuples_and_nan() -> None:
    snap = _full_instance(Snapshot)
    back = codec.loads(Snapshot, codec.dumps(snap))
    assert isinstance(back.source, SourceKind)
    assert isinstance(back.gpus, tuple) and isinstance(back.gpus[0].nvlinks, tuple)
    assert isinstance(back.host.temps_c[0], tuple)
    assert isinstance(back.status.state, model.SourceState)
    g = GpuSample(index=0, power_w=float("nan"))
    assert str(codec.loads(GpuSample, codec.dumps(g)).power_w) == "nan"
    # Unknown keys from a newer writer are ignored.
    assert codec.from_jsonable(GpuSample, {"index": 2, "future_field": 1}) == GpuSample(index=2)


def test_store_round_trips_every_field(tmp_path: Path) -> None:
    snaps = [
        dataclasses.replace(_full_instance(Snapshot, seed=s), time_s=1000.0 + s)
        for s in range(1, 6)
    ]
    info = _full_instance(SystemInfo)
    devices = (_full_instance(DeviceInfo, 1), _full_instance(DeviceInfo, 2))
    topo = Topology(gpu_indices=(0, 1), matrix=(("X", "NV18"), ("NV18", None)))
    path = tmp_path / "s.gpuprof"
    with SessionStore.create(
        path,
        system_info=info,
        devices=devices,
        topology=topo,
        source_kind=SourceKind.SIMULATED,
        meta={"note": "ü"},
    ) as st:
        for s in snaps:
            st.append(s)
    with SessionStore.open(path) as st:
        assert st.schema_version == SCHEMA_VERSION
        assert st.source_kind is SourceKind.SIMULATED
        assert st.meta == {"note": "ü"}
        assert st.system_info() == info
        assert st.devices() == devices
        assert st.topology() == topo
        assert st.count() == 5
        assert st.time_range() == (1001.0, 1005.0)
        assert list(st.snapshots()) == snaps
        assert list(st.snapshots(1002.0, 1004.0)) == snaps[1:4]
        assert st.snapshot_at(1003.5) == snaps[2]
        assert st.snapshot_at(1000.0) is None
        assert st.snapshot_at(9999.0) == snaps[-1]
        with pytest.raises(InputError, match="read-only"):
            st.append(snaps[0])


def test_store_from_source_and_existing_file(tmp_path: Path) -> None:
    src = SimulatedSource("h100x8", seed=3, clock=lambda: 1_700_000_000.0)
    path = tmp_path / "a.gpuprof"
    SessionStore.create(path, source=src).close()
    with pytest.raises(InputError, match="exists"):
        SessionStore.create(path, source=src)
    with SessionStore.create(path, source=src, overwrite=True) as st:
        st.append(src.poll())
    with SessionStore.open(path) as st:
        assert st.devices() == src.devices()
        assert st.topology().link(0, 7) == "NV18"
        assert st.label.startswith("SIMULATED")
        assert next(st.snapshots()).gpus[0].nvlinks[17].remote_type == "switch"


_RECORDER = textwrap.dedent(
    """
    import sys, time
    from gpuprof.telemetry.sources import SimulatedSource
    from gpuprof.telemetry.store import SessionStore
    src = SimulatedSource("h100x8", seed=0)
    st = SessionStore.create(sys.argv[1], source=src)
    while True:
        snap = src.poll()
        st.append(snap)
        print(repr(snap.time_s), flush=True)
        time.sleep(0.1)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.slow
def test_kill_9_loses_at_most_about_a_second(tmp_path: Path) -> None:
    path = tmp_path / "killed.gpuprof"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-c", _RECORDER, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    appended: list[float] = []
    try:
        for line in proc.stdout:
            appended.append(float(line))
            if len(appended) >= 25:
                break
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    appended.extend(float(line) for line in proc.stdout.read().split())
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert Path(str(path) + "-wal").exists(), "killed before a clean close"
    with SessionStore.open(path) as st:
        rng = st.time_range()
        assert rng is not None
        assert rng[0] == appended[0]
        assert appended[-1] - rng[1] <= 1.2, "lost more than about a second"
        assert st.count() >= len([t for t in appended if t <= appended[-1] - 1.2])
        assert all(s.source is SourceKind.SIMULATED for s in st.snapshots())


def _good_file(tmp_path: Path, n: int = 50) -> Path:
    path = tmp_path / "good.gpuprof"
    src = SimulatedSource("h100x8", seed=0, clock=iter(range(1000, 2000)).__next__)
    with SessionStore.create(path, source=src) as st:
        for _ in range(n):
            st.append(src.poll())
    return path


def test_missing_empty_garbage_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.gpuprof: no such file"):
        SessionStore.open(tmp_path / "nope.gpuprof")
    empty = tmp_path / "empty.gpuprof"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match=r"empty\.gpuprof: empty file"):
        SessionStore.open(empty)
    junk = tmp_path / "junk.gpuprof"
    junk.write_bytes(os.urandom(5000))
    with pytest.raises(InputError, match=r"junk\.gpuprof: not a gpuprof session \(not an SQLite"):
        SessionStore.open(junk)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(InputError, match=r"notes\.txt"):
        SessionStore.open(text)
    with pytest.raises(InputError, match="directory"):
        SessionStore.open(tmp_path)


@pytest.mark.slow
def test_truncated_file(tmp_path: Path) -> None:
    path = _good_file(tmp_path, 200)
    data = path.read_bytes()
    assert len(data) > 8192
    cut = tmp_path / "cut.gpuprof"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"cut\.gpuprof: truncated"):
        SessionStore.open(cut)
    tiny = tmp_path / "tiny.gpuprof"
    tiny.write_bytes(data[:60])
    with pytest.raises(InputError, match=r"tiny\.gpuprof: truncated"):
        SessionStore.open(tiny)


@pytest.mark.slow
def test_corrupt_pages(tmp_path: Path) -> None:
    path = _good_file(tmp_path, 200)
    data = bytearray(path.read_bytes())
    # Overwrite the middle pages (keep the header so that it still looks like SQLite).
    mid = len(data) // 2
    data[mid : mid + 8192] = os.urandom(8192)
    bad = tmp_path / "bad.gpuprof"
    bad.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"bad\.gpuprof: corrupt"):
        st = SessionStore.open(bad)
        list(st.snapshots())


def test_other_sqlite_and_other_schema_version(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    execute(other, "CREATE TABLE t(x)")
    with pytest.raises(InputError, match=r"other\.db: not a gpuprof session"):
        SessionStore.open(other)
    path = _good_file(tmp_path, 3)
    execute(path, f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(
        InputError, match=rf"good\.gpuprof: session schema version {SCHEMA_VERSION + 1}"
    ):
        SessionStore.open(path)


def test_export_csv(tmp_path: Path) -> None:
    path = _good_file(tmp_path, 4)
    out = tmp_path / "out.csv"
    with SessionStore.open(path) as st:
        written = export_csv(st, out)
        snaps = list(st.snapshots())
    assert (written.samples, written.rows) == (4, 4 * 8)
    with out.open(newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == 32
    header = list(table[0])
    assert header[:4] == ["time_s", "time_utc", "source", "gpu_index"]
    assert "power_w" in header and "clock_sm_mhz" in header and "mem_used_bytes" in header
    assert set(GPU_NUMERIC_FIELDS) <= set(header)
    first = table[9]  # snapshot 1, GPU 1
    g = snaps[1].gpus[1]
    assert float(first["time_s"]) == snaps[1].time_s
    assert int(first["gpu_index"]) == 1
    assert float(first["power_w"]) == g.power_w
    assert first["source"] == "simulated"
    assert first["temp_mem_c"] != ""
    with (
        pytest.raises(OutputError, match=r"cannot write .*x\.csv: No such file"),
        SessionStore.open(path) as st,
    ):
        export_csv(st, tmp_path / "no-such-dir" / "x.csv")


def test_host_only_snapshot_round_trip(tmp_path: Path) -> None:
    snap = Snapshot(time_s=5.0, source=SourceKind.NONE, host=HostSample(cpu_pct=3.0))
    with SessionStore.create(tmp_path / "h.gpuprof", source_kind=SourceKind.NONE) as st:
        st.append(snap)
        st.flush()
    with SessionStore.open(tmp_path / "h.gpuprof") as st:
        assert st.snapshot_at(5.0) == snap
        assert st.source_kind is SourceKind.NONE
