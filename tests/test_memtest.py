"""The memory test, for real on CPU tensors: clean memory passes; bits flipped between write
and verify are found at exactly their byte addresses, in every pattern."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from gpuprof.check.memtest import PATTERNS, WORD_BYTES, run_memtest  # noqa: E402
from gpuprof.errors import InputError  # noqa: E402

SIZE = 1 << 20  # 1 MiB in 64 KiB chunks: 16 chunks
CHUNK = 64 << 10


def test_clean_memory_passes_every_pattern() -> None:
    seen: list[float] = []
    result = run_memtest(
        "cpu", size_bytes=SIZE, chunk_bytes=CHUNK, progress=lambda f, s: seen.append(f)
    )
    assert result.ok and result.errors == 0 and result.bad == ()
    assert result.bytes_tested == SIZE
    assert result.patterns == PATTERNS
    assert seen[-1] == 1.0 and seen == sorted(seen)


def _flipper(targets: dict[int, int], only: str | None = None) -> Any:
    """A hook that XORs ``mask`` into the word at each byte address of ``targets``."""

    def corrupt(pattern: str, offset: int, chunk: Any) -> None:
        if only is not None and pattern != only:
            return
        for address, mask in targets.items():
            if offset <= address < offset + chunk.numel() * WORD_BYTES:
                i = (address - offset) // WORD_BYTES
                chunk[i] = int(chunk[i]) ^ mask if mask != 1 << 31 else int(chunk[i]) ^ -(1 << 31)

    return corrupt


def test_injected_bit_flips_are_found_at_their_addresses() -> None:
    targets = {0: 1, 4 * 1000: 1 << 7, CHUNK * 3 + 4 * 17: 1 << 31, SIZE - 4: 0x10001}
    result = run_memtest("cpu", size_bytes=SIZE, chunk_bytes=CHUNK, corrupt=_flipper(targets))
    assert not result.ok
    assert result.errors == len(targets) * len(PATTERNS)
    assert result.bad_addresses == tuple(sorted(targets))
    for bad in result.bad:
        assert bad.flipped_bits == targets[bad.byte_address] & 0xFFFFFFFF
    assert {b.pattern for b in result.bad} == set(PATTERNS)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_each_pattern_alone_finds_its_flip(pattern: str) -> None:
    targets = {CHUNK + 8: 1 << 3}
    result = run_memtest(
        "cpu", size_bytes=SIZE, chunk_bytes=CHUNK, patterns=(pattern,), corrupt=_flipper(targets)
    )
    assert result.errors == 1
    (bad,) = result.bad
    assert (bad.pattern, bad.byte_address, bad.flipped_bits) == (pattern, CHUNK + 8, 1 << 3)


def test_a_flip_in_one_pattern_only_is_reported_once() -> None:
    result = run_memtest(
        "cpu", size_bytes=SIZE, chunk_bytes=CHUNK, corrupt=_flipper({40: 2}, only="random")
    )
    assert result.errors == 1 and result.bad[0].pattern == "random"


def test_address_aliasing_is_found() -> None:
    """Two words that alias one location: the address pattern reads the other's address."""

    def alias(pattern: str, offset: int, chunk: Any) -> None:
        if offset == 0:
            chunk[5] = chunk[9]

    result = run_memtest(
        "cpu", size_bytes=SIZE, chunk_bytes=CHUNK, patterns=("address",), corrupt=alias
    )
    assert result.bad_addresses == (20,)
    assert (result.bad[0].expected, result.bad[0].actual) == (5, 9)


def test_random_pattern_differs_with_the_seed_and_verifies_with_it() -> None:
    words: list[list[int]] = []

    def grab(pattern: str, offset: int, chunk: Any) -> None:
        if offset == 0:
            words.append(chunk[:8].tolist())

    for seed in (1, 2):
        r = run_memtest(
            "cpu", size_bytes=SIZE, chunk_bytes=CHUNK, patterns=("random",), seed=seed, corrupt=grab
        )
        assert r.ok
    assert words[0] != words[1]


def test_report_is_capped_but_the_count_is_not() -> None:
    targets = {4 * i: 1 for i in range(50)}
    result = run_memtest(
        "cpu",
        size_bytes=SIZE,
        chunk_bytes=CHUNK,
        patterns=("address",),
        corrupt=_flipper(targets),
        max_report=10,
    )
    assert result.errors == 50 and len(result.bad) == 10


def test_cancel_stops_early() -> None:
    calls = 0

    def cancel() -> bool:
        nonlocal calls
        calls += 1
        return calls >= 3

    result = run_memtest("cpu", size_bytes=SIZE, chunk_bytes=CHUNK, cancel=cancel)
    assert result.cancelled and not result.ok and calls == 3


def test_size_not_a_multiple_of_the_chunk() -> None:
    targets = {SIZE + 4 * 99: 1 << 4}
    result = run_memtest(
        "cpu",
        size_bytes=SIZE + 400,
        chunk_bytes=CHUNK,
        patterns=("walking_ones",),
        corrupt=_flipper(targets),
    )
    assert result.bytes_tested == SIZE + 400
    assert result.bad_addresses == (SIZE + 396,)


def test_bad_arguments_are_input_errors() -> None:
    with pytest.raises(InputError):
        run_memtest("cpu", size_bytes=SIZE, patterns=("nope",))
    with pytest.raises(InputError):
        run_memtest("cpu", fraction=1.5)
    with pytest.raises(InputError):
        run_memtest("cpu", size_bytes=0)


@pytest.mark.gpu
def test_gpu_memtest_finds_a_flip_in_device_memory() -> None:
    targets = {(64 << 20) + 4 * 12345: 1 << 9}
    result = run_memtest(
        "cuda:0", size_bytes=1 << 30, chunk_bytes=64 << 20, corrupt=_flipper(targets)
    )
    assert result.bytes_tested == 1 << 30 and result.free_bytes
    assert result.bad_addresses == tuple(targets) and result.errors == len(PATTERNS)


@pytest.mark.gpu
def test_gpu_memtest_default_covers_most_free_memory() -> None:
    result = run_memtest("cuda:0", fraction=0.5, patterns=("address",))
    assert result.ok and result.free_bytes
    assert result.bytes_tested >= 0.45 * result.free_bytes
