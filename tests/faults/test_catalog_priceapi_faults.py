"""The price-API fetchers' inputs (issue 24): a credentials file that is missing, readable by
others, not key = value, without a secret, not UTF-8 or too big; and hostile API answers (bad
JSON, an API error, no price, NaN or absurd prices, HTTP errors): one clear line each, the key
never in it, and no overlay written."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuprof.catalog.instances import load_catalog
from gpuprof.catalog.priceapi import Credentials, fetch_api_prices, read_credentials
from gpuprof.errors import InputError
from tests.helpers.loopback import QuietHandler, http_server

CRED = Credentials("KEYID123", "s3cr3t")


def _cred_file(tmp_path: Path, data: bytes, mode: int = 0o600) -> Path:
    path = tmp_path / "keys"
    path.write_bytes(data)
    os.chmod(path, mode)
    return path


def test_a_good_file(tmp_path: Path) -> None:
    cred = read_credentials(_cred_file(tmp_path, b"id = a\nsecret=b\n"))
    assert cred == Credentials("a", "b") and "b" not in repr(cred)


@pytest.mark.parametrize(
    ("data", "mode", "says"),
    [
        (b"id = a\nsecret = b\n", 0o644, "readable by others"),
        (b"id a\n", 0o600, ":1: expected key = value"),
        (b"id = a\n", 0o600, "needs both"),
        (b"\xff\xfeid=a", 0o600, "not UTF-8"),
        (b"id = a\nsecret = b\x1b[2J\n", 0o600, "control characters"),
        (b"#" * 5000, 0o600, "not a credentials file"),
    ],
)
def test_a_bad_credentials_file_is_one_clear_error(
    tmp_path: Path, data: bytes, mode: int, says: str
) -> None:
    path = _cred_file(tmp_path, data, mode)
    with pytest.raises(InputError) as err:
        read_credentials(path)
    assert says in str(err.value) and str(path) in str(err.value)


def test_missing_and_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_credentials(tmp_path / "none")
    with pytest.raises(InputError, match="not a regular file"):
        read_credentials(tmp_path)


ANSWERS: dict[str, tuple[int, bytes]] = {
    "/badjson/": (200, b"{not json"),
    "/noprice/": (200, b'{"PriceInfo": {}}'),
    "/nan/": (200, b'{"PriceInfo": {"Price": {"TradePrice": NaN, "Currency": "CNY"}}}'),
    "/huge/": (200, b'{"PriceInfo": {"Price": {"TradePrice": 1e30, "Currency": "CNY"}}}'),
    "/negative/": (200, b'{"PriceInfo": {"Price": {"TradePrice": -1, "Currency": "CNY"}}}'),
    "/currency/": (200, b'{"PriceInfo": {"Price": {"TradePrice": 1, "Currency": "\\u001b[31m"}}}'),
    "/denied/": (403, b'{"Code": "Forbidden.RAM", "Message": "no"}'),
    "/tcerr/": (200, b'{"Response": {"Error": {"Code": "AuthFailure", "Message": "bad key"}}}'),
    "/tcnoprice/": (200, b'{"Response": {"Price": {}}}'),
    "/tcmonth/": (
        200,
        b'{"Response": {"Price": {"InstancePrice": {"UnitPrice": 9, "ChargeUnit": "MONTH"}}}}',
    ),
    "/tcjunk/": (200, b"[]"),
    "/hwerr/": (400, b'{"error_code": "CBC.0150", "error_msg": "spec not found"}'),
    "/hwerr200/": (200, b'{"error_code": "CBC.0150", "error_msg": "spec not found"}'),
    "/hwnoprice/": (200, b'{"currency": "CNY"}'),
    "/hwcents/": (200, b'{"amount": 1750, "measure_id": 3, "currency": "CNY"}'),
    "/hwnan/": (200, b'{"amount": NaN, "measure_id": 1, "currency": "CNY"}'),
    "/hwcurrency/": (200, b'{"amount": 1, "measure_id": 1, "currency": "\\u001b[31m"}'),
    "/hwjunk/": (200, b"[1]"),
}


class _Hostile(QuietHandler):
    def _send(self) -> None:
        code, body = ANSWERS[self.path.split("?")[0]]
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self._send()


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    with http_server(_Hostile) as url:
        yield url


@pytest.mark.parametrize(
    ("provider", "path", "says"),
    [
        ("alibaba", "/badjson/", "no price for"),
        ("alibaba", "/noprice/", "no price for"),
        ("alibaba", "/nan/", "implausible price"),
        ("alibaba", "/huge/", "implausible price"),
        ("alibaba", "/negative/", "implausible price"),
        ("alibaba", "/currency/", "implausible price"),
        ("alibaba", "/denied/", "HTTP 403"),
        ("tencent", "/tcerr/", "AuthFailure: bad key"),
        ("tencent", "/tcnoprice/", "no price for"),
        ("tencent", "/tcmonth/", "implausible price"),
        ("tencent", "/tcjunk/", "not a Tencent Cloud API answer"),
        ("huawei", "/hwerr/", "HTTP 400"),
        ("huawei", "/hwerr200/", "CBC.0150: spec not found"),
        ("huawei", "/hwnoprice/", "no price for"),
        ("huawei", "/hwcents/", "implausible price"),
        ("huawei", "/hwnan/", "implausible price"),
        ("huawei", "/hwcurrency/", "implausible price"),
        ("huawei", "/hwjunk/", "not a Huawei Cloud API answer"),
    ],
)
def test_a_hostile_answer_is_one_clear_error_and_writes_nothing(
    hostile: str, tmp_path: Path, provider: str, path: str, says: str
) -> None:
    options = {
        "endpoint": hostile + path,
        "zone": "ap-guangzhou-3",
        "image": "img-1",
        "project": "p1",
    }
    with pytest.raises(InputError) as err:
        fetch_api_prices(
            provider,
            CRED,
            load_catalog(overlays=False),
            region="r1",
            options=options,
            dest_dir=tmp_path,
        )
    text = str(err.value)
    assert says in text and "\n" not in text, text
    assert CRED.key_id not in text and CRED.secret not in text
    assert not list(tmp_path.iterdir())


def test_bad_requests_are_refused_before_any_call(tmp_path: Path) -> None:
    cat = load_catalog(overlays=False)
    with pytest.raises(InputError, match="no price API for volcano"):
        fetch_api_prices("volcano", CRED, cat, region="cn-beijing", dest_dir=tmp_path)
    with pytest.raises(InputError, match="--project-id"):
        fetch_api_prices("huawei", CRED, cat, region="cn-north-4", dest_dir=tmp_path)
    with pytest.raises(InputError, match="--region"):
        fetch_api_prices("alibaba", CRED, cat, region=" ", dest_dir=tmp_path)
    with pytest.raises(InputError, match="--zone"):
        fetch_api_prices("tencent", CRED, cat, region="ap-guangzhou", dest_dir=tmp_path)
    with pytest.raises(InputError, match="only https://"):
        fetch_api_prices(
            "alibaba",
            CRED,
            cat,
            region="cn-hangzhou",
            options={"endpoint": "http://ecs.example.com/"},
            dest_dir=tmp_path,
        )
