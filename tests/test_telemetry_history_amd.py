"""History on AMD GPUs (the fake amdsmi): the junction temperature of a GPU without an edge
sensor and the XGMI rates are kept in the rings NVML's edge temperature and NVLink use (no
new rings: 8 MI300X over 24 h stay under the 150 MB budget), and read back only under their
own names: a junction value never reads as edge."""

from __future__ import annotations

import math

import numpy as np

from gpuprof.telemetry.amd import AmdSmiSource
from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import GpuSample, HostSample, Snapshot, SourceKind
from tests.fakes.fake_amdsmi import BOXES, FakeAmdSmi


def _snapshots(box: str, n: int) -> list[Snapshot]:
    fake = FakeAmdSmi(BOXES[box]())
    source = AmdSmiSource(smi=fake, clock=fake.clock, wall_clock=fake.clock)
    out = []
    for _ in range(n):
        out.append(source.poll())
        fake.advance(1.0)
    source.close()
    return out


def _fill(h: History, snaps: list[Snapshot]) -> None:
    for s in snaps:
        h.append(s)


def test_eight_mi300x_for_24_h_stay_within_the_budget_and_keep_the_junction() -> None:
    h = History(capacity=86_400)
    snaps = _snapshots("mi300x8", 3)
    _fill(h, snaps)
    assert h.nbytes == History.estimate_nbytes(8, 86_400) < 150e6
    last = snaps[-1].gpus[5]
    assert last.temp_gpu_c is None and last.temp_hotspot_c is not None
    assert h.stored_field(5, "temp_gpu_c") == "temp_hotspot_c"
    assert h.stored_field(5, "nvlink_rx_bytes_s") == "xgmi_read_bytes_s"
    assert h.stored_field(5, "nvlink_tx_bytes_s") == "xgmi_write_bytes_s"
    _, junction = h.gpu_series(5, "temp_hotspot_c")
    assert junction[-1] == last.temp_hotspot_c
    _, edge = h.gpu_series(5, "temp_gpu_c")
    assert np.isnan(edge).all()  # the ring holds the junction: never read as edge
    _, read = h.gpu_series(5, "xgmi_read_bytes_s")
    assert last.xgmi_read_bytes_s and read[-1] == np.float32(last.xgmi_read_bytes_s)
    assert np.isnan(read[0])  # first sample: a rate needs two
    assert np.isnan(h.gpu_series(5, "nvlink_rx_bytes_s")[1]).all()


def test_a_block_and_a_decimated_view_answer_for_the_held_field_only() -> None:
    h = History(capacity=600)
    _fill(h, _snapshots("mi300x8", 120))
    view = h.gpu_view(0, ("temp_gpu_c", "temp_hotspot_c", "power_w"), max_points=20)
    t, v = view.t_s, view.values
    assert len(t) <= 20 and np.isnan(v[0]).all()
    assert np.isfinite(v[1]).all() and np.isfinite(v[2]).all()


def test_rebuilt_samples_carry_the_junction_under_its_own_name() -> None:
    h = History(capacity=100)
    snaps = _snapshots("mi300x8", 3)
    _fill(h, snaps)
    (_, rebuilt), *_ = h.gpu_samples(2, last=1)
    assert rebuilt.temp_gpu_c is None
    assert rebuilt.temp_hotspot_c == snaps[-1].gpus[2].temp_hotspot_c
    assert rebuilt.xgmi_write_bytes_s is not None and rebuilt.nvlink_tx_bytes_s is None


def test_a_gpu_with_an_edge_sensor_keeps_its_edge_temperature() -> None:
    h = History(capacity=100)
    snaps = _snapshots("mi250x2", 3)
    _fill(h, snaps)
    g = snaps[-1].gpus[0]
    assert g.temp_gpu_c is not None and g.temp_hotspot_c is not None
    assert h.stored_field(0, "temp_gpu_c") == "temp_gpu_c"
    assert h.gpu_series(0, "temp_gpu_c")[1][-1] == g.temp_gpu_c
    assert np.isnan(h.gpu_series(0, "temp_hotspot_c")[1]).all()  # not kept (no ring of its own)


def test_the_ring_goes_to_the_first_field_reported_and_stays() -> None:
    """Undecided while neither field is reported; then the NVML one wins a tie, and a later
    sample of the other field of the pair is not stored over it."""
    h = History(capacity=10)

    def snap(t: float, **kw: float | None) -> Snapshot:
        return Snapshot(t, SourceKind.NVML, HostSample(), (GpuSample(index=0, **kw),))  # type: ignore[arg-type]

    h.append(snap(1.0))
    assert h.stored_field(0, "temp_gpu_c") == "temp_gpu_c"  # undecided: its own (NaN) values
    h.append(snap(2.0, temp_gpu_c=50.0, temp_hotspot_c=70.0))
    h.append(snap(3.0, temp_hotspot_c=71.0))
    assert h.stored_field(0, "temp_gpu_c") == "temp_gpu_c"
    _, edge = h.gpu_series(0, "temp_gpu_c")
    assert math.isnan(edge[0]) and edge[1] == 50.0 and math.isnan(edge[2])
    assert h.stored_field(0, "unknown_field") == "unknown_field"
    assert h.stored_field(7, "temp_gpu_c") == "temp_gpu_c"  # a GPU never seen
