"""``gpuprof catalog list|import``: the cloud instance catalog and user overlays."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gpuprof.argtypes import int_range
from gpuprof.commands.args import add_print_json, add_providers, add_read_limits
from gpuprof.commands.base import Command, add_actions
from gpuprof.commands.tables import folded_table
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.netlimits import CATALOG_MAX_BYTES, CATALOG_TIMEOUT_S
from gpuprof.termtext import plain

from .prices import (
    add_currency_args,
    add_price_api_args,
    audit,
    fx,
    in_display_currency,
    print_rates_used,
    update_from_api,
)

__all__ = [
    "COMMANDS",
    "PAGE_ROWS",
    "add_currency_args",
    "in_display_currency",
    "print_rates_used",
    "provider_label",
]

#: Rows of one ``catalog list`` table: a 100,000-row catalog is shown a page at a time.
PAGE_ROWS = 50
#: The columns of ``catalog list``.
_LIST_COLUMNS = (
    N_("provider"),
    N_("instance"),
    N_("region"),
    "GPU",
    "×",
    "GiB/GPU",
    "vCPU",
    N_("RAM GiB"),
    N_("net Gbps"),
    N_("on-demand /h"),
    N_("spot /h"),
    N_("monthly"),
    N_("as of"),
    N_("source"),
)


def _list_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", help=tr("only this GPU model (e.g. H100, A100-80GB)"))
    add_providers(p)
    _add_rows_args(p)
    p.add_argument(
        "--limit",
        metavar="N",
        type=int_range(0),
        default=None,
        help=tr(
            "show at most N rows (default {n} in the table, all with --json; 0: all)", n=PAGE_ROWS
        ),
    )
    p.add_argument(
        "--offset",
        metavar="N",
        type=int_range(0),
        default=0,
        help=tr("skip the first N rows (the next page: --offset {n})", n=PAGE_ROWS),
    )


def _import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--format",
        choices=("auto", "skypilot", "gpuprof"),
        default="auto",
        help=tr("skypilot (a vms.csv) or gpuprof (our CSV format); default: by header"),
    )
    p.add_argument("--provider", help=tr("provider name for SkyPilot rows (default: folder name)"))


def _update_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--providers",
        metavar="LIST",
        help=tr(
            "comma-separated providers, e.g. aws,gcp (default: all six SkyPilot catalogs we read)"
        ),
    )
    p.add_argument(
        "--prices",
        metavar="URL",
        help=tr(
            "instead: fetch your team's negotiated prices (our catalog CSV, or JSON: an array "
            "of rows with the same keys) from URL; they override public prices and are marked "
            "'negotiated'"
        ),
    )
    api = p.add_argument_group(
        tr("or: current prices from a provider's price API, with your own keys")
    )
    add_price_api_args(api)
    p.add_argument(
        "--url-base",
        metavar="URL",
        help=tr("where the catalogs are: URL/<provider>/vms.csv (default: SkyPilot's v8)"),
    )
    add_read_limits(
        p,
        timeout_s=CATALOG_TIMEOUT_S,
        most_s=3600.0,
        max_bytes=CATALOG_MAX_BYTES,
        timeout_help=N_(
            "seconds each provider's download may take in all, from connecting to the last "
            "byte (default {s:g})"
        ),
        size_help=N_(
            "the largest catalog file read, in MiB; a larger one is an error (default {n})"
        ),
    )


def _audit_arguments(p: argparse.ArgumentParser) -> None:
    _add_rows_args(p)


def _add_rows_args(p: argparse.ArgumentParser) -> None:
    """``--json``, ``--no-overlays`` and the currency flags of ``catalog list`` and ``catalog
    audit``: the rows read and the currency they are compared in (``audit`` checks rows priced
    in CNY once their rate is given)."""
    add_print_json(p)
    p.add_argument("--no-overlays", action="store_true", help=tr("packaged catalog only"))
    add_currency_args(p)


def _fx_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        metavar="CODE=RATE@DATE",
        action="append",
        default=[],
        help=tr("store a rate, units per US dollar on that day, e.g. CNY=7.2@2026-11-30"),
    )
    p.add_argument("--source", default="user", help=tr("where the rate is from (stored with it)"))


def _gpus_arguments(p: argparse.ArgumentParser) -> None:
    add_print_json(p)


def _catalog_arguments(p: argparse.ArgumentParser) -> None:
    add_actions(p, "catalog_command", _ACTIONS, required=True)


def provider_label(name: str) -> str:
    """A provider's name as the interface language writes it (阿里云 in zh_CN)."""
    from gpuprof.catalog.names import PROVIDER_NAMES

    return tr(name) if name in PROVIDER_NAMES else name


def _split(text: str | None) -> list[str] | None:
    return [p for p in text.split(",") if p.strip()] if text else None


