"""The parsed copy of a big overlay catalog (gpuprof/catalog/rowcache.py) against faults.

The cache is only ever a copy: whatever is in it — truncated, random, foreign, stale, a folder,
unwritable — the rows read are the file's own rows, and a file that changed is read again.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from gpuprof.catalog import instances, rowcache
from gpuprof.catalog.instances import COLUMNS, load_catalog, read_instances_file

HEADER = ",".join(COLUMNS)


def _big(path: Path, *, price: float = 20.0, bad_line: bool = True) -> Path:
    """An overlay just over the cache's lower bound, with one bad row and one unknown GPU."""
    lines = [HEADER]
    n = 0
    while sum(map(len, lines)) < rowcache.MIN_BYTES + 4096:
        lines.append(
            f"Acme,gpu.{n}.xlarge,region-{n % 7},,H100,8,80,96,1024,,400,{price + n / 1000},,,,"
            "https://example.com/prices,2026-01-01,a note long enough to fill the file quickly"
        )
        n += 1
    if bad_line:
        lines.append("Acme,bad,r1,,H100,1e12,80,,,,,20,,,,,,")  # refused: gpu_count
    lines.append("Acme,odd,r1,,Quantum GPU 9000,1,,,,,,5,,,,,,")  # kept, with a warning
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _read(path: Path) -> tuple[list[dict[str, object]], list[str]]:
    rows, issues = read_instances_file(path)
    return [r.as_dict() for r in rows], [f"{i.severity}:{i}" for i in issues]


def _entries() -> list[Path]:
    folder = rowcache.cache_dir()
    return sorted(folder.glob("*.bin")) if folder.is_dir() else []


