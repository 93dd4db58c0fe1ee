"""Prices from the providers' own price APIs (issue 24, ``catalog update --provider``): the
signatures match the providers' published examples, and a loopback server that speaks each
API's format (and checks each request's signature) prices the catalog's instance types into an
overlay, in the currency the API answered, dated today."""

from __future__ import annotations

import datetime
import json
import os
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuprof.catalog.instances import Instance, load_catalog
from gpuprof.catalog.priceapi import Credentials, fetch_api_prices, huawei
from gpuprof.catalog.priceapi.alibaba import signed_query
from gpuprof.catalog.priceapi.tencent import authorization
from tests.helpers.loopback import QuietHandler, http_server

CRED = Credentials("testid", "testsecret")
DAY = datetime.date(2026, 12, 1)
ALI_PRICES = {"ecs.gn7i-c8g1.2xlarge": 9.74, "ecs.gn6i-c4g1.xlarge": 11.84}


def test_alibaba_signature_is_the_documented_one() -> None:
    # Alibaba's RPC signature example (DescribeRegions, key testid / testsecret)
    params = {
        "AccessKeyId": "testid",
        "Action": "DescribeRegions",
        "Format": "XML",
        "SignatureMethod": "HMAC-SHA1",
        "SignatureNonce": "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf",
        "SignatureVersion": "1.0",
        "Timestamp": "2016-02-23T12:46:24Z",
        "Version": "2014-05-26",
    }
    query = signed_query(params, "testsecret")
    assert query.endswith("&Signature=OLeaidS1JvxuMvnyHOwuJ%2BuX5qY%3D")


def test_tencent_signature_is_the_documented_one() -> None:
    # Tencent's Signature v3 example (DescribeInstances at 1551113065)
    payload = (
        b'{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}'
    )
    cred = Credentials("AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******", "Gu5t9xGARNpq86cd98joQYCN3*******")
    auth = authorization(cred, "cvm.tencentcloudapi.com", payload, 1551113065)
    assert auth.endswith(
        "Signature=2230eefd229f582d8b1b891af7107b91597240707d778ab3738f756258d7652c"
    )
    assert "Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******/2019-02-25/cvm/tc3_request" in auth


class _Api(QuietHandler):
    """/ali/: DescribePrice (GET, signed query); /tc/: InquiryPriceRunInstances (POST, TC3);
    /v2/bills/ratings/on-demand-resources: Huawei's BSS inquiry (POST, SDK-HMAC-SHA256)."""

    def _answer(self, code: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        query = urllib.parse.urlsplit(self.path).query
        params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
        sig = params.pop("Signature", "")
        expect = urllib.parse.unquote(signed_query(params, CRED.secret).split("&Signature=")[1])
        if sig != expect or params.get("AccessKeyId") != CRED.key_id:
            self._answer(400, {"Code": "IncompleteSignature", "Message": "bad signature"})
            return
        assert params["Action"] == "DescribePrice" and params["ResourceType"] == "instance"
        price = ALI_PRICES.get(params["InstanceType"], 20.0)
        self._answer(
            200,
            {
                "PriceInfo": {
                    "Price": {"TradePrice": price, "OriginalPrice": price, "Currency": "CNY"}
                }
            },
        )

    def do_POST(self) -> None:
        payload = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path.startswith("/v2/bills/"):
            self._huawei(payload)
            return
        ts = int(self.headers["X-TC-Timestamp"])
        if self.headers["Authorization"] != authorization(CRED, self.headers["Host"], payload, ts):
            self._answer(200, {"Response": {"Error": {"Code": "AuthFailure", "Message": "x"}}})
            return
        body = json.loads(payload)
        assert self.headers["X-TC-Action"] == "InquiryPriceRunInstances"
        assert body["InstanceChargeType"] == "POSTPAID_BY_HOUR" and body["ImageId"]
        price = {"UnitPrice": 9.0, "UnitPriceDiscount": 8.68, "ChargeUnit": "HOUR"}
        self._answer(200, {"Response": {"Price": {"InstancePrice": price}, "RequestId": "r"}})

    def _huawei(self, payload: bytes) -> None:
        # the gateway recomputes the signature over what it received
        url = f"http://{self.headers['Host']}{self.path}"
        sent = {k: self.headers[k] for k in ("Content-Type", "Host")}
        stamp = self.headers["X-Sdk-Date"]
        if self.headers["Authorization"] != huawei.authorization(CRED, url, sent, payload, stamp):
            self._answer(401, {"error_code": "APIGW.0301", "error_msg": "Incorrect IAM auth"})
            return
        body = json.loads(payload)
        info = body["product_infos"][0]
        assert body["project_id"] == "proj1" and info["usage_measure_id"] == 4
        assert info["cloud_service_type"] == "hws.service.type.ec2"
        price = HW_PRICES.get(info["resource_spec"], 10.0)
        self._answer(
            200,
            {"amount": price, "official_website_amount": price + 1, "measure_id": 1,
             "currency": "CNY", "product_rating_results": [{"id": "1", "amount": price}]},
        )  # fmt: skip


HW_PRICES = {"p2v.2xlarge.8.linux": 21.5, "g6.10xlarge.7.linux": 9.25}


@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    with http_server(_Api) as url:
        yield url


def _fetch(
    provider: str, region: str, options: dict[str, str], tmp_path: Path, *instances: str
) -> tuple[Path, list[Instance]]:
    """``provider``'s prices in ``region`` from the test API (``options``) for the shipped
    catalog's rows (or ``instances``) on DAY, with the test key; the overlay in ``tmp_path``."""
    cat = load_catalog(overlays=False)
    return fetch_api_prices(
        provider,
        CRED,
        cat,
        region=region,
        options=options,
        instances=list(instances) or None,
        dest_dir=tmp_path,
        today=DAY,
    )


def test_alibaba_prices_become_an_overlay_in_cny(api: str, tmp_path: Path) -> None:
    dest, rows = _fetch("alibaba", "cn-hangzhou", {"endpoint": api + "/ali/"}, tmp_path)
    assert dest.name == "api-alibaba-cn-hangzhou.csv"
    got = {r.instance: r for r in rows}
    assert got["ecs.gn7i-c8g1.2xlarge"].price_ondemand_usd_hr == 9.74
    assert all(r.currency == "CNY" and r.as_of == "2026-12-01" for r in rows)
    assert got["ecs.gn7i-c8g1.2xlarge"].gpu_model == "A10"  # the catalog's specs kept
    back = load_catalog(overlay_dir=tmp_path).in_currency("CNY", {})
    gn7i = [i for i in back.instances if i.instance == "ecs.gn7i-c8g1.2xlarge"]
    assert {i.region for i in gn7i} == {"cn-hangzhou", "cn-shanghai/cn-shenzhen"}


def test_tencent_prices_with_zone_and_image(api: str, tmp_path: Path) -> None:
    options = {
        "endpoint": api + "/tc/",
        "zone": "ap-guangzhou-3",
        "image": "img-1",
        "currency": "CNY",
    }
    _, rows = _fetch(
        "tencent", "ap-guangzhou", options, tmp_path, "GN7.2XLARGE32", "GT4.41XLARGE948"
    )
    assert {r.instance: r.price_ondemand_usd_hr for r in rows} == {
        "GN7.2XLARGE32": 8.68,
        "GT4.41XLARGE948": 8.68,
    }
    assert all(r.zone == "ap-guangzhou-3" and r.currency == "CNY" for r in rows)


def _update_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str, comment: str = ""
) -> tuple[list[str], Path]:
    """``catalog update --provider PROVIDER --credentials FILE`` with a key file of mode 0600
    (``comment`` first), and the overlay folder the command writes to."""
    cred = tmp_path / "keys"
    cred.write_text(f"{comment}id = testid\nsecret = testsecret\n", encoding="utf-8")
    os.chmod(cred, 0o600)
    overlays = tmp_path / "overlays"
    monkeypatch.setattr("gpuprof.paths.user_catalog_dir", lambda: overlays)
    return ["catalog", "update", "--provider", provider, "--credentials", str(cred)], overlays


