"""The exchange-rates file (issue 24): every bad file is one line naming it (and the line),
and a wrong rate never prices anything."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from gpuprof.catalog import money
from gpuprof.errors import InputError

GOOD = "currency,per_usd,as_of,source\nCNY,7.2,2026-11-30,bank\n"


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "fx_rates.csv"
    path.write_bytes(data)
    return path


def test_no_file_is_no_rates(tmp_path: Path) -> None:
    assert money.load_rates(tmp_path / "none.csv") == {}


def test_a_good_file(tmp_path: Path) -> None:
    rates = money.load_rates(_write(tmp_path, GOOD.encode()))
    assert rates["CNY"].per_usd == 7.2 and rates["CNY"].source == "bank"


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (GOOD.encode() + b"\0", "NUL"),
        (b"a,b,c\nCNY,7.2,2026-11-30\n", ":1: the header"),
        (b"", ":1: the header"),
        (GOOD.encode() + b"EUR,x,2026-11-30,\n", ":3: rate 'x' is not a number"),
        (GOOD.encode() + b"EUR,inf,2026-11-30,\n", ":3: rate inf is outside"),
        (GOOD.encode() + b"EUR,-1,2026-11-30,\n", ":3: rate -1 is outside"),
        (GOOD.encode() + b"EUR,0.9,2999-01-01,\n", ":3: date 2999-01-01 is in the future"),
        (GOOD.encode() + b"EUR,0.9,2026,\n", ":3: date '2026' is not a day"),
        (GOOD.encode() + b"EUR,0.9\n", ":3: expected 3 or 4 cells"),
        (GOOD.encode() + b"EUR,0.9,2026-11-30,a,b\n", ":3: expected 3 or 4 cells"),
        (GOOD.encode() + b"\x1b[31mRED,1,2026-11-30,\n", ":3: currency"),
        (b"x" * (65 * 1024), "larger than 64 KiB"),
    ],
)
def test_a_bad_file_is_one_clear_error(tmp_path: Path, data: bytes, says: str) -> None:
    path = _write(tmp_path, data)
    with pytest.raises(InputError) as err:
        money.load_rates(path)
    text = str(err.value)
    assert str(path) in text and says in text and "\n" not in text


def test_a_folder_is_not_a_rates_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a folder"):
        money.load_rates(tmp_path)


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "fx_rates.csv"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []
    reader = threading.Thread(target=lambda: outcome.append(_error_of(fifo)), daemon=True)
    reader.start()
    reader.join(timeout=20)
    if reader.is_alive():  # let the stuck thread go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert outcome and isinstance(outcome[0], InputError), "load_rates waited on a FIFO"
    assert "not a regular file (a FIFO)" in str(outcome[0])


def test_a_source_that_looks_like_a_formula_is_saved_guarded_and_read_back_as_given(
    tmp_path: Path,
) -> None:
    path = tmp_path / "fx_rates.csv"
    rate = money.parse_fx_rate("CNY=7.2@2026-11-30", source="=HYPERLINK(1)")
    money.save_rate(rate, path)
    assert "'=HYPERLINK(1)" in path.read_text()  # a spreadsheet shows it as text
    assert money.load_rates(path)["CNY"].source == "=HYPERLINK(1)"


def _error_of(path: Path) -> BaseException | None:
    try:
        money.load_rates(path)
    except BaseException as exc:
        return exc
    return None


def test_a_broken_rates_file_converts_nothing_and_the_catalog_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof.catalog.instances import load_catalog

    bad = _write(tmp_path, b"currency,per_usd,as_of\nCNY,7000000,2026-11-30\n")
    monkeypatch.setattr(money, "rates_path", lambda: bad)
    cat = load_catalog(overlays=False)
    assert cat.instances and cat.rates == {}
    assert any(i.severity == "error" and str(bad) in str(i) for i in cat.issues)