@pytest.fixture
def no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """After this, any parse of a file fails the test: rows must come from the cache."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was parsed again")

    monkeypatch.setattr(instances, "_parse_lines", refuse)


def test_a_big_file_reads_the_same_from_its_parsed_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _big(tmp_path / "big.csv")
    first = _read(path)
    assert len(first[0]) > 5000
    assert any("gpu_count" in i for i in first[1]) and any("unknown GPU" in i for i in first[1])
    (note,) = _entries()
    assert note.stat().st_size < 1024  # read once: only a note of the file's hash
    assert _read(path) == first  # read again: parsed, and now its rows are kept
    assert note.stat().st_size > 100_000
    monkeypatch.setattr(instances, "_parse_lines", lambda *a, **k: pytest.fail("parsed again"))
    assert _read(path) == first
    rows, _ = read_instances_file(path)
    assert all(type(r) is instances.Instance for r in rows)
    with pytest.raises(AttributeError):  # frozen like any other row
        rows[0].provider = "x"  # type: ignore[misc]


@pytest.mark.slow
def test_the_whole_catalog_is_the_same_cold_and_warm(tmp_path: Path) -> None:
    folder = tmp_path / "overlays"
    folder.mkdir()
    _big(folder / "big.csv")
    cold = load_catalog(overlay_dir=folder)
    load_catalog(overlay_dir=folder)
    warm = load_catalog(overlay_dir=folder)
    assert warm.instances == cold.instances
    assert [str(i) for i in warm.issues] == [str(i) for i in cold.issues]


@pytest.mark.slow
def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    path = _big(tmp_path / "big.csv")
    _read(path)
    _read(path)
    _big(path, price=30.0)
    rows, _ = _read(path)
    assert rows[0]["price_ondemand_usd_hr"] == 30.0
    for _ in range(2):  # and the new copy is the one kept
        assert _read(path)[0] == rows
    assert len(_entries()) == 1


@pytest.mark.slow
def test_new_rules_or_a_new_day_read_the_file_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _big(tmp_path / "big.csv")
    _read(path)
    _read(path)
    calls = []
    real = instances._parse_lines

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(instances, "_parse_lines", counting)
    monkeypatch.setattr(rowcache, "_code_fingerprint", lambda: "another gpuprof")
    _read(path)
    monkeypatch.setattr(rowcache, "_today", lambda: "2099-12-31")
    _read(path)
    _read(path)
    _read(path)
    assert len(calls) == 3  # a miss after each change, the second read kept: then the copy


def test_a_small_file_is_never_cached(tmp_path: Path) -> None:
    path = tmp_path / "small.csv"
    path.write_text(HEADER + "\nAcme,a,r1,,H100,8,80,,,,,20,,,,,,\n", encoding="utf-8")
    assert len(read_instances_file(path)[0]) == 1
    assert _entries() == []


def _damage(kind: str, entry: Path) -> None:
    data = entry.read_bytes()
    if kind == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif kind == "bit-flipped":
        flipped = bytearray(data)
        flipped[len(flipped) // 2] ^= 0x40
        entry.write_bytes(bytes(flipped))
    elif kind == "random-bytes":
        entry.write_bytes(os.urandom(len(data)))
    elif kind == "empty":
        entry.write_bytes(b"")
    elif kind == "magic-only":
        entry.write_bytes(rowcache._MAGIC)
    elif kind == "a-folder":
        entry.unlink()
        entry.mkdir()
    elif kind == "foreign-payload":  # a valid digest over a payload of another shape
        import hashlib
        import marshal

        payload = marshal.dumps(("not", "a", "cache"))
        digest = hashlib.blake2b(payload, digest_size=32).digest()
        entry.write_bytes(rowcache._MAGIC + digest + payload)
    elif kind == "wrong-shape-rows":  # the right key, rows of the wrong width
        import hashlib
        import marshal

        key_and_value = marshal.loads(data[len(rowcache._MAGIC) + 32 :])
        payload = marshal.dumps((key_and_value[0], ([("too", "short")], [])))
        digest = hashlib.blake2b(payload, digest_size=32).digest()
        entry.write_bytes(rowcache._MAGIC + digest + payload)
    else:
        raise AssertionError(kind)


DAMAGE = [
    "truncated",
    "bit-flipped",
    "random-bytes",
    "empty",
    "magic-only",
    "a-folder",
    "foreign-payload",
    "wrong-shape-rows",
]


@pytest.mark.parametrize("kind", DAMAGE)
@pytest.mark.slow
def test_a_damaged_copy_is_ignored_and_the_file_read(kind: str, tmp_path: Path) -> None:
    path = _big(tmp_path / "big.csv")
    first = _read(path)
    _read(path)
    (entry,) = _entries()
    _damage(kind, entry)
    assert _read(path) == first
    if kind != "a-folder":  # noted again, then kept again, and good
        assert _read(path) == first and _read(path) == first and entry.is_file()


def test_a_cache_that_cannot_be_written_changes_nothing_but_speed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setattr(rowcache, "cache_dir", lambda: blocker / "catalog")
    path = _big(tmp_path / "big.csv")
    first = _read(path)
    assert _read(path) == first
    assert blocker.read_text() == "a file where the cache folder would be"


def test_a_full_disk_leaves_no_partial_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fh: object) -> None:
            self._fh = fh

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self._fh.close()  # type: ignore[attr-defined]

        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(rowcache.os, "fdopen", lambda fd, mode: Full(real_fdopen(fd, mode)))
    path = _big(tmp_path / "big.csv")
    first = _read(path)
    assert _entries() == []
    assert list(rowcache.cache_dir().iterdir()) == []  # no temporary file left behind
    monkeypatch.undo()
    assert _read(path) == first and _read(path) == first


def test_readers_at_the_same_time_all_get_the_rows(tmp_path: Path) -> None:
    path = _big(tmp_path / "big.csv")
    expected = _read(path)  # the note: the readers below all keep the rows
    results: list[object] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            results.append(_read(path))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results == [expected] * 4
    assert len(_entries()) == 1
    assert _read(path) == expected


def test_a_fifo_is_read_once_and_never_cached(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    text = (HEADER + "\nAcme,a,r1,,H100,8,80,,,,,20,,,,,,\n").encode()

    def feed() -> None:
        with fifo.open("wb") as fh:
            fh.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    rows, issues = read_instances_file(fifo)
    writer.join(timeout=10)
    assert [r.instance for r in rows] == ["a"] and issues == []
    assert _entries() == []
