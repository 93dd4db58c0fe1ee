"""The rings under :class:`~gpuprof.telemetry.history.History`: sequence-numbered sample times,
one :class:`_Channel` of float32 rings per entity (a GPU, the host) with its min/max levels, and
the windowed reads: raw samples, or min and max per bucket taken from the levels (DESIGN.md,
Known traps: redraw cost is in points).

A read of ``[t0, t1]`` at ``max_points`` picks the coarsest level whose buckets still give about
``max_points / 2`` buckets, reduces ``k`` level entries per output bucket (buckets are aligned to
fixed sample numbers, so the complete ones are cached between frames), and takes the two partial
edge buckets from the raw ring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["LEVEL_FACTORS", "Block", "SampleRing"]

#: Bucket sizes (in samples) of the min/max levels kept beside the raw ring.
LEVEL_FACTORS: tuple[int, ...] = (16, 256, 4096)


@dataclass(frozen=True, eq=False)
class Block:
    """A (possibly decimated) view of several fields: what :meth:`History.gpu_view` returns.

    ``t_s`` is ``(n,)`` Unix seconds, ``values`` is ``(fields, n)`` float64 (NaN: unsupported or
    absent). ``bucket_samples`` is how many samples each min/max pair covers (1: raw samples).
    The first ``n_final`` points come from buckets aligned to fixed sample numbers that are
    complete: while ``bucket_samples`` stays the same, appends never change them, only the
    points after them (the newest, partial bucket), so a plot may draw them once and keep them.
    (The first bucket is cut at the window's start, so it changes when the start moves.)
    """

    t_s: np.ndarray
    values: np.ndarray
    bucket_samples: int = 1
    n_final: int = 0


class _Channel:
    """The rings of one entity (one GPU or the host): raw values and min/max levels."""

    __slots__ = ("capacity", "level_buckets", "levels_max", "levels_min", "values")

    def __init__(self, n_fields: int, capacity: int) -> None:
        self.capacity = capacity
        self.values = np.full((n_fields, capacity), np.nan, dtype=np.float32)
        # A level keeps every bucket that still overlaps the raw ring: capacity // f + 2.
        self.level_buckets = tuple(capacity // f + 2 for f in LEVEL_FACTORS)
        self.levels_min = [
            np.full((n_fields, nb), np.nan, dtype=np.float32) for nb in self.level_buckets
        ]
        self.levels_max = [
            np.full((n_fields, nb), np.nan, dtype=np.float32) for nb in self.level_buckets
        ]

    @property
    def nbytes(self) -> int:
        return int(
            self.values.nbytes
            + sum(a.nbytes for a in self.levels_min)
            + sum(a.nbytes for a in self.levels_max)
        )

    def write(self, seq: int, row: np.ndarray) -> None:
        """Store ``row`` (float32, one value per field) as sample number ``seq``."""
        self.values[:, seq % self.capacity] = row
        for lv, f in enumerate(LEVEL_FACTORS):
            b = (seq // f) % self.level_buckets[lv]
            lo, hi = self.levels_min[lv], self.levels_max[lv]
            if seq % f == 0:
                lo[:, b] = row
                hi[:, b] = row
            else:
                # fmin/fmax skip NaN, so a bucket is NaN only when all its samples are.
                lo[:, b] = np.fmin(lo[:, b], row)
                hi[:, b] = np.fmax(hi[:, b], row)

    def clear(self) -> None:
        self.values.fill(np.nan)
        for a in (*self.levels_min, *self.levels_max):
            a.fill(np.nan)


class SampleRing:
    """Sample times in a ring of ``capacity``, numbered by sequence (``_n`` is the next one), and
    the reads of a :class:`_Channel` over a window of time. Not locked: the owner
    (:class:`~gpuprof.telemetry.history.History`) holds its lock around every call."""

    def __init__(self, capacity: int) -> None:
        self.capacity = int(capacity)
        self._times = np.zeros(self.capacity, dtype=np.float64)
        self._n = 0  # samples appended since creation / clear (the next sequence number)
        # (channel, fields, bucket size) -> aligned [a, b) and its min/max: see _aligned_cached.
        self._bucket_cache: dict[
            tuple[int, bytes, int], tuple[int, int, np.ndarray, np.ndarray]
        ] = {}

    def _ring_indices(self, s0: int, s1: int) -> np.ndarray:
        return np.arange(s0, s1, dtype=np.int64) % self.capacity

    def _seq_window(self, t0: float | None, t1: float | None) -> tuple[int, int]:
        """Sequence numbers ``[s0, s1)`` of the kept samples with ``t0 <= time <= t1``."""
        first = max(0, self._n - self.capacity)
        s0 = first if t0 is None else self._search(t0, "left")
        s1 = self._n if t1 is None else self._search(t1, "right")
        return s0, max(s0, s1)

    def _search(self, t: float, side: str) -> int:
        """Binary search for ``t`` over the kept samples, returning a sequence number."""
        first = max(0, self._n - self.capacity)
        lo, hi = first, self._n
        cap = self.capacity
        times = self._times
        right = side == "right"  # past the samples at exactly t, not before them
        while lo < hi:
            mid = (lo + hi) // 2
            at = times[mid % cap]
            if at < t or (right and at == t):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def _block(
        self,
        ch: _Channel,
        fis: np.ndarray,
        t0: float | None,
        t1: float | None,
        max_points: int | None,
    ) -> Block:
        """Times ``(n,)`` and values ``(len(fis), n)`` (float64) of several fields at once,
        decimated to min/max buckets beyond ``max_points``."""
        if not self._n:
            return Block(*_empty_rows(len(fis)))
        s0, s1 = self._seq_window(t0, t1)
        n = s1 - s0
        if n <= 0:
            return Block(*_empty_rows(len(fis)))
        if max_points is None or n <= max_points:
            sl = self._ring_slices(s0, s1)
            t = np.concatenate([self._times[a:b] for a, b in sl])
            v = np.concatenate([ch.values[fis, a:b] for a, b in sl], axis=1)
            # Raw samples never change: every point is final.
            return Block(t, v.astype(np.float64), 1, n)
        return self._decimated(ch, fis, s0, s1, max(2, int(max_points)))

    def _ring_slices(self, s0: int, s1: int) -> list[tuple[int, int]]:
        """``[s0, s1)`` as one or two contiguous ``[a, b)`` ranges of ring positions."""
        cap = self.capacity
        a, b = s0 % cap, s0 % cap + (s1 - s0)
        if b <= cap:
            return [(a, b)]
        return [(a, cap), (0, b - cap)]

    def _raw_rows(self, arr: np.ndarray, fis: np.ndarray, s0: int, s1: int) -> np.ndarray:
        sl = self._ring_slices(s0, s1)
        if len(sl) == 1:
            a, b = sl[0]
            return arr[fis, a:b]
        return np.concatenate([arr[fis, a:b] for a, b in sl], axis=1)

    def _decimated(self, ch: _Channel, fis: np.ndarray, s0: int, s1: int, max_points: int) -> Block:
        """Min and max per bucket of every field in ``fis``: times ``(2m,)``, values ``(nf, 2m)``.

        All fields share the buckets, so one call does the work of ``len(fis)`` series with the
        same handful of numpy operations.
        """
        n = s1 - s0
        nf = len(fis)
        n_buckets = max(1, max_points // 2)
        # Bucket size so that full buckets plus two partial edge buckets fit in n_buckets.
        need = n / max(1, n_buckets - 2) if n_buckets > 2 else float(n)
        level = -1  # -1 = raw samples
        f = 1
        for lv, lf in enumerate(LEVEL_FACTORS):
            if lf <= need:
                level, f = lv, lf
        k = max(1, math.ceil(need / f))
        size = f * k  # samples per output bucket; buckets align to multiples of size
        a = -(-s0 // size) * size  # first aligned boundary >= s0
        b = (s1 // size) * size  # last aligned boundary <= s1
        cap = self.capacity
        starts: list[np.ndarray] = []
        los: list[np.ndarray] = []
        his: list[np.ndarray] = []

        def raw_bucket(x0: int, x1: int) -> None:
            if x1 <= x0:
                return
            vals = self._raw_rows(ch.values, fis, x0, x1)
            starts.append(np.array([x0], dtype=np.int64))
            los.append(np.fmin.reduce(vals, axis=1)[:, None])
            his.append(np.fmax.reduce(vals, axis=1)[:, None])

        n_final_buckets = 0  # buckets before the newest, partial one
        if a >= b:
            # The window holds no whole bucket: one or two raw edge buckets.
            mid = min(max(a, s0), s1)
            raw_bucket(s0, mid)
            raw_bucket(mid, s1)
        else:
            raw_bucket(s0, a)
            m = (b - a) // size
            lo, hi = self._aligned_cached(ch, fis, a, b, level, f, k)
            starts.append(np.arange(a, b, size, dtype=np.int64))
            los.append(lo)
            his.append(hi)
            n_final_buckets = (1 if s0 < a else 0) + m
            raw_bucket(b, s1)
        first = np.concatenate(starts)
        ends = np.append(first[1:], s1)  # exclusive end of each bucket
        t = np.empty(2 * len(first), dtype=np.float64)
        v = np.empty((nf, 2 * len(first)), dtype=np.float64)
        t[0::2] = self._times[first % cap]
        t[1::2] = self._times[(ends - 1) % cap]
        v[:, 0::2] = np.concatenate(los, axis=1)
        v[:, 1::2] = np.concatenate(his, axis=1)
        return Block(t, v, size, 2 * n_final_buckets)

    def _aligned_cached(
        self, ch: _Channel, fis: np.ndarray, a: int, b: int, level: int, f: int, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_aligned`, reusing the buckets the previous call for these fields computed.

        Complete aligned buckets never change (until the ring overwrites them, long after they
        left any window that starts inside the ring), so a plot that follows the newest sample
        reduces only the buckets completed since its last frame, not the whole window again.
        """
        size = f * k
        key = (id(ch), fis.tobytes(), size)
        hit = self._bucket_cache.get(key)
        if hit is not None and hit[0] <= a <= hit[1] <= b and (a - hit[0]) % size == 0:
            c_a, c_b, c_lo, c_hi = hit
            i0 = (a - c_a) // size
            if c_b == b:
                lo, hi = c_lo[:, i0:], c_hi[:, i0:]
            else:
                n_lo, n_hi = self._aligned(ch, fis, c_b, b, level, f, k)
                lo = np.concatenate((c_lo[:, i0:], n_lo), axis=1)
                hi = np.concatenate((c_hi[:, i0:], n_hi), axis=1)
        else:
            lo, hi = self._aligned(ch, fis, a, b, level, f, k)
        if len(self._bucket_cache) >= 64 and key not in self._bucket_cache:
            self._bucket_cache.clear()
        self._bucket_cache[key] = (a, b, lo, hi)
        return lo, hi

    def _aligned(
        self, ch: _Channel, fis: np.ndarray, a: int, b: int, level: int, f: int, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Min and max of the buckets of ``f * k`` samples in ``[a, b)`` (aligned boundaries)."""
        nf = len(fis)
        m = (b - a) // (f * k)
        if level < 0:
            vals = self._raw_rows(ch.values, fis, a, b).reshape(nf, m, k)
            return _reduce_buckets(np.fmin, vals), _reduce_buckets(np.fmax, vals)
        nb = ch.level_buckets[level]
        la, lb = a // f, b // f
        if la % nb + (lb - la) <= nb:
            rows, cols = fis, slice(la % nb, la % nb + (lb - la))
            lmin = ch.levels_min[level][rows, cols]
            lmax = ch.levels_max[level][rows, cols]
        else:
            lidx = np.arange(la, lb, dtype=np.int64) % nb
            lmin = ch.levels_min[level][fis[:, None], lidx[None, :]]
            lmax = ch.levels_max[level][fis[:, None], lidx[None, :]]
        lmin = lmin.reshape(nf, m, k)
        lmax = lmax.reshape(nf, m, k)
        return _reduce_buckets(np.fmin, lmin), _reduce_buckets(np.fmax, lmax)


def _empty() -> tuple[np.ndarray, np.ndarray]:
    return np.empty(0, dtype=np.float64), np.empty(0, dtype=np.float64)


def _empty_rows(n_fields: int) -> tuple[np.ndarray, np.ndarray]:
    return np.empty(0, dtype=np.float64), np.empty((n_fields, 0), dtype=np.float64)


def _reduce_buckets(op: np.ufunc, vals: np.ndarray) -> np.ndarray:
    """``op.reduce(vals, axis=2)`` (fmin/fmax: NaN only where a whole bucket is NaN).

    ``reduce`` along a short last axis is slow (~3 ns an element here); for buckets of up to
    16 entries a loop of element-wise ``op`` over the bucket positions is ~8× faster.
    """
    k = vals.shape[2]
    if k > 16:
        return np.asarray(op.reduce(vals, axis=2))
    out = vals[:, :, 0].copy()
    for j in range(1, k):
        op(out, vals[:, :, j], out=out)
    return out
