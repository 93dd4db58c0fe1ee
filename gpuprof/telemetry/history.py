"""Fixed-memory ring buffers of telemetry, with min/max-decimated levels for plotting.

History keeps, per GPU and for the host, one float32 ring of each numeric field, plus a small
pyramid of min/max levels (buckets of 16, 256 and 4096 samples) updated as samples arrive. A plot of
any window asks :meth:`History.gpu_series` with ``max_points`` of about 2 per pixel column and gets
min and max per bucket, interleaved and time-ordered, reading at most ~16 level entries per
returned bucket instead of every sample (DESIGN.md, Known traps: redraw cost is in points).
The rings, their levels and the windowed reads are in :mod:`gpuprof.telemetry.rings`; this
module adds snapshots, GPU presence, throttle reasons and the views built on them.

Memory is fixed at construction per GPU seen: ``fields × capacity × 4 bytes × ~1.13``; 8 GPUs ×
24 h at 1 Hz with the default fields is about 148 MB (``perf/sampler_history.py`` prints it).

Vendor fields (``VENDOR_NUMERIC_FIELDS``, AMD's) get no rings of their own: 8 GPUs × 24 h would
pass the 150 MB budget. Three of them share the ring of the NVML field a GPU of theirs never
reports (:data:`SHARED_RINGS`): an MI300X has no edge sensor, so its ``temp_gpu_c`` ring holds
its junction temperature (``temp_hotspot_c``); an AMD GPU has XGMI, not NVLink, so the NVLink
rings hold its XGMI read/write. Which of the pair a GPU's ring holds is decided, per GPU, by the
first sample that reports either of them (the NVML field wins a tie) and kept: a GPU with both
an edge and a junction sensor (MI250X) keeps its edge temperature. Reads by field name return
each field's own values only, NaN for the other of the pair (a junction temperature never reads
as edge); :meth:`History.stored_field` says which one a GPU's ring holds, for labels.

Only the latest :class:`Snapshot` is kept as an object; everything else lives in numpy arrays.
Times are Unix seconds and must not go backwards: a step back of more than
:data:`BACKWARD_RESET_S` (a replay seek, a clock jump) clears the history, a smaller one (NTP
slew) is stored at the previous time.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

import numpy as np

from gpuprof.telemetry.model import (
    GPU_NUMERIC_FIELDS,
    HOST_NUMERIC_FIELDS,
    GpuSample,
    HostSample,
    Snapshot,
)
from gpuprof.telemetry.rings import LEVEL_FACTORS, Block, SampleRing, _Channel, _empty_rows

__all__ = ["BACKWARD_RESET_S", "LEVEL_FACTORS", "SHARED_RINGS", "Block", "History"]

#: NVML field -> the vendor field that may use its ring on a GPU that never reports the NVML
#: one (see the module's docstring): junction for edge temperature, XGMI for NVLink.
SHARED_RINGS: dict[str, str] = {
    "temp_gpu_c": "temp_hotspot_c",
    "nvlink_rx_bytes_s": "xgmi_read_bytes_s",
    "nvlink_tx_bytes_s": "xgmi_write_bytes_s",
}

#: What :meth:`History.load_before` takes over from its scratch History: every sample's state.
_CONTENT = (
    "_times",
    "_n",
    "_bucket_cache",
    "_host",
    "_gpus",
    "_state",
    "_reason",
    "_row_names",
    "_undecided",
    "_reason_sets",
    "_reason_ids",
    "_latest",
    "_lost",
)

#: A snapshot older than the newest by more than this clears the history (seek or clock jump).
BACKWARD_RESET_S = 5.0

# Per-sample state of a GPU slot.
_ABSENT, _PRESENT, _LOST = 0, 1, 2

FloatArray = np.ndarray

#: GPU fields declared as integers: rebuilt samples give them back as ints.
_INT_GPU_FIELDS = frozenset(
    name
    for name in GPU_NUMERIC_FIELDS
    if str(GpuSample.__annotations__.get(name, "")).startswith("int")
)


class History(SampleRing):
    """Thread-safe ring buffers of every numeric GPU and host field, with decimated views."""

    def __init__(
        self,
        *,
        capacity: int = 86_400,
        gpu_fields: tuple[str, ...] = GPU_NUMERIC_FIELDS,
        host_fields: tuple[str, ...] = HOST_NUMERIC_FIELDS,
    ) -> None:
        if capacity < 2:
            raise ValueError(f"History capacity must be at least 2 samples, got {capacity}")
        self._lock = threading.RLock()
        self.gpu_fields = tuple(gpu_fields)
        self.host_fields = tuple(host_fields)
        self._gpu_field_index = {name: i for i, name in enumerate(self.gpu_fields)}
        # The shared rings this History keeps, and every field name a GPU read may ask for.
        self._shared = {k: v for k, v in SHARED_RINGS.items() if k in self._gpu_field_index}
        self._gpu_read_index = dict(self._gpu_field_index)
        self._gpu_read_index.update(
            {alt: self._gpu_field_index[base] for base, alt in self._shared.items()}
        )
        self._host_field_index = {name: i for i, name in enumerate(self.host_fields)}
        for name in self.gpu_fields:
            if not hasattr(GpuSample, name):
                raise ValueError(f"unknown GPU field {name!r}")
        for name in self.host_fields:
            if not hasattr(HostSample, name):
                raise ValueError(f"unknown host field {name!r}")
        super().__init__(capacity)  # the times ring, sequence numbers and the bucket cache
        self._version = 0  # bumps on every append and clear: "has anything changed?"
        self._init_content()

    def _init_content(self) -> None:
        """Empty rings, no GPU slots, no decisions (creation and :meth:`reset`)."""
        self._n = 0
        self._times.fill(0.0)
        self._bucket_cache.clear()
        self._host = _Channel(len(self.host_fields), self.capacity)
        self._gpus: dict[int, _Channel] = {}
        self._state: dict[int, np.ndarray] = {}  # uint8 per sample: absent / present / lost
        self._reason: dict[int, np.ndarray] = {}  # uint16 per sample: index into _reason_sets
        # Per GPU: the field each ring holds (a vendor field in a shared ring), and the shared
        # rings not yet decided (no sample reported either field of the pair).
        self._row_names: dict[int, tuple[str, ...]] = {}
        self._undecided: dict[int, tuple[str, ...]] = {}
        self._reason_sets: list[tuple[str, ...]] = [()]
        self._reason_ids: dict[tuple[str, ...], int] = {(): 0}
        self._latest: Snapshot | None = None
        self._lost: set[int] = set()

    # -- writing ---------------------------------------------------------------------------

    def append(self, snap: Snapshot) -> None:
        """Add one snapshot (called from the sampler thread)."""
        with self._lock:
            self._append_locked(snap)

    def _append_locked(self, snap: Snapshot) -> None:
        t = float(snap.time_s)
        if self._n:
            last = float(self._times[(self._n - 1) % self.capacity])
            if t < last - BACKWARD_RESET_S:
                self._clear_locked()
            elif t < last:
                t = last
        seq = self._n
        pos = seq % self.capacity
        self._times[pos] = t
        self._host.write(seq, self._row(snap.host, self.host_fields))
        seen: set[int] = set()
        for g in snap.gpus:
            ch = self._gpus.get(g.index)
            if ch is None:
                ch = self._add_gpu(g.index)
            seen.add(g.index)
            names = self._row_names[g.index]
            if self._undecided[g.index]:
                names = self._decide(g)
            ch.write(seq, self._row(g, names))
            self._state[g.index][pos] = _LOST if g.lost else _PRESENT
            self._reason[g.index][pos] = self._reason_id(g.throttle_reasons)
            if g.lost:
                self._lost.add(g.index)
            else:
                self._lost.discard(g.index)
        nan_row = None
        for index, ch in self._gpus.items():
            if index in seen:
                continue
            if nan_row is None:
                nan_row = np.full(len(self.gpu_fields), np.nan, dtype=np.float32)
            ch.write(seq, nan_row)
            self._state[index][pos] = _ABSENT
            self._reason[index][pos] = 0
        self._lost.update(i for i in snap.status.lost_gpus)
        self._latest = snap
        self._n = seq + 1
        self._version += 1

    def _add_gpu(self, index: int) -> _Channel:
        ch = _Channel(len(self.gpu_fields), self.capacity)
        self._gpus[index] = ch
        self._state[index] = np.zeros(self.capacity, dtype=np.uint8)
        self._reason[index] = np.zeros(self.capacity, dtype=np.uint16)
        self._row_names[index] = self.gpu_fields
        self._undecided[index] = tuple(self._shared)
        return ch

    def _decide(self, g: GpuSample) -> tuple[str, ...]:
        """Give each undecided shared ring of ``g``'s GPU to the field of the pair that ``g``
        reports (the NVML one first); returns the GPU's row names."""
        names = list(self._row_names[g.index])
        left: list[str] = []
        for base in self._undecided[g.index]:
            alt = self._shared[base]
            if getattr(g, base) is None and getattr(g, alt) is not None:
                names[self._gpu_field_index[base]] = alt
            elif getattr(g, base) is None:
                left.append(base)
        self._row_names[g.index] = tuple(names)
        self._undecided[g.index] = tuple(left)
        return self._row_names[g.index]

    def stored_field(self, gpu_index: int, field: str) -> str:
        """The field whose values ``field``'s ring holds for this GPU: ``field`` itself, or the
        vendor field sharing it (:data:`SHARED_RINGS`: ``temp_hotspot_c`` in ``temp_gpu_c``'s
        ring on a GPU with no edge sensor, XGMI in NVLink's on AMD GPUs)."""
        with self._lock:
            names = self._row_names.get(gpu_index)
            fi = self._gpu_field_index.get(field)
            return field if names is None or fi is None else names[fi]

    def _reason_id(self, reasons: tuple[str, ...]) -> int:
        rid = self._reason_ids.get(reasons)
        if rid is None:
            if len(self._reason_sets) >= np.iinfo(np.uint16).max:
                rid = self._reason_ids.get(("other",), 0)
            else:
                rid = len(self._reason_sets)
                self._reason_sets.append(reasons)
                self._reason_ids[reasons] = rid
        return rid

    @staticmethod
    def _row(sample: object, names: Sequence[str]) -> np.ndarray:
        row = np.empty(len(names), dtype=np.float32)
        for i, name in enumerate(names):
            v = getattr(sample, name)
            row[i] = np.nan if v is None else v
        return row

    def clear(self) -> None:
        """Forget every sample (the GPU slots stay allocated)."""
        with self._lock:
            self._clear_locked()

    def reset(self) -> None:
        """Forget every sample and every GPU (a new source): as freshly made, same capacity
        and fields; :attr:`version` still moves on."""
        with self._lock:
            self._init_content()
            self._version += 1

    def consistent(self) -> threading.RLock:
        """A ``with`` block in which no append lands: several reads of one state."""
        return self._lock

    def load_before(self, snapshots: Sequence[Snapshot]) -> int:
        """Put ``snapshots`` (earlier ones of the same source, a demo's past) before the samples
        kept now, which stay as they are; returns how many went in. Those not older than the
        oldest kept sample are left out; beyond ``capacity`` the oldest go.

        The earlier ones go into a scratch History first, without this one's lock (readers
        and appends go on); the lock is held only to copy the kept rows after them and take
        the scratch's rings."""
        snaps = sorted(snapshots, key=lambda s: s.time_s)
        with self._lock:
            rng = self.time_range()
            names = {i: (self._row_names[i], self._undecided[i]) for i in self._gpus}
        earlier = [s for s in snaps if rng is None or s.time_s < rng[0]]
        if not earlier:
            return 0
        scratch = self._scratch(names)
        for snap in earlier:
            scratch._append_locked(snap)
        with self._lock:
            now = self.time_range()
            if now is not None and (rng is None or now[0] != rng[0]):
                # Samples came or went meanwhile at the old end (a first poll, a wrap): again,
                # against what is kept now.
                earlier = [s for s in earlier if s.time_s < now[0]]
                scratch = self._scratch(
                    {i: (self._row_names[i], self._undecided[i]) for i in self._gpus}
                )
                for snap in earlier:
                    scratch._append_locked(snap)
            kept = self._kept_rows()
            for index in self._gpus:  # a GPU that appeared meanwhile: absent in the past
                if index not in scratch._gpus:
                    scratch._add_gpu(index)
                    scratch._row_names[index] = self._row_names[index]
                    scratch._undecided[index] = self._undecided[index]
            scratch._write_rows(*kept)
            latest, lost = self._latest, self._lost
            for name in _CONTENT:
                setattr(self, name, getattr(scratch, name))
            if kept[0].size:
                self._latest, self._lost = latest, lost
            self._version += 1
            return len(earlier)

    def _scratch(self, names: dict[int, tuple[tuple[str, ...], tuple[str, ...]]]) -> History:
        """An empty History like this one whose GPUs' shared rings hold what ``names`` say."""
        scratch = History(
            capacity=self.capacity, gpu_fields=self.gpu_fields, host_fields=self.host_fields
        )
        for index, (row_names, undecided) in names.items():
            scratch._add_gpu(index)
            scratch._row_names[index] = row_names
            scratch._undecided[index] = undecided
        return scratch

    def _kept_rows(
        self,
    ) -> tuple[
        np.ndarray, np.ndarray, dict[int, tuple[np.ndarray, np.ndarray, list[tuple[str, ...]]]]
    ]:
        """Copies of every kept sample: times, host rows, and per GPU its rows, states and
        throttle reason names (for :meth:`load_before`)."""
        first = max(0, self._n - self.capacity)
        idx = self._ring_indices(first, self._n)
        gpus = {
            index: (
                ch.values[:, idx].copy(),
                self._state[index][idx].copy(),
                [self._reason_sets[int(c)] for c in self._reason[index][idx]],
            )
            for index, ch in self._gpus.items()
        }
        return self._times[idx].copy(), self._host.values[:, idx].copy(), gpus

    def _write_rows(
        self,
        times: np.ndarray,
        host: np.ndarray,
        gpus: dict[int, tuple[np.ndarray, np.ndarray, list[tuple[str, ...]]]],
    ) -> None:
        """Append rows copied by :meth:`_kept_rows` after what History holds."""
        nan_row: np.ndarray | None = None
        for k in range(times.size):
            seq = self._n
            pos = seq % self.capacity
            last = float(self._times[(seq - 1) % self.capacity]) if seq else -math.inf
            self._times[pos] = max(float(times[k]), last)
            self._host.write(seq, host[:, k])
            for index, ch in self._gpus.items():
                rows = gpus.get(index)
                if rows is None:  # a GPU only the earlier snapshots had
                    if nan_row is None:
                        nan_row = np.full(len(self.gpu_fields), np.nan, dtype=np.float32)
                    ch.write(seq, nan_row)
                    self._state[index][pos] = _ABSENT
                    self._reason[index][pos] = 0
                    continue
                values, states, reasons = rows
                ch.write(seq, values[:, k])
                self._state[index][pos] = states[k]
                self._reason[index][pos] = self._reason_id(reasons[k])
            self._n = seq + 1

    def _clear_locked(self) -> None:
        self._n = 0
        self._version += 1
        self._bucket_cache.clear()
        self._latest = None
        self._lost.clear()
        self._host.clear()
        for index, ch in self._gpus.items():
            ch.clear()
            self._state[index].fill(_ABSENT)
            self._reason[index].fill(0)

    # -- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return min(self._n, self.capacity)

    @property
    def gpu_indices(self) -> tuple[int, ...]:
        """Every GPU index seen since creation, sorted."""
        with self._lock:
            return tuple(sorted(self._gpus))

    def latest(self) -> Snapshot | None:
        return self._latest

    @property
    def version(self) -> int:
        """A number that changes whenever the content changes (an append or a clear)."""
        return self._version

    def lost_gpus(self) -> tuple[int, ...]:
        """GPU indices whose latest sample (or source status) said the device is lost."""
        with self._lock:
            return tuple(sorted(self._lost))

    @property
    def nbytes(self) -> int:
        """Bytes held by the numpy buffers (grows by one GPU slot when a new GPU appears)."""
        with self._lock:
            total = self._times.nbytes + self._host.nbytes
            for index, ch in self._gpus.items():
                total += ch.nbytes + self._state[index].nbytes + self._reason[index].nbytes
            return int(total)

    @staticmethod
    def estimate_nbytes(
        n_gpus: int,
        capacity: int = 86_400,
        n_gpu_fields: int = len(GPU_NUMERIC_FIELDS),
        n_host_fields: int = len(HOST_NUMERIC_FIELDS),
    ) -> int:
        """What :attr:`nbytes` will be once ``n_gpus`` GPUs have been seen."""

        def channel(n_fields: int) -> int:
            levels = sum(2 * (capacity // f + 2) for f in LEVEL_FACTORS)
            return 4 * n_fields * (capacity + levels)

        return (
            8 * capacity + channel(n_host_fields) + n_gpus * (channel(n_gpu_fields) + 3 * capacity)
        )

    def time_range(self) -> tuple[float, float] | None:
        """Unix seconds of the oldest and newest kept samples."""
        with self._lock:
            if not self._n:
                return None
            first = max(0, self._n - self.capacity)
            return (
                float(self._times[first % self.capacity]),
                float(self._times[(self._n - 1) % self.capacity]),
            )

    def gpu_series(
        self,
        gpu_index: int,
        field: str,
        t0: float | None = None,
        t1: float | None = None,
        max_points: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Times (Unix s) and values (float64, NaN where unsupported) of one GPU field.

        With ``max_points`` and more samples than that in ``[t0, t1]``, returns min and max per
        bucket, interleaved (min at the bucket's first sample time, max at its last), at most
        ``max_points`` points. Unknown GPU: empty arrays. Unknown field: ``KeyError``.
        """
        view = self.gpu_view(gpu_index, (field,), t0, t1, max_points)
        return view.t_s, view.values[0]

    def host_series(
        self,
        field: str,
        t0: float | None = None,
        t1: float | None = None,
        max_points: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Like :meth:`gpu_series`, for a host field (``cpu_pct``, ``net_rx_bytes_s``, ...)."""
        view = self.host_view((field,), t0, t1, max_points)
        return view.t_s, view.values[0]

    def gpu_view(
        self,
        gpu_index: int,
        fields: Sequence[str],
        t0: float | None = None,
        t1: float | None = None,
        max_points: int | None = None,
    ) -> Block:
        """Several fields of one GPU at once: times ``(n,)`` and values ``(len(fields), n)``,
        with the bucket size and how many leading points are final (:class:`Block`).

        Row ``i`` equals ``gpu_series(gpu_index, fields[i], t0, t1, max_points)[1]`` (the
        buckets are shared), at about the cost of one such call. Unknown GPU: ``n == 0``.
        Unknown field: ``KeyError``.
        """
        fis = self._field_rows(self._gpu_read_index, fields, "GPU")
        with self._lock:
            ch = self._gpus.get(gpu_index)
            if ch is None:
                return Block(*_empty_rows(len(fis)))
            view = self._block(ch, fis, t0, t1, max_points)
            names = self._row_names[gpu_index]
        # A shared ring answers only for the field it holds: NaN for the other of the pair.
        other = [i for i, (f, fi) in enumerate(zip(fields, fis, strict=True)) if names[fi] != f]
        if other and view.values.size:
            view.values[other] = np.nan  # a fresh array of this call's, not a cached one
        return view

    def host_view(
        self,
        fields: Sequence[str],
        t0: float | None = None,
        t1: float | None = None,
        max_points: int | None = None,
    ) -> Block:
        """Like :meth:`gpu_view`, for host fields."""
        fis = self._field_rows(self._host_field_index, fields, "host")
        with self._lock:
            return self._block(self._host, fis, t0, t1, max_points)

    @staticmethod
    def _field_rows(index: dict[str, int], fields: Sequence[str], what: str) -> np.ndarray:
        try:
            return np.array([index[f] for f in fields], dtype=np.intp)
        except KeyError as exc:
            raise KeyError(f"History does not keep {what} field {exc.args[0]!r}") from None

    def throttle_intervals(
        self, gpu_index: int, t0: float | None = None, t1: float | None = None
    ) -> list[tuple[float, float, tuple[str, ...]]]:
        """Contiguous episodes with any throttle reason: ``(start_s, end_s, reasons)``.

        ``end_s`` is the time of the first sample without throttling after the episode (or the
        newest sample when it is still going on); ``reasons`` is every name seen in the episode,
        in order of first appearance.
        """
        with self._lock:
            codes_ring = self._reason.get(gpu_index)
            if codes_ring is None or not self._n:
                return []
            s0, s1 = self._seq_window(t0, t1)
            if s1 <= s0:
                return []
            idx = self._ring_indices(s0, s1)
            codes = codes_ring[idx]
            times = self._times[idx]
            active = codes != 0
            if not active.any():
                return []
            edges = np.diff(active.astype(np.int8), prepend=0, append=0)
            starts = np.flatnonzero(edges == 1)
            ends = np.flatnonzero(edges == -1)  # exclusive
            last_seq = self._n - 1
            out: list[tuple[float, float, tuple[str, ...]]] = []
            for a, b in zip(starts, ends, strict=True):
                names: dict[str, None] = {}
                for code in dict.fromkeys(codes[a:b].tolist()):
                    for name in self._reason_sets[code]:
                        names[name] = None
                if b < len(idx):
                    end = float(times[b])
                elif s0 + b - 1 < last_seq:
                    end = float(self._times[(s0 + b) % self.capacity])
                else:
                    end = float(times[b - 1])
                out.append((float(times[a]), end, tuple(names)))
            return out

    def gpu_samples(
        self,
        gpu_index: int,
        t0: float | None = None,
        t1: float | None = None,
        *,
        last: int | None = None,
    ) -> list[tuple[float, GpuSample]]:
        """The kept samples of one GPU in ``[t0, t1]`` rebuilt as ``(time_s, GpuSample)``.

        Numeric fields, throttle reason names and ``lost`` come back (processes, ECC and other
        non-numeric fields do not); samples where the GPU was absent are skipped; at most the
        ``last`` newest. For checks that read samples (health findings on a report's window).
        """
        with self._lock:
            ch = self._gpus.get(gpu_index)
            if ch is None or not self._n:
                return []
            s0, s1 = self._seq_window(t0, t1)
            if last is not None:
                s0 = max(s0, s1 - int(last))
            if s1 <= s0:
                return []
            idx = self._ring_indices(s0, s1)
            times = self._times[idx]
            values = ch.values[:, idx]
            states = self._state[gpu_index][idx]
            codes = self._reason[gpu_index][idx]
            reason_sets = list(self._reason_sets)
            names = self._row_names[gpu_index]
        ints = _INT_GPU_FIELDS
        out: list[tuple[float, GpuSample]] = []
        for k in np.flatnonzero(states != _ABSENT).tolist():
            kwargs: dict[str, object] = {}
            for fi, name in enumerate(names):
                v = float(values[fi, k])
                if math.isfinite(v):
                    kwargs[name] = round(v) if name in ints else v
            sample = GpuSample(
                index=gpu_index,
                lost=bool(states[k] == _LOST),
                throttle_reasons=reason_sets[int(codes[k])],
                **kwargs,  # type: ignore[arg-type]
            )
            out.append((float(times[k]), sample))
        return out