def _list(args: argparse.Namespace) -> int:
    from gpuprof.catalog.asof import STALE_DAYS, is_stale
    from gpuprof.catalog.families import instance_label
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.catalog.money import fmt_money, has_price, published_prices, shown_as_of
    from gpuprof.units import NA, fmt_num

    cat = load_catalog(overlays=not args.no_overlays).filter(
        gpu=args.gpu, providers=_split(args.provider)
    )
    cat = in_display_currency(cat, args)
    for issue in cat.issues:
        if issue.severity == "error" or issue.file != "cloud_instances.csv":
            print(f"gpuprof: {issue.severity}: {plain(issue, one_line=True)}", file=sys.stderr)
    print_rates_used(cat)
    total = len(cat.instances)
    limit = args.limit if args.limit is not None else (0 if args.json else PAGE_ROWS)
    end = total if limit == 0 else min(total, args.offset + limit)
    page = cat.instances[args.offset : end]
    if args.json:
        _print_json_rows(page)
        return 0
    from gpuprof.termtext import console

    if len(page) == total:
        title = tr("{n} instances", n=total)
    else:
        title = tr(
            "instances {a}–{b} of {n}",
            a=args.offset + 1 if page else args.offset,
            b=args.offset + len(page),
            n=total,
        )
    # Cells are plain text (markup off): a catalog row is shown as it is, never as markup.
    table = folded_table(title, _LIST_COLUMNS)
    for i in page:
        gpu = i.gpu_model if i.gpu_known else f"{i.gpu_name} (?)"
        own = published_prices(i)

        def money(
            value: float | None,
            published: float | None,
            digits: int,
            own_currency: str = i.currency,
        ) -> str:
            # a price not compared (no rate for its currency) is shown as published
            if value is None and published is not None:
                return fmt_money(published, own_currency, digits=digits)
            return fmt_money(value, cat.currency, digits=digits)

        table.add_row(
            provider_label(i.provider),
            instance_label(i.provider, i.instance),  # "ecs.gn7i-c8g1.2xlarge (GPU计算型 gn7i)"
            i.region or NA,
            gpu,
            f"{i.gpu_count:g}",
            fmt_num(i.gpu_mem_gib, digits=0),
            fmt_num(i.vcpus),
            fmt_num(i.ram_gib),
            fmt_num(i.network_gbps),
            money(i.price_ondemand_usd_hr, own[0], 3),
            money(i.price_spot_usd_hr, own[1], 3),
            money(i.price_monthly_usd, own[4], 0),
            shown_as_of(i) or NA,
            i.source + ("; " + tr("doubtful: {why}", why=i.doubt) if i.doubt else ""),
        )
    console().print(table)
    if any(is_stale(i.as_of) and has_price(i) for i in page):
        print(
            tr(
                "gpuprof: rows marked (old) have prices over {n} days old, and (year only) or "
                "(month only) prices whose day is unknown: gpuprof catalog update fetches "
                "current ones",
                n=STALE_DAYS,
            ),
            file=sys.stderr,
        )
    if end < total:
        print(
            tr(
                "gpuprof: {m} more rows: --offset {o} for the next page, --limit 0 for all",
                m=total - end,
                o=end,
            ),
            file=sys.stderr,
        )
    return 0


def _print_json_rows(rows: Any) -> None:
    """A JSON array, one instance a line, written as it goes: 100,000 rows are never one
    string in memory."""
    from gpuprof.jsonout import dumps

    out = sys.stdout
    out.write("[")
    for n, inst in enumerate(rows):
        out.write(("\n" if n == 0 else ",\n") + dumps(inst.as_dict(), indent=None))
    out.write("\n]\n" if rows else "]\n")
    out.flush()


def _import(args: argparse.Namespace) -> int:
    from gpuprof.catalog.skypilot import import_catalog_file

    path = Path(args.file)
    if not path.is_file():
        raise InputError(tr("no such file: {p}", p=path))
    dest, rows, issues = import_catalog_file(path, fmt=args.format, provider=args.provider)
    for issue in issues:
        print(f"{tr(issue.severity)}: {plain(issue, one_line=True)}", file=sys.stderr)
    bad = sum(1 for i in issues if i.severity == "error")
    unknown = sum(1 for r in rows if not r.gpu_known)
    from gpuprof.catalog.skypilot import COMPOSED_MARK

    composed = sum(1 for r in rows if r.notes.startswith(COMPOSED_MARK))
    if composed:
        print(tr("composed {n} instances from GPU rows and their host VMs", n=composed))
    print(
        tr(
            "imported {n} rows into {d} ({b} bad rows skipped, {u} with an unknown GPU)",
            n=len(rows),
            d=plain(dest, one_line=True),
            b=bad,
            u=unknown,
        )
    )
    return 0


