"""Tencent Cloud CVM ``InquiryPriceRunInstances`` (API version 2017-03-12), signed with
TC3-HMAC-SHA256 as Tencent documents it (``Signature v3``).

Request: ``POST https://cvm.tencentcloudapi.com/`` with the JSON body ``{"Placement": {"Zone":
...}, "ImageId": ..., "InstanceType": ..., "InstanceChargeType": "POSTPAID_BY_HOUR"}`` and the
``X-TC-*`` headers. Answer: ``{"Response": {"Price": {"InstancePrice": {"UnitPriceDiscount":
1.26, "UnitPrice": ..., "ChargeUnit": "HOUR"}}}}`` or ``{"Response": {"Error": {"Code", "Message"}}}``.
The discounted unit price is kept; the currency is the account's (CNY on the China site, USD on
the international one: ``--account-currency``).
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import time
import urllib.parse

from gpuprof.catalog.priceapi.model import Credentials, Quote, api_error, ask, no_price
from gpuprof.catalog.update import _fetchable
from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = ["authorization", "quote"]

VERSION = "2017-03-12"
SERVICE = "cvm"


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def authorization(cred: Credentials, host: str, payload: bytes, timestamp: int) -> str:
    """The ``Authorization`` header of a POST of ``payload`` to ``host`` at ``timestamp``."""
    date = datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d")
    canonical = "\n".join(
        (
            "POST",
            "/",
            "",
            f"content-type:application/json; charset=utf-8\nhost:{host}\n",
            "content-type;host",
            hashlib.sha256(payload).hexdigest(),
        )
    )
    scope = f"{date}/{SERVICE}/tc3_request"
    to_sign = "\n".join(
        ("TC3-HMAC-SHA256", str(timestamp), scope, hashlib.sha256(canonical.encode()).hexdigest())
    )
    key = _hmac(_hmac(_hmac(("TC3" + cred.secret).encode(), date), SERVICE), "tc3_request")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return (
        f"TC3-HMAC-SHA256 Credential={cred.key_id}/{scope}, "
        f"SignedHeaders=content-type;host, Signature={signature}"
    )


def quote(cred: Credentials, itype: str, region: str, options: dict[str, str]) -> Quote:
    zone, image = options.get("zone", ""), options.get("image", "")
    if not zone or not image:
        raise InputError(
            tr(
                "Tencent's price inquiry needs --zone (e.g. ap-guangzhou-3) and --image-id (img-...)"
            )
        )
    endpoint = _fetchable(options.get("endpoint") or "https://cvm.tencentcloudapi.com/")
    host = urllib.parse.urlsplit(endpoint).netloc
    body = {
        "Placement": {"Zone": zone},
        "ImageId": image,
        "InstanceType": itype,
        "InstanceChargeType": "POSTPAID_BY_HOUR",
    }
    payload = json.dumps(body, separators=(",", ":")).encode()
    timestamp = int(options.get("_now") or time.time())
    headers = {
        "Content-Type": "application/json; charset=utf-8",
        "Host": host,
        "X-TC-Action": "InquiryPriceRunInstances",
        "X-TC-Version": VERSION,
        "X-TC-Timestamp": str(timestamp),
        "X-TC-Region": region,
        "Authorization": authorization(cred, host, payload, timestamp),
    }
    data = ask(endpoint, "tencent", data=payload, headers=headers)
    return _parse(data, itype, endpoint, options.get("currency", "CNY"))


def _parse(data: bytes, itype: str, where: str, currency: str) -> Quote:
    try:
        answer = json.loads(data.decode("utf-8"))["Response"]
    except (UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise InputError(tr("{u}: not a Tencent Cloud API answer", u=where)) from None
    if isinstance(answer, dict) and isinstance(answer.get("Error"), dict):
        err = answer["Error"]
        raise api_error(where, itype, err.get("Code", "?"), err.get("Message", ""))
    try:
        price = answer["Price"]["InstancePrice"]
        value = float(price.get("UnitPriceDiscount", price["UnitPrice"]))
        unit = str(price.get("ChargeUnit", "HOUR")).upper()
    except (KeyError, TypeError, ValueError, AttributeError):
        raise no_price(where, itype, "Price.InstancePrice") from None
    if unit != "HOUR" or not (0 <= value < 1e6):
        raise InputError(
            tr("{u}: implausible price for {i}: {v} per {c}", u=where, i=itype, v=value, c=unit)
        )
    return Quote(itype, value, currency.upper())
