"""``gpuprof catalog update --provider alibaba|tencent|huawei --credentials FILE``: current prices of
the catalog's GPU instance types from the provider's own price inquiry API, with the user's
keys, only when asked.

The requests are signed here with the standard library (Alibaba's RPC signature v1 for
``DescribePrice``, Tencent's TC3-HMAC-SHA256 for ``InquiryPriceRunInstances``, Huawei's
SDK-HMAC-SHA256 for BSS ``ListOnDemandResourceRatings``): no SDK is needed. Each answer becomes a row of the overlay ``api-<provider>-<region>.csv`` (the specs of
the catalog's row, the price as the API gave it, in its currency, dated today, the API as its
source), which replaces the public row of the same provider, instance and region. Nothing is
written unless every instance type was priced.

Credentials file (UTF-8 text, one ``key = value`` a line, ``#`` comments): ``id`` (Alibaba
AccessKey ID / Tencent SecretId / Huawei AK) and ``secret``. It should be readable by its owner only; a
file others can read is refused.
"""

from __future__ import annotations

import datetime
import os
import stat
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from gpuprof.catalog.instances import Catalog, Instance, write_instances_csv
from gpuprof.catalog.names import file_stem, provider_key
from gpuprof.catalog.priceapi import alibaba, huawei, tencent
from gpuprof.catalog.priceapi.model import Credentials, Quote, QuoteFn
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.jsonin import utf8_text

__all__ = ["API_PROVIDERS", "Credentials", "Quote", "fetch_api_prices", "read_credentials"]

#: The most a credentials file may hold.
_MAX_CREDENTIALS_BYTES = 4096


def read_credentials(path: Path) -> Credentials:
    """The key id and secret in ``path``; one InputError naming the file for anything else."""
    try:
        st = path.stat()
    except OSError as exc:
        raise InputError(tr("{p}: cannot read: {e}", p=path, e=exc.strerror or exc)) from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(tr("{p}: not a regular file", p=path))
    if os.name == "posix" and st.st_mode & 0o077:
        raise InputError(
            tr(
                "{p}: readable by others (mode {m:o}): chmod 600 it first",
                p=path,
                m=st.st_mode & 0o777,
            )
        )
    if st.st_size > _MAX_CREDENTIALS_BYTES:
        raise InputError(
            tr("{p}: over {n} bytes: not a credentials file", p=path, n=_MAX_CREDENTIALS_BYTES)
        )
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(tr("{p}: cannot read: {e}", p=path, e=exc.strerror or exc)) from None
    text = utf8_text(raw, path)
    values: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise InputError(tr("{p}:{n}: expected key = value", p=path, n=n))
        values[key.strip().lower()] = value.strip()
    key_id, secret = values.get("id", ""), values.get("secret", "")
    if not key_id or not secret:
        raise InputError(tr("{p}: needs both id = ... and secret = ...", p=path))
    if not (key_id.isprintable() and secret.isprintable()):
        raise InputError(tr("{p}: id or secret holds control characters", p=path))
    return Credentials(key_id, secret)


def _quoters() -> dict[str, QuoteFn]:
    return {
        "alibaba cloud": alibaba.quote,
        "tencent cloud": tencent.quote,
        "huawei cloud": huawei.quote,
    }


#: The providers whose price API is implemented, as ``--provider`` takes them.
API_PROVIDERS = ("alibaba", "tencent", "huawei")


def fetch_api_prices(
    provider: str,
    credentials: Credentials,
    catalog: Catalog,
    *,
    region: str,
    options: dict[str, str] | None = None,
    instances: Sequence[str] | None = None,
    dest_dir: Path | None = None,
    today: datetime.date | None = None,
    quoter: QuoteFn | None = None,
) -> tuple[Path, list[Instance]]:
    """Price every GPU instance type of ``provider`` in ``catalog`` (or ``instances``) in
    ``region``; write the overlay; return its path and rows."""
    key = provider_key(provider)
    quote = quoter or _quoters().get(key)
    if quote is None:
        raise InputError(
            tr(
                "no price API for {p}: one of {ok}",
                p=provider,
                ok=", ".join(API_PROVIDERS),
            )
        )
    region = region.strip()
    if not region:
        raise InputError(
            tr("--region is needed for the price API (e.g. cn-hangzhou, ap-guangzhou)")
        )
    rows = [i for i in catalog.instances if i.provider.lower() == key]
    if instances:
        want = {i.strip().lower() for i in instances}
        rows = [i for i in rows if i.instance.lower() in want]
    # one row per instance type: the catalog's specs, the API's price
    by_type: dict[str, Instance] = {}
    for inst in rows:
        by_type.setdefault(inst.instance, inst)
    if not by_type:
        raise InputError(tr("no {p} instance types in the catalog to price", p=provider))
    day = (today or datetime.date.today()).isoformat()
    priced = []
    for itype, inst in by_type.items():
        q = quote(credentials, itype, region, dict(options or {}))
        priced.append(
            replace(
                inst,
                region=region,
                zone=(options or {}).get("zone", ""),
                price_ondemand_usd_hr=q.price_hr,
                price_spot_usd_hr=None,
                price_reserved_1y_usd_hr=None,
                price_reserved_3y_usd_hr=None,
                price_monthly_usd=None,
                published=(),
                currency=q.currency,
                as_of=day,
                source=tr("{p} price API, read {d}", p=inst.provider, d=day),
                notes=tr("pay-as-you-go price the provider's API quoted for this account"),
                origin="api",
            )
        )
    if dest_dir is None:
        from gpuprof.paths import user_catalog_dir

        dest_dir = user_catalog_dir()
    dest_dir.mkdir(parents=True, exist_ok=True)
    name = file_stem(key.split()[0], fallback="provider")
    dest = dest_dir / f"api-{name}-{file_stem(region, fallback='region')}.csv"
    write_instances_csv(priced, dest)
    return dest, priced
