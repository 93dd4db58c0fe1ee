"""The ``catalog`` commands about what prices can be trusted (issue 24): the display
currency and dated exchange rates (``--currency``, ``--fx-rate``; ``catalog fx``), the audit of
every row (``catalog audit``) and prices from a provider's own API (``catalog update
--provider``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NamedTuple

from gpuprof.commands.tables import folded_table
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.termtext import plain

__all__ = [
    "add_currency_args",
    "add_price_api_args",
    "audit",
    "fx",
    "in_display_currency",
    "print_rates_used",
    "update_from_api",
]


def add_currency_args(p: Any) -> None:
    """``--currency`` and ``--fx-rate`` (catalog list, recommend)."""
    from gpuprof.catalog.money import CURRENCIES

    p.add_argument(
        "--currency",
        type=str.upper,
        choices=tuple(CURRENCIES),
        default="USD",
        help=tr(
            "compare and show prices in this currency (default USD); rows published in "
            "another need its rate"
        ),
    )
    p.add_argument(
        "--fx-rate",
        action="append",
        default=[],
        metavar="CODE=RATE@DATE",
        help=tr(
            "an exchange rate for this command, units per US dollar and the day it holds, "
            "e.g. CNY=7.2@2026-11-30 (repeatable; overrides the rates file: gpuprof catalog fx)"
        ),
    )


def in_display_currency(cat: Any, args: argparse.Namespace) -> Any:
    """``cat`` with its prices in ``--currency`` at the rates file + ``--fx-rate``."""
    from gpuprof.catalog.money import rates_from

    if not args.fx_rate and args.currency == cat.currency:
        return cat
    return cat.in_currency(args.currency, rates_from(args.fx_rate, base=cat.rates))


def print_rates_used(cat: Any) -> None:
    """One line per exchange rate the prices were converted at (stderr)."""
    used = {i.currency for i in cat.instances} | {cat.currency}
    for code in sorted(used - {"USD"}):
        rate = cat.rates.get(code)
        if rate is not None:
            print(
                tr(
                    "gpuprof: prices in {c}; {r}",
                    c=cat.currency,
                    r=plain(rate.describe(), one_line=True),
                ),
                file=sys.stderr,
            )


def fx(args: argparse.Namespace) -> int:
    from gpuprof.catalog import money

    for spec in args.set:
        rate = money.parse_fx_rate(spec, source="--set")
        rate = money.FxRate(rate.currency, rate.per_usd, rate.as_of, args.source.strip() or "user")
        path = money.save_rate(rate)
        print(tr("stored {r} in {p}", r=rate.describe(), p=plain(path, one_line=True)))
    rates = money.load_rates()
    if not rates:
        print(
            tr(
                "no exchange rates set: prices in other currencies are not compared "
                "(gpuprof catalog fx --set CNY=RATE@YYYY-MM-DD)"
            )
        )
    for rate in rates.values():
        print(plain(rate.describe(), one_line=True))
    return 0


def not_compared(cat: Any) -> dict[str, list[Any]]:
    """Rows with a published price that has no comparable one in ``cat`` (no rate for their
    currency), per currency: the audit's price rules cannot see them."""
    from gpuprof.catalog.money import published_prices

    out: dict[str, list[Any]] = {}
    for inst in cat.instances:
        comparable = (
            inst.price_ondemand_usd_hr,
            inst.price_spot_usd_hr,
            inst.price_reserved_1y_usd_hr,
            inst.price_reserved_3y_usd_hr,
            inst.price_monthly_usd,
        )
        if all(p is None for p in comparable) and any(
            p is not None for p in published_prices(inst)
        ):
            out.setdefault(inst.currency, []).append(inst)
    return out


