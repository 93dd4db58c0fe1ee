"""A team's negotiated prices at a URL (issue 24, ``catalog update --prices``), fetched from a
server on 127.0.0.1: a good CSV or JSON list overrides the public row and is marked; every bad
list (not UTF-8, NUL, bad JSON, wrong shape, NaN, a bad row, HTTP error, cut short, too big,
plain HTTP elsewhere) is one clear error naming the URL, and the previous list stays whole."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuprof.catalog.instances import load_catalog
from gpuprof.catalog.negotiated import NEGOTIATED_MARK, fetch_negotiated
from gpuprof.errors import InputError
from tests.helpers.loopback import QuietHandler, http_server

DAY = datetime.date(2026, 12, 1)
CSV = (
    "provider,instance,region,gpu_model,gpu_count,price_ondemand_usd_hr,currency,"
    "price_monthly,as_of\n"
    "AWS,p5.48xlarge,us-east-1,H100 SXM,8,30.5,,,2026-11-20\n"
    "Alibaba Cloud,ecs.gn7i-c8g1.2xlarge,cn-shanghai/cn-shenzhen,A10,1,7.5,CNY,3600,\n"
)
JSON = json.dumps(
    {
        "rows": [
            {
                "provider": "AWS",
                "instance": "p5.48xlarge",
                "region": "us-east-1",
                "gpu_model": "H100 SXM",
                "gpu_count": 8,
                "price_ondemand_usd_hr": 30.5,
                "as_of": "2026-11-20",
            }
        ]
    }
)
BODIES: dict[str, bytes] = {
    "/good.csv": CSV.encode(),
    "/good.json": JSON.encode(),
    "/junk": bytes(range(256)) * 8,
    "/nul": CSV.encode() + b"\0",
    "/badjson": b'[{"provider": "AWS",',
    "/shape": b'{"prices": []}',
    "/nan": b'[{"provider":"X","instance":"a","gpu_model":"T4","gpu_count":1,'
    b'"price_ondemand_usd_hr":NaN}]',
    "/bool": b'[{"provider":"X","instance":"a","gpu_model":"T4","gpu_count":true}]',
    "/notobj": b"[1, 2]",
    "/badrow.csv": (CSV + "X,a,,T4,1,-5,,,\n").encode(),
    "/badrow.json": b'[{"provider":"X","instance":"a","gpu_model":"T4","gpu_count":0}]',
    "/empty": b"provider,instance,gpu_model,gpu_count\n",
    "/big": b"provider,instance,gpu_model,gpu_count\n" + b"X,a,T4,1\n" * 200_000,
}


class _Handler(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/500":
            self.send_error(500, "Internal Server Error")
            return
        if self.path == "/elsewhere":
            self.send_response(302)
            self.send_header("Location", "http://example.com/prices.csv")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = BODIES[self.path.removesuffix("/short")]
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2] if self.path.endswith("/short") else body)
        if self.path.endswith("/short"):
            self.close_connection = True


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with http_server(_Handler) as url:
        yield url


@pytest.mark.parametrize("path", ["/good.csv", "/good.json"])
def test_negotiated_prices_override_public_ones_and_are_marked(
    server: str, tmp_path: Path, path: str
) -> None:
    got = fetch_negotiated(server + path, dest_dir=tmp_path, today=DAY)
    assert got.path.parent == tmp_path and got.rows == (2 if path.endswith("csv") else 1)
    cat = load_catalog(overlay_dir=tmp_path)
    p5 = [i for i in cat.instances if i.instance == "p5.48xlarge" and i.region == "us-east-1"]
    assert len(p5) == 1  # replaced, not listed twice
    assert p5[0].price_ondemand_usd_hr == 30.5 and p5[0].as_of == "2026-11-20"
    assert p5[0].notes.startswith(NEGOTIATED_MARK) and p5[0].source == server + path
    if path.endswith("csv"):
        ali = next(i for i in cat.instances if i.instance == "ecs.gn7i-c8g1.2xlarge")
        assert ali.currency == "CNY" and ali.as_of == "2026-12-01"  # undated: the fetch day
        assert ali.notes.startswith(NEGOTIATED_MARK)


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/junk", "not UTF-8"),
        ("/nul", "NUL"),
        ("/badjson", "not valid JSON"),
        ("/shape", "array of rows"),
        ("/nan", "not a finite number"),
        ("/bool", "true/false"),
        ("/notobj", "row 1: not an object"),
        ("/badrow.csv", "price_ondemand_usd_hr must be >= 0"),
        ("/badrow.json", "row 1: gpu_count must be > 0"),
        ("/empty", "no rows"),
        ("/500", "HTTP 500"),
        ("/good.csv/short", "cut short"),
        ("/elsewhere", "only https:// URLs"),
    ],
)
def test_a_bad_list_is_one_clear_error_and_keeps_the_previous(
    server: str, tmp_path: Path, path: str, says: str
) -> None:
    first = fetch_negotiated(server + "/good.csv", dest_dir=tmp_path, today=DAY)
    before = first.path.read_bytes()
    with pytest.raises(InputError) as err:
        fetch_negotiated(server + path, dest_dir=tmp_path, today=DAY)
    text = str(err.value)
    assert says in text and "\n" not in text, text
    assert server in text or "example.com" in text
    assert first.path.read_bytes() == before


def test_a_list_over_the_size_limit_is_refused(server: str, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"MiB|bytes|larger"):
        fetch_negotiated(server + "/big", dest_dir=tmp_path, max_bytes=64 * 1024)
    assert not list(tmp_path.iterdir())


def test_plain_http_off_this_machine_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="only https://"):
        fetch_negotiated("http://prices.example.com/list.csv", dest_dir=tmp_path)
