"""Huawei Cloud BSS ``ListOnDemandResourceRatings`` (查询按需产品价格, API v2), signed with the
AK/SK ``SDK-HMAC-SHA256`` scheme of Huawei's API gateway as its SDKs sign.

Request: ``POST https://bss.myhuaweicloud.com/v2/bills/ratings/on-demand-resources`` (the
international site: ``bss-intl.myhuaweicloud.com``) with the JSON body ``{"project_id": ...,
"product_infos": [{"id": "1", "cloud_service_type": "hws.service.type.ec2", "resource_type":
"hws.resource.type.vm", "resource_spec": "p2s.2xlarge.8.linux", "region": "cn-north-4",
"usage_factor": "Duration", "usage_value": 1, "usage_measure_id": 4, "subscription_num": 1}]}``
(one hour of a Linux flavor; ``usage_measure_id`` 4 is the hour) and the ``X-Sdk-Date`` header.
Answer: ``{"amount": 17.5, "official_website_amount": ..., "measure_id": 1, "currency": "CNY",
...}`` (``measure_id`` 1: yuan, or the currency's main unit) or ``{"error_code", "error_msg"}``.
The ``amount`` (after the account's discounts) is kept, in the answer's currency.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import math
import time
import urllib.parse

from gpuprof.catalog.priceapi.model import Credentials, Quote, api_error, ask, no_price
from gpuprof.catalog.update import _fetchable
from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = ["ENDPOINT", "authorization", "quote"]

ENDPOINT = "https://bss.myhuaweicloud.com/v2/bills/ratings/on-demand-resources"
ALGORITHM = "SDK-HMAC-SHA256"
_SIGNED = ("content-type", "host", "x-sdk-date")
#: The answer's measure_id for the currency's main unit (元 / dollar); 2 and 3 are 角 / 分.
_MAIN_UNIT = 1


def _uri(path: str) -> str:
    # each segment percent-encoded, and always a trailing slash (the gateway's canonical URI)
    parts = [urllib.parse.quote(p, safe="-_.~") for p in urllib.parse.unquote(path).split("/")]
    joined = "/".join(parts)
    return joined if joined.endswith("/") else joined + "/"


def authorization(
    cred: Credentials, url: str, headers: dict[str, str], payload: bytes, stamp: str
) -> str:
    """The ``Authorization`` header of a POST of ``payload`` to ``url`` with ``headers`` (which
    hold Content-Type, Host and X-Sdk-Date = ``stamp``, e.g. 20261201T080000Z)."""
    lower = {k.lower(): v.strip() for k, v in headers.items()}
    lower["x-sdk-date"] = stamp
    parts = urllib.parse.urlsplit(url)
    query = "&".join(
        f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}"
        for k, v in sorted(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    )
    canonical = "\n".join(
        (
            "POST",
            _uri(parts.path or "/"),
            query,
            "".join(f"{h}:{lower[h]}\n" for h in _SIGNED),
            ";".join(_SIGNED),
            hashlib.sha256(payload).hexdigest(),
        )
    )
    to_sign = f"{ALGORITHM}\n{stamp}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    signature = hmac.new(cred.secret.encode(), to_sign.encode(), hashlib.sha256).hexdigest()
    return (
        f"{ALGORITHM} Access={cred.key_id}, SignedHeaders={';'.join(_SIGNED)}, "
        f"Signature={signature}"
    )


def quote(cred: Credentials, itype: str, region: str, options: dict[str, str]) -> Quote:
    project = options.get("project", "").strip()
    if not project:
        raise InputError(
            tr("Huawei's price inquiry needs --project-id (any project of your account)")
        )
    endpoint = _fetchable(options.get("endpoint") or ENDPOINT)
    host = urllib.parse.urlsplit(endpoint).netloc
    spec = itype if itype.endswith((".linux", ".win")) else f"{itype}.linux"
    body = {
        "project_id": project,
        "product_infos": [
            {
                "id": "1",
                "cloud_service_type": "hws.service.type.ec2",
                "resource_type": "hws.resource.type.vm",
                "resource_spec": spec,
                "region": region,
                "usage_factor": "Duration",
                "usage_value": 1,
                "usage_measure_id": 4,
                "subscription_num": 1,
            }
        ],
    }
    payload = json.dumps(body, separators=(",", ":")).encode()
    now = float(options.get("_now") or time.time())
    stamp = datetime.datetime.fromtimestamp(now, datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    headers = {"Content-Type": "application/json;charset=UTF-8", "Host": host, "X-Sdk-Date": stamp}
    headers["Authorization"] = authorization(cred, endpoint, headers, payload, stamp)
    data = ask(endpoint, "huawei", data=payload, headers=headers)
    return _parse(data, itype, endpoint, options.get("currency", "CNY"))


def _parse(data: bytes, itype: str, where: str, currency: str) -> Quote:
    try:
        answer = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InputError(tr("{u}: not a Huawei Cloud API answer", u=where)) from None
    if not isinstance(answer, dict):
        raise InputError(tr("{u}: not a Huawei Cloud API answer", u=where))
    if "error_code" in answer:
        raise api_error(where, itype, answer.get("error_code", "?"), answer.get("error_msg", ""))
    try:
        value = float(answer["amount"])
        unit = int(answer.get("measure_id", _MAIN_UNIT))
    except (KeyError, TypeError, ValueError):
        raise no_price(where, itype, "amount") from None
    code = str(answer.get("currency") or currency).upper()
    if unit != _MAIN_UNIT or not math.isfinite(value) or not (0 <= value < 1e6):
        raise InputError(
            tr("{u}: implausible price for {i}: {v} per {c}", u=where, i=itype, v=value, c=code)
        )
    if not (len(code) == 3 and code.isalpha() and code.isascii()):
        raise InputError(
            tr("{u}: implausible price for {i}: {v} per {c}", u=where, i=itype, v=value, c="?")
        )
    return Quote(itype, value, code)
