"""Alibaba Cloud ECS ``DescribePrice`` (API version 2014-05-26), signed with the RPC
signature v1 (HMAC-SHA1 over the sorted, percent-encoded query) as Alibaba documents it.

Request: ``GET https://ecs.<region>.aliyuncs.com/?Action=DescribePrice&ResourceType=instance
&InstanceType=...&PriceUnit=Hour&RegionId=...`` plus the common parameters. Answer:
``{"PriceInfo": {"Price": {"TradePrice": 9.74, "OriginalPrice": ..., "Currency": "CNY"}}}``;
the trade price (after the account's discounts) is kept.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
import urllib.parse
import uuid

from gpuprof.catalog.priceapi.model import Credentials, Quote, ask, no_price
from gpuprof.catalog.update import _fetchable
from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = ["quote", "signed_query"]

VERSION = "2014-05-26"


def _enc(text: str) -> str:
    # RFC 3986: what Alibaba's signature expects (space %20, * %2A, ~ kept)
    return urllib.parse.quote(text, safe="~")


def signed_query(params: dict[str, str], secret: str) -> str:
    """``params`` with ``Signature`` added, as a query string."""
    canonical = "&".join(f"{_enc(k)}={_enc(v)}" for k, v in sorted(params.items()))
    to_sign = "GET&%2F&" + _enc(canonical)
    digest = hmac.new((secret + "&").encode(), to_sign.encode(), hashlib.sha1).digest()
    signature = base64.b64encode(digest).decode()
    return canonical + "&Signature=" + _enc(signature)


def quote(cred: Credentials, itype: str, region: str, options: dict[str, str]) -> Quote:
    endpoint = options.get("endpoint") or f"https://ecs.{region}.aliyuncs.com/"
    now = options.get("_now") or datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    params = {
        "Action": "DescribePrice",
        "Version": VERSION,
        "Format": "JSON",
        "AccessKeyId": cred.key_id,
        "SignatureMethod": "HMAC-SHA1",
        "SignatureVersion": "1.0",
        "SignatureNonce": options.get("_nonce") or uuid.uuid4().hex,
        "Timestamp": now,
        "RegionId": region,
        "ResourceType": "instance",
        "InstanceType": itype,
        "PriceUnit": "Hour",
    }
    url = _fetchable(endpoint.rstrip("/") + "/?" + signed_query(params, cred.secret))
    shown = endpoint  # the signed query carries the key id: never in a message
    try:
        data = ask(url, "alibaba")
    except InputError as exc:
        raise InputError(str(exc).replace(url, shown)) from None
    return _parse(data, itype, shown)


def _parse(data: bytes, itype: str, where: str) -> Quote:
    try:
        answer = json.loads(data.decode("utf-8"))
        price = answer["PriceInfo"]["Price"]
        value = float(price["TradePrice"])
        currency = str(price.get("Currency") or "CNY").upper()
    except (UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise no_price(where, itype, "PriceInfo.Price.TradePrice") from None
    if not (value >= 0 and value < 1e6) or len(currency) != 3 or not currency.isalpha():
        raise InputError(
            tr("{u}: implausible price for {i}: {v} {c}", u=where, i=itype, v=value, c=currency)
        )
    return Quote(itype, value, currency)
