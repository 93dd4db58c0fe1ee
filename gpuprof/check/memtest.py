"""A memory test with torch: write patterns over most of a device's free memory, read them back.

The memory is taken as 32-bit words in chunks (``chunk_bytes`` each, all held at once so that
most of the free memory is covered); each pattern is written to every chunk, then every chunk
is verified against the same pattern computed again:

* ``walking_ones``: word ``i`` holds ``1 << (i % 32)`` (a single 1 walking across the bits);
* ``random``: seeded pseudo-random words, regenerated from the same seed for the check;
* ``address``: word ``i`` holds its own word address (the low 32 bits), which finds address
  lines that alias two locations.

A bad word is reported by its byte address in the tested region (chunk offset + word index ×
4), with what was written and what was read. Works on any torch device: ``"cuda:N"`` tests
``fraction`` of its free memory; ``"cpu"`` tests a bounded amount of host memory (tests use it,
with a hook that corrupts a chunk between write and verify).

torch is imported inside :func:`run_memtest` only: the core package stays importable without it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = [
    "CPU_DEFAULT_BYTES",
    "PATTERNS",
    "WORD_BYTES",
    "BadWord",
    "MemtestResult",
    "run_memtest",
]

WORD_BYTES = 4
PATTERNS: tuple[str, ...] = ("walking_ones", "random", "address")
#: Host memory tested on ``"cpu"`` when no size is given: a memory test of the host is a
#: smoke test here, not a full one.
CPU_DEFAULT_BYTES = 64 << 20
_DEFAULT_CHUNK = 256 << 20

#: ``progress(fraction 0..1, stage text)``.
ProgressFn = Callable[[float, str], None]
#: ``corrupt(pattern, chunk_offset_bytes, chunk)``: called between write and verify (tests).
CorruptFn = Callable[[str, int, Any], None]


@dataclass(frozen=True, slots=True)
class BadWord:
    """One word that read back wrong. ``byte_address`` is its offset in the tested region."""

    pattern: str
    byte_address: int
    expected: int
    actual: int

    @property
    def flipped_bits(self) -> int:
        return (self.expected ^ self.actual) & 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class MemtestResult:
    """What was tested and what was found. ``errors`` counts every bad word (per pattern);
    ``bad`` lists the first ``max_report`` of them."""

    device: str
    bytes_tested: int
    chunk_bytes: int
    patterns: tuple[str, ...]
    errors: int
    bad: tuple[BadWord, ...]
    cancelled: bool
    elapsed_s: float
    free_bytes: int | None = None

    @property
    def ok(self) -> bool:
        return self.errors == 0 and not self.cancelled

    @property
    def bad_addresses(self) -> tuple[int, ...]:
        """The distinct byte addresses of the reported bad words, in ascending order."""
        return tuple(sorted({b.byte_address for b in self.bad}))


def _signed(values: Any) -> Any:
    """int64 tensor → int32 with the low 32 bits kept (two's complement)."""
    import torch

    return (((values + (1 << 31)) % (1 << 32)) - (1 << 31)).to(torch.int32)


def _fill(pattern: str, out: Any, first_word: int, seed: int, chunk_no: int) -> None:
    """Write ``pattern`` into the int32 tensor ``out`` whose word 0 is ``first_word``."""
    import torch

    n = out.numel()
    if pattern == "random":
        gen = torch.Generator(device=out.device)
        gen.manual_seed(seed * 1_000_003 + chunk_no)
        torch.randint(-(1 << 31), 1 << 31, (n,), generator=gen, dtype=torch.int32, out=out)
        return
    index = torch.arange(first_word, first_word + n, dtype=torch.int64, device=out.device)
    if pattern == "walking_ones":
        out.copy_(_signed(torch.bitwise_left_shift(torch.ones_like(index), index % 32)))
    elif pattern == "address":
        out.copy_(_signed(index))
    else:
        raise InputError(tr("unknown memory test pattern {p!r}", p=pattern))


def _test_size(
    torch: Any, dev: Any, size_bytes: int | None, fraction: float
) -> tuple[int, int | None]:
    if dev.type == "cuda":
        free, _total = torch.cuda.mem_get_info(dev)
        size = int(free * fraction) if size_bytes is None else min(size_bytes, int(free * fraction))
        return size, int(free)
    return (CPU_DEFAULT_BYTES if size_bytes is None else size_bytes), None


def run_memtest(
    device: str = "cpu",
    *,
    size_bytes: int | None = None,
    fraction: float = 0.9,
    chunk_bytes: int = _DEFAULT_CHUNK,
    patterns: Sequence[str] = PATTERNS,
    seed: int = 0,
    progress: ProgressFn | None = None,
    cancel: Callable[[], bool] | None = None,
    corrupt: CorruptFn | None = None,
    max_report: int = 1000,
) -> MemtestResult:
    """Test ``size_bytes`` (default: ``fraction`` of the free memory on a GPU,
    :data:`CPU_DEFAULT_BYTES` on the CPU) of ``device`` with ``patterns``.

    ``cancel()`` is polled between chunks; a cancelled test returns what it found so far with
    ``cancelled`` set. One chunk (a scratch buffer for the expected words) comes on top of the
    tested size; allocation stops early when the device runs out, and what was allocated is
    tested.
    """
    import torch

    if not 0.0 < fraction <= 0.98:
        raise InputError(tr("memory test fraction must be in (0, 0.98], got {f}", f=fraction))
    unknown = [p for p in patterns if p not in PATTERNS]
    if unknown or not patterns:
        raise InputError(tr("unknown memory test pattern {p!r}", p=", ".join(unknown)))
    try:
        dev = torch.device(device)
    except RuntimeError as exc:
        raise InputError(tr("unknown device {d!r}: {e}", d=device, e=exc)) from None
    started = time.monotonic()
    chunk_bytes = max(WORD_BYTES, chunk_bytes - chunk_bytes % WORD_BYTES)
    size, free = _test_size(torch, dev, size_bytes, fraction)
    size -= size % WORD_BYTES
    if size < WORD_BYTES:
        raise InputError(tr("memory test size must be at least {n} bytes", n=WORD_BYTES))
    chunk_bytes = min(chunk_bytes, size)
    chunks: list[tuple[int, Any]] = []
    offset = 0
    try:
        # The expected words of one chunk at a time are computed into this scratch buffer.
        scratch = torch.empty(chunk_bytes // WORD_BYTES, dtype=torch.int32, device=dev)
        while offset < size:
            words = min(chunk_bytes, size - offset) // WORD_BYTES
            chunks.append((offset, torch.empty(words, dtype=torch.int32, device=dev)))
            offset += words * WORD_BYTES
    except torch.OutOfMemoryError:
        if not chunks:
            raise InputError(
                tr("not enough free memory on {d} for a memory test", d=device)
            ) from None
    tested = sum(t.numel() for _o, t in chunks) * WORD_BYTES
    steps = max(1, 2 * len(chunks) * len(patterns))
    done = 0
    errors = 0
    bad: list[BadWord] = []
    cancelled = False

    def tick(stage: str) -> bool:
        nonlocal done, cancelled
        done += 1
        if progress is not None:
            progress(min(1.0, done / steps), stage)
        if cancel is not None and cancel():
            cancelled = True
        return cancelled

    for pattern in patterns:
        if cancelled:
            break
        for no, (off, chunk) in enumerate(chunks):
            _fill(pattern, chunk, off // WORD_BYTES, seed, no)
            if tick(tr("writing {p}", p=pattern)):
                break
        if cancelled:
            break
        if corrupt is not None:
            for off, chunk in chunks:
                corrupt(pattern, off, chunk)
        for no, (off, chunk) in enumerate(chunks):
            expected = scratch[: chunk.numel()]
            _fill(pattern, expected, off // WORD_BYTES, seed, no)
            wrong = torch.nonzero(chunk != expected).flatten()
            count = int(wrong.numel())
            if count:
                errors += count
                room = max(0, max_report - len(bad))
                picked = wrong[:room]
                exp = expected[picked].tolist()
                act = chunk[picked].tolist()
                for i, e, a in zip(picked.tolist(), exp, act, strict=True):
                    bad.append(
                        BadWord(pattern, off + int(i) * WORD_BYTES, e & 0xFFFFFFFF, a & 0xFFFFFFFF)
                    )
            if tick(tr("verifying {p}", p=pattern)):
                break
    chunks.clear()
    del scratch
    if dev.type == "cuda":
        torch.cuda.empty_cache()
    return MemtestResult(
        device=str(dev),
        bytes_tested=tested,
        chunk_bytes=chunk_bytes,
        patterns=tuple(patterns),
        errors=errors,
        bad=tuple(bad),
        cancelled=cancelled,
        elapsed_s=time.monotonic() - started,
        free_bytes=free,
    )