def audit(args: argparse.Namespace) -> int:
    """Exit 0: every finding is one the row already states (doubtful); 1: some finding is
    unexplained (a row without the day it was read is one); 2: the catalog cannot be read."""
    from gpuprof.catalog.audit import audit, summary
    from gpuprof.catalog.instances import load_catalog

    cat = load_catalog(overlays=not args.no_overlays)
    for issue in cat.issues:
        if issue.severity == "error":
            print(f"gpuprof: {issue.severity}: {plain(issue, one_line=True)}", file=sys.stderr)
    cat = in_display_currency(cat, args)
    print_rates_used(cat)
    findings = audit(cat)
    unexplained = sum(1 for f in findings if not f.known)
    unchecked = not_compared(cat)
    if args.json:
        from gpuprof.jsonout import print_json

        print_json(
            {
                "rows": len(cat.instances),
                "currency": cat.currency,
                "summary": summary(findings),
                "unexplained": unexplained,
                "not_compared": {c: len(rows) for c, rows in sorted(unchecked.items())},
                "findings": [f.as_dict() for f in findings],
            }
        )
        return 1 if unexplained else 0
    for code, rows in sorted(unchecked.items()):
        print(
            tr(
                "{n} rows priced in {c} were not checked against the price bands: no "
                "exchange rate for {c} (--fx-rate {c}=RATE@YYYY-MM-DD)",
                n=len(rows),
                c=code,
            ),
            file=sys.stderr,
        )

    from gpuprof.termtext import console

    shown = findings
    table = folded_table(
        tr("catalog audit: {n} rows, {k} findings", n=len(cat.instances), k=len(findings)),
        (
            N_("rule"),
            N_("provider"),
            N_("instance"),
            N_("region"),
            N_("reason"),
            N_("status"),
        ),
    )
    for f in shown:
        table.add_row(
            f.rule,
            f.provider,
            f.instance,
            f.region,
            f.reason,
            tr("known (the row says so)") if f.known else tr("UNEXPLAINED"),
        )
    if shown:
        console().print(table)
    print(
        tr(
            "{u} unexplained findings; {k} known (rows marked doubtful: why)",
            u=unexplained,
            k=len(findings) - unexplained,
        )
    )
    return 1 if unexplained else 0


class _ApiOption(NamedTuple):
    """A flag of ``catalog update --provider`` that the price API receives as ``options[key]``."""

    key: str
    flag: str
    help: str  # marked with N_, translated when the flag is added
    metavar: str | None = "ID"
    default: str = ""
    choices: tuple[str, ...] | None = None

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")


#: The price API's options, in --help order.
_API_OPTIONS = (
    _ApiOption("zone", "--zone", N_("tencent: e.g. ap-guangzhou-3")),
    _ApiOption("image", "--image-id", N_("tencent: an image to price with (img-...)")),
    _ApiOption(
        "project",
        "--project-id",
        N_("huawei: any project ID of your account (the inquiry asks for one)"),
    ),
    _ApiOption(
        "currency",
        "--account-currency",
        N_(
            "tencent, huawei: the currency your account is billed in (default CNY; Huawei's "
            "answer names its own)"
        ),
        metavar=None,
        default="CNY",
        choices=("CNY", "USD"),
    ),
    _ApiOption("endpoint", "--endpoint", N_("the API's address (default: the provider's)"), "URL"),
)


def add_price_api_args(group: argparse._ActionsContainer) -> None:
    """The flags of ``catalog update --provider``: which API, your keys, and its options."""
    group.add_argument(
        "--provider",
        metavar="NAME",
        help=tr(
            "alibaba (DescribePrice), tencent (InquiryPriceRunInstances) or huawei "
            "(ListOnDemandResourceRatings)"
        ),
    )
    group.add_argument(
        "--credentials",
        metavar="FILE",
        help=tr("a file with 'id = ...' and 'secret = ...' lines, readable by you only"),
    )
    group.add_argument(
        "--region", metavar="ID", default="", help=tr("e.g. cn-hangzhou, ap-guangzhou")
    )
    for o in _API_OPTIONS:
        group.add_argument(
            o.flag, metavar=o.metavar, default=o.default, choices=o.choices, help=tr(o.help)
        )


def update_from_api(args: argparse.Namespace) -> int:
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.catalog.priceapi import fetch_api_prices, read_credentials

    if not args.credentials:
        raise InputError(tr("--provider needs --credentials FILE (your own API keys)"))
    cred = read_credentials(Path(args.credentials))
    options = {o.key: getattr(args, o.dest, o.default) for o in _API_OPTIONS}
    dest, rows = fetch_api_prices(
        args.provider, cred, load_catalog(), region=args.region, options=options
    )
    print(
        tr(
            "{n} prices from {p}'s API stored in {d}",
            n=len(rows),
            p=plain(args.provider, one_line=True),
            d=plain(dest, one_line=True),
        )
    )
    return 0
