"""Numbers at the edge: every numeric flag of every sub-command against hostile values.

``nan``, ``inf``, ``1e999``, a negative count, zero where zero means nothing, a percentage of
250: each is a usage error in one line naming the flag (exit 2) before any work starts. The
table :data:`NUMERIC_FLAGS` must name every numeric flag the parser has (a test walks the parser),
so a new flag inherits the faults. Values that parse but no real workload or catalog row can have
(``--params 1e30``, 1e12 GPUs in a row, prices as of 2099) get a clear error too.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.hostile import assert_one_clear_error, run_gpuprof

#: Not numbers at all, or not finite: refused by every numeric flag.
NOT_FINITE = ("nan", "NaN", "inf", "-inf", "1e999", "abc", "")

_WORKLOAD = ["recommend", "--scenario", "pretrain", "--params", "7e9", "--tokens", "1e9"]
_SERVE = ["recommend", "--scenario", "serve", "--params", "7e9"]
_REPORT_SERVE = ["report", "--out", "r.json", "--scenario", "serve", "--model", "llama-3-8b"]

#: (sub-command path, flag) -> (arguments the flag needs around it, a good value, values out of
#: its range besides NOT_FINITE).
NUMERIC_FLAGS: dict[tuple[str, str], tuple[list[str], str, tuple[str, ...]]] = {
    ("", "--after"): ([], "3", ("-1", "3601")),
    ("", "--interval"): ([], "1", ("0", "0.01", "61", "-1")),
    ("", "--size"): ([], "1600x1000", ("0x0", "100000x100", "nanxnan")),
    ("monitor", "--interval"): (["monitor"], "1", ("0", "61")),
    ("monitor", "--count"): (["monitor"], "3", ("0", "-1", "2.5")),
    ("record", "--duration"): (["record", "--out", "x.gpuprof"], "10", ("0", "-5", "1e12")),
    ("record", "--interval"): (["record", "--out", "x.gpuprof"], "1", ("0", "1e9")),
    ("replay", "--speed"): (["replay", "x.gpuprof"], "2", ("0", "-2", "1e12")),
    ("bench list", "--limit"): (["bench", "list"], "5", ("0", "-1", "1.5")),
    ("catalog list", "--limit"): (["catalog", "list"], "10", ("-1", "1.5")),  # 0: all rows
    ("catalog list", "--offset"): (["catalog", "list"], "50", ("-1", "1.5")),
    ("catalog update", "--timeout"): (["catalog", "update"], "60", ("0", "-1", "3601")),
    ("catalog update", "--max-mib"): (["catalog", "update"], "32", ("0", "-1", "1.5", "4097")),
    ("recommend", "--params"): ([*_WORKLOAD[:3], "--tokens", "1e9"], "7B", ("-1", "1e30")),
    ("recommend", "--tokens"): (_WORKLOAD[:5], "1e9", ("0", "-1", "1e30")),
    ("recommend", "--samples"): (_WORKLOAD[:5], "1e6", ("0", "1e30")),
    ("recommend", "--epochs"): (_WORKLOAD, "3", ("0", "-1", "1e9")),
    ("recommend", "--seq-len"): (_WORKLOAD, "4096", ("0", "-1", "1e12", "4.5")),
    ("recommend", "--batch"): (_WORKLOAD, "64", ("0", "-8")),
    ("recommend", "--prompt-len"): (_WORKLOAD, "128", ("-1", "2.5", "1e12")),
    ("recommend", "--flops"): (_WORKLOAD, "1e21", ("0", "1e40")),
    ("recommend", "--deadline"): (_WORKLOAD, "72h", ("0", "-1h", "9" * 400, "200000d")),
    ("recommend", "--throughput"): (_WORKLOAD, "1000", ("0", "1e20")),
    ("recommend", "--budget"): (_WORKLOAD, "$5k", ("0", "-5", "1e20")),
    ("recommend", "--nodes"): (_WORKLOAD, "4", ("0", "-1", "100000")),
    ("recommend", "--gpus"): ([*_WORKLOAD, "--gpu", "H100"], "8", ("0", "-8", "1e12")),
    ("recommend", "--util"): (_WORKLOAD, "40", ("250", "-1", "100.5")),
    ("recommend", "--output-len"): (_SERVE, "200", ("0", "-1", "2.5", "1e12")),
    ("recommend", "--rate"): (_SERVE, "10", ("0", "-1", "1e20")),
    ("recommend", "--ttft"): (_SERVE, "2s", ("0", "-1s", "2h", "soon")),
    ("recommend", "--tpot"): (_SERVE, "50ms", ("0ms", "-5ms", "5m", "fast")),
    ("recommend", "--tp"): (_SERVE, "8", ("0", "-1", "65", "2.5")),
    ("recommend", "--limit"): (_WORKLOAD, "10", ("0", "-1")),
    ("recommend", "--steps"): (
        ["recommend", "--from-profile", "x.gpuprof"],
        "1000",
        ("0", "-1", "2.5", "1e13"),
    ),
    ("profile", "--interval"): (["profile"], "1", ("0", "0.01", "61")),
    ("profile", "--attach"): (["profile"], "1234", ("0", "-1", "1.5", "99999999")),
    ("profile", "--grace"): (["profile"], "10", ("-1", "3601")),
    ("report", "--duration"): (["report", "--out", "r.html"], "3", ("0", "-1", "1e9")),
    ("report", "--params"): (
        ["report", "--out", "r.json", "--recommend", "cv-train"],
        "7B",
        ("1e30",),
    ),
    ("report", "--tokens"): (
        ["report", "--out", "r.json", "--recommend", "cv-train"],
        "1e9",
        ("0",),
    ),
    # report's serving flags are recommend's (one definition, add_shared_flags).
    ("report", "--prompt-len"): (_REPORT_SERVE, "1000", ("-1", "2.5", "1e12")),
    ("report", "--output-len"): (_REPORT_SERVE, "200", ("0", "-1", "2.5", "1e12")),
    ("report", "--rate"): (_REPORT_SERVE, "10", ("0", "-1", "1e20")),
    ("report", "--throughput"): (_REPORT_SERVE, "1000", ("0", "1e20")),
    ("report", "--ttft"): (_REPORT_SERVE, "2s", ("0", "-1s", "2h", "soon")),
    ("report", "--tpot"): (_REPORT_SERVE, "50ms", ("0ms", "-5ms", "5m", "fast")),
    ("check", "--minutes"): (["check"], "10", ("0", "-1", "1441")),
    ("exporter", "--port"): (["exporter"], "9400", ("-1", "65536", "1.5")),
    ("exporter", "--interval"): (["exporter"], "1", ("0", "61")),
    ("exporter", "--stale-after"): (["exporter"], "10", ("0", "-1")),
    ("fleet", "--timeout"): (
        ["fleet", "--prometheus", "http://127.0.0.1:9"],
        "10",
        ("0", "-1", "601"),
    ),
    ("fleet", "--idle-minutes"): (
        ["fleet", "--prometheus", "http://127.0.0.1:9"],
        "30",
        ("0", "-5", "1e9"),
    ),
    ("fleet", "--max-mib"): (
        ["fleet", "--prometheus", "http://127.0.0.1:9"],
        "32",
        ("0", "-1", "1.5", "4097"),
    ),
}


def _parser() -> argparse.ArgumentParser:
    from gpuprof.cli import build_parser

    return build_parser()


def _subparsers(
    parser: argparse.ArgumentParser, path: str = ""
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subparsers(sub, f"{path} {name}".strip())


#: Converting types that are not numbers: a path (argtypes.output_file) and a word folded to one
#: case before its ``choices`` are checked (``catalog list --currency cny``).
_NOT_NUMBERS = ("file", "upper", "lower")


def _numeric_flags() -> dict[tuple[str, str], argparse.Action]:
    """Every option whose value argparse converts (type=...), by (sub-command, flag)."""
    out = {}
    for path, parser in _subparsers(_parser()):
        for action in parser._actions:
            kind = getattr(action.type, "__name__", "")
            if action.type is not None and action.option_strings and kind not in _NOT_NUMBERS:
                out[(path, action.option_strings[-1])] = action
    return out


def test_every_numeric_flag_uses_a_shared_checked_type_and_is_in_the_table() -> None:
    found = _numeric_flags()
    bare = sorted(key for key, action in found.items() if action.type in (int, float))
    assert bare == [], f"bare int/float types accept nan, inf and negatives: {bare}"
    assert sorted(found) == sorted(NUMERIC_FLAGS), "a numeric flag is missing from NUMERIC_FLAGS"


def _cases() -> Iterator[tuple[tuple[str, str], str]]:
    for key, (_, _, bad) in NUMERIC_FLAGS.items():
        for value in (*NOT_FINITE, *bad):
            yield key, value


def _argv(key: tuple[str, str], value: str) -> list[str]:
    around, _, _ = NUMERIC_FLAGS[key]
    flag = key[1]
    if key[0] == "":
        return [f"{flag}={value}"]
    return [*around, f"{flag}={value}"]


@pytest.mark.parametrize(("key", "value"), list(_cases()), ids=lambda x: str(x)[:40])
@pytest.mark.slow
def test_a_hostile_number_is_one_usage_error_naming_the_flag(
    key: tuple[str, str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        _parser().parse_args(_argv(key, value))
    assert done.value.code == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "error" in err[0], err
    assert key[1] in err[0], err


@pytest.mark.parametrize("key", list(NUMERIC_FLAGS), ids=lambda k: " ".join(k).strip())
def test_a_sane_number_is_accepted(key: tuple[str, str]) -> None:
    """The refusals above are for the value: the same command line with a sane one parses."""
    good = NUMERIC_FLAGS[key][1]
    args = _parser().parse_args(_argv(key, good))
    dest = next(a.dest for a in _numeric_flags().values() if key[1] in a.option_strings)
    assert getattr(args, dest) is not None


# --- end to end: the examples of the issue, through the CLI ---------------------------------------


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["report", "--demo", "--duration", "nan", "--out", "r.html"], "--duration"),
        (["record", "--demo", "--duration", "nan", "--out", "x.gpuprof"], "--duration"),
        (["recommend", "--preset", "cv-train", "--util", "250"], "--util"),
        (["recommend", "--preset", "cv-train", "--limit", "-1"], "--limit"),
        (["monitor", "--demo", "--count", "0"], "--count"),
        (["recommend", "--preset", "cv-train", "--measured", "H100:bf16=1e999"], "--measured"),
        (["recommend", "--preset", "cv-train", "--measured", "H100:bf16=0"], "--measured"),
        (["recommend", "--preset", "cv-train", "--measured", "H100:bf16=1e9"], "--measured"),
        (
            ["recommend", "--scenario", "pretrain", "--params", "1e30", "--tokens", "1e12"],
            "--params",
        ),
        # each number is possible, together they are not a job: 6e29 FLOPs
        (["recommend", "--scenario", "pretrain", "--params", "1e14", "--tokens", "1e15"], "FLOPs"),
    ],
)
@pytest.mark.slow
def test_the_issues_examples_get_a_clear_error(args: list[str], names: str, tmp_path: Path) -> None:
    ran = run_gpuprof(args, tmp_path)
    assert_one_clear_error(ran, names)
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "x.gpuprof").exists()


def test_a_big_but_possible_workload_gets_a_warning_above_the_table(tmp_path: Path) -> None:
    ran = run_gpuprof(
        [
            "recommend",
            "--scenario",
            "pretrain",
            "--params",
            "2e12",
            "--tokens",
            "1e14",
            "--limit",
            "2",
        ],
        tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    warned = next(i for i, line in enumerate(lines) if "check its numbers" in line)
    table = next(i for i, line in enumerate(lines) if "candidates fit" in line)
    assert warned < table


# --- the core: workload plausibility and the parsers ------------------------------------------------


def test_the_workload_refuses_numbers_no_real_job_has() -> None:
    from gpuprof.errors import InputError
    from gpuprof.recommend.workload import LIMITS, Workload

    base = {"scenario": "pretrain", "params": 7e9, "tokens": 1e12}
    Workload(**base)  # sane
    for name, limit in LIMITS.items():
        value = limit * 10
        if name in ("seq_len", "batch", "node_limit"):
            value = int(value)
        with pytest.raises(InputError, match=name.split("_")[0]):
            Workload(**{**base, name: value})
    with pytest.raises(InputError, match="FLOPs"):
        Workload(scenario="pretrain", params=1e14, tokens=1e15)
    big = Workload(scenario="pretrain", params=2e12, tokens=1e14)
    assert big.plausibility_warnings() and "FLOPs" in big.plausibility_warnings()[0]
    assert Workload(**base).plausibility_warnings() == ()
    for preset in Workload.presets().values():  # the seeds' scenarios are all plausible
        assert preset.plausibility_warnings() == ()


@pytest.mark.parametrize("text", ["9" * 400, "nan", "inf", "0", "-3h"])
def test_parse_hours_refuses_what_is_not_a_duration(text: str) -> None:
    from gpuprof.recommend.parse import ParseError, parse_hours

    with pytest.raises(ParseError):
        parse_hours(text)


@pytest.mark.parametrize("text", ["nan", "inf", "1e999", "-1", "7x"])
def test_parse_count_refuses_what_is_not_a_count(text: str) -> None:
    from gpuprof.recommend.parse import ParseError, parse_count

    with pytest.raises(ParseError):
        parse_count(text)


def test_catalog_rows_no_real_offer_has_are_refused_with_their_line(tmp_path: Path) -> None:
    from gpuprof.catalog.instances import parse_instances_csv

    text = (
        "provider,instance,gpu_model,gpu_count,gpu_mem_gib,price_ondemand_usd_hr,as_of\n"
        "x,too-many,H100,1e12,80,10,2025-01-01\n"
        "x,future,H100,8,80,10,2099-01-01\n"
        "x,future-month,H100,8,80,10,2099-01\n"
        "x,huge-mem,H100,8,1e9,10,2025-01-01\n"
        "x,huge-price,H100,8,80,1e12,2025-01-01\n"
        "x,fine,H100,8,80,98.32,2025-01-01\n"
        "x,year-only,H100,8,80,98.32,2024\n"
    )
    rows, issues = parse_instances_csv(text, name="mine.csv", origin="mine.csv")
    assert [r.instance for r in rows] == ["fine", "year-only"]
    assert [i.line for i in issues] == [2, 3, 4, 5, 6]
    reasons = " ".join(str(i) for i in issues)
    assert "gpu_count" in reasons and "2099-01-01" in reasons and "future" in reasons
    assert "gpu_mem_gib" in reasons and "price_ondemand_usd_hr" in reasons
    # through the CLI: one line per bad row, naming the file and the line
    path = tmp_path / "mine.csv"
    path.write_text(text)
    ran = run_gpuprof(["catalog", "import", str(path), "--provider", "x"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "mine.csv:2: gpu_count" in ran.stderr and "mine.csv:3: as_of 2099-01-01" in ran.stderr


def test_the_packaged_catalog_passes_the_plausibility_checks() -> None:
    from gpuprof.catalog.instances import check_plausible, load_catalog

    cat = load_catalog(overlays=False)
    assert len(cat.instances) > 100 and not [i for i in cat.issues if i.severity == "error"]
    for inst in cat.instances:
        check_plausible(inst)