def _update(args: argparse.Namespace) -> int:
    from gpuprof.catalog.update import DEFAULT_PROVIDERS, DEFAULT_URL_BASE, update_catalogs

    if args.provider is not None:
        return update_from_api(args)
    if args.prices is not None:
        from gpuprof.catalog.negotiated import fetch_negotiated

        got = fetch_negotiated(args.prices, timeout=args.timeout, max_bytes=args.max_mib * 2**20)
        print(
            tr(
                "{n} negotiated prices from {u} stored in {p}",
                n=got.rows,
                u=plain(got.url, one_line=True),
                p=plain(got.path, one_line=True),
            )
        )
        return 0

    # A flag given but empty is a mistake, not a request for the defaults.
    providers = list(DEFAULT_PROVIDERS)
    if args.providers is not None:
        providers = [p.strip() for p in args.providers.split(",") if p.strip()]
        if not providers:
            raise InputError(
                tr(
                    "--providers {v!r} names no provider: give some, e.g. aws,gcp, or leave "
                    "the option out for all of them",
                    v=args.providers,
                )
            )
    url_base = DEFAULT_URL_BASE
    if args.url_base is not None:
        url_base = args.url_base.strip()
        if not url_base:
            raise InputError(
                tr(
                    "--url-base is empty: give the URL the catalogs are under, or leave the "
                    "option out for SkyPilot's"
                )
            )
    started: set[str] = set()

    def progress(provider: str, got: int, total: int | None) -> None:
        if provider not in started:
            started.add(provider)
            print(tr("gpuprof: fetching {p}…", p=provider), file=sys.stderr, flush=True)

    done = update_catalogs(
        providers,
        url_base=url_base,
        timeout=args.timeout,
        max_bytes=args.max_mib * 2**20,
        progress=progress,
    )
    for f in done:
        print(
            tr(
                "{p}: {n} instances ({c} composed) from {u}",
                p=f.provider,
                n=f.rows,
                c=f.composed,
                u=plain(f.url, one_line=True),
            )
        )
    if done:
        print(tr("stored in {d}", d=plain(done[0].path.parent, one_line=True)))
    return 0


#: The spec table's rate columns (gpuprof.catalog.specs.SPEC_DTYPES) in the order shown, with
#: their decimals: dense TFLOPS (INT8: TOPS); fp64 is the matrix rate where there is one.
_RATE_COLUMNS = (
    ("fp64", 1),
    ("fp32", 1),
    ("tf32", 1),
    ("bf16", 0),
    ("fp16", 0),
    ("fp8", 0),
    ("fp4", 0),
    ("int8", 0),
)


def _blank_if_unknown(value: float | None, digits: int) -> str:
    """A spec figure as the table shows it: blank when the sources give none."""
    from gpuprof.units import fmt_num

    return "" if value is None else fmt_num(value, digits=digits)


def _gpus(args: argparse.Namespace) -> int:
    from gpuprof.catalog.specs import load_specs
    from gpuprof.units import NA

    specs = load_specs()
    if args.json:
        out = []
        for s in specs.values():
            d = dict(vars(s))
            d["unsupported"] = sorted(s.unsupported)
            out.append(d)
        from gpuprof.jsonout import print_json

        print_json(out)
        return 0
    from gpuprof.termtext import console

    table = folded_table(
        tr("GPU specs (dense TFLOPS; blank = not in sources)"), ("GPU", "GiB", "GB/s")
    )
    for dtype, _ in _RATE_COLUMNS:
        unit = "TOPS" if dtype == "int8" else "TFLOPS"
        table.add_column(f"{dtype.upper()} {unit}", justify="right", overflow="fold")
    for col in (N_("link"), "CC", N_("source")):
        table.add_column(tr(col), overflow="fold")
    for s in specs.values():
        cc = ".".join(map(str, s.cuda_cc)) if s.cuda_cc else NA
        rates = [_blank_if_unknown(s.peak_tflops(dtype), digits) for dtype, digits in _RATE_COLUMNS]
        table.add_row(
            s.key,
            _blank_if_unknown(s.memory_gib, 0),
            _blank_if_unknown(s.memory_bw_gbs, 0),
            *rates,
            s.interconnect or NA,
            cc,
            s.source,
        )
    console().print(table)
    return 0


_ACTIONS = (
    Command(
        "list", N_("list instances (packaged catalog + your overlays)"), _list_arguments, _list
    ),
    Command(
        "import",
        N_("validate a catalog file and store it as an overlay"),
        _import_arguments,
        _import,
    ),
    Command(
        "update",
        N_("download SkyPilot's current catalogs (prices dated the fetch day)"),
        _update_arguments,
        _update,
    ),
    Command(
        "audit",
        N_(
            "check every row: price band per GPU model, its own notes, spot <= on-demand, "
            "GPU count and memory, the date it was read; exit 1 when an outlier is unexplained"
        ),
        _audit_arguments,
        audit,
    ),
    Command("fx", N_("show or set the exchange rates prices are compared at"), _fx_arguments, fx),
    Command("gpus", N_("show the GPU spec table"), _gpus_arguments, _gpus),
)
COMMANDS = (
    Command("catalog", N_("list cloud GPU instances; import user catalogs"), _catalog_arguments),
)