def test_the_command_reads_the_credentials_file(
    api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof.cli import main

    args, overlays = _update_command(tmp_path, monkeypatch, "alibaba", "# mine\n")
    assert main([*args, "--region", "cn-hangzhou", "--endpoint", api + "/ali/"]) == 0
    assert "prices from alibaba's API" in capsys.readouterr().out
    assert (overlays / "api-alibaba-cn-hangzhou.csv").is_file()


def test_huawei_prices_per_flavor_in_the_answers_currency(api: str, tmp_path: Path) -> None:
    options = {"endpoint": api + "/v2/bills/ratings/on-demand-resources", "project": "proj1"}
    dest, rows = _fetch("huawei", "cn-north-4", options, tmp_path, "p2v.2xlarge.8", "g6.10xlarge.7")
    assert dest.name == "api-huawei-cn-north-4.csv"
    got = {r.instance: r for r in rows}
    assert {k: r.price_ondemand_usd_hr for k, r in got.items()} == {
        "p2v.2xlarge.8": 21.5,
        "g6.10xlarge.7": 9.25,
    }
    assert all(r.currency == "CNY" and r.as_of == "2026-12-01" for r in rows)
    assert got["g6.10xlarge.7"].gpu_model == "T4"  # the catalog's specs kept
    # the overlay reads back: the flavor now has a CNY price in cn-north-4
    back = load_catalog(overlay_dir=tmp_path).filter(providers=["huawei"], regions=["cn-north-4"])
    assert {i.instance for i in back.instances} == {"p2v.2xlarge.8", "g6.10xlarge.7"}


def test_huawei_signature_covers_the_body_and_the_date() -> None:
    url = "https://bss.myhuaweicloud.com/v2/bills/ratings/on-demand-resources"
    headers = {"Content-Type": "application/json", "Host": "bss.myhuaweicloud.com"}
    one = huawei.authorization(CRED, url, headers, b"{}", "20261201T080000Z")
    assert one.startswith(
        "SDK-HMAC-SHA256 Access=testid, SignedHeaders=content-type;host;x-sdk-date"
    )
    assert one != huawei.authorization(CRED, url, headers, b'{"a":1}', "20261201T080000Z")
    assert one != huawei.authorization(CRED, url, headers, b"{}", "20261201T080001Z")
    # the canonical URI ends in a slash: the gateway signs .../on-demand-resources/
    assert one == huawei.authorization(CRED, url + "/", headers, b"{}", "20261201T080000Z")


def test_the_command_prices_huawei_flavors_with_a_project(
    api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof.cli import main

    args, overlays = _update_command(tmp_path, monkeypatch, "huawei")
    endpoint = api + "/v2/bills/ratings/on-demand-resources"
    assert main([*args, "--region", "cn-north-4", "--endpoint", endpoint]) == 2  # no project
    assert "--project-id" in capsys.readouterr().err
    assert (
        main([*args, "--region", "cn-north-4", "--project-id", "proj1", "--endpoint", endpoint])
        == 0
    )
    assert "prices from huawei's API" in capsys.readouterr().out
    written = load_catalog(overlay_dir=overlays).filter(
        providers=["huawei"], regions=["cn-north-4"]
    )
    flavors = load_catalog(overlays=False).filter(providers=["huawei"]).instances
    assert {i.instance for i in written.instances} == {i.instance for i in flavors}
