"""``gpuprof catalog update`` against a local HTTP server on 127.0.0.1 serving the SkyPilot
excerpts of tests/data/skypilot/: a good fetch, then a failing (HTTP 500, refused), truncated,
oversized or cancelled one that leaves the previous catalog byte for byte as it was and says
what went wrong in one line naming the URL."""

from __future__ import annotations

import datetime
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuprof.catalog.instances import read_instances_file
from gpuprof.catalog.update import UpdateCancelled, catalog_url, update_catalogs
from gpuprof.errors import InputError
from tests.faults.hostile import assert_one_clear_error, run_gpuprof
from tests.helpers.loopback import QuietHandler, http_server

DATA = Path(__file__).resolve().parents[1] / "data" / "skypilot"
DAY = datetime.date(2026, 12, 1)


class _Handler(QuietHandler):
    """``/ok/<provider>/vms.csv`` serves the excerpt; ``/500/...`` fails; ``/short/...`` says
    Content-Length N and sends half; ``/empty/...`` serves a header without GPU rows."""

    def do_GET(self) -> None:
        mode, provider = self.path.split("/")[1:3]
        if mode.startswith("redirect"):  # to plain HTTP elsewhere, or to /ok here
            host = self.headers["Host"]
            to = "http://example.com" if mode == "redirect" else f"http://{host}/ok"
            self.send_response(302)
            self.send_header("Location", f"{to}/{provider}/vms.csv")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = (DATA / f"{provider}_vms.csv").read_bytes()
        if mode == "500":
            self.send_error(500, "Internal Server Error")
            return
        if mode == "empty":
            body = body.splitlines(keepends=True)[0]
        elif mode == "junk":
            body = bytes(range(256)) * 64  # not UTF-8
        elif mode == "nul":
            body = body.splitlines(keepends=True)[0] + b"\0" * 4096
        elif mode == "html":  # a captive portal or an error page served as 200
            body = b"<html><body>Sign in to continue</body></html>\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2] if mode == "short" else body)
        self.wfile.flush()
        if mode == "short":
            self.close_connection = True


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with http_server(_Handler) as url:
        yield url


def _refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again: nothing listens there


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.csv"))}


@pytest.fixture
def updated(tmp_path: Path, server: str) -> Path:
    dest = tmp_path / "catalog"
    dest.mkdir()
    done = update_catalogs(["lambda", "gcp"], url_base=f"{server}/ok", dest_dir=dest, today=DAY)
    assert [(f.provider, f.rows, f.composed) for f in done] == [("lambda", 3, 0), ("gcp", 2, 2)]
    return dest


def test_a_good_update_dates_the_prices_with_the_fetch_day(updated: Path) -> None:
    rows, issues = read_instances_file(updated / "skypilot-gcp.csv")
    assert {r.as_of for r in rows} == {"2026-12-01"} and not [
        i for i in issues if i.severity == "error"
    ]
    assert {r.instance for r in rows} == {"a2-highgpu-1g", "n1-highmem-4 + 1x T4"}


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("500", "HTTP 500"),
        ("short", "cut short"),
        ("empty", "no GPU rows"),
        ("junk", "not UTF-8"),
        ("nul", "no GPU rows"),
        ("html", "not a SkyPilot vms.csv"),
    ],
)
def test_a_failed_download_keeps_the_previous_catalog(
    updated: Path, server: str, mode: str, says: str
) -> None:
    before = _snapshot(updated)
    # lambda fetches fine, gcp fails: nothing is replaced, lambda included.
    with pytest.raises(InputError) as err:
        update_catalogs(
            ["lambda", "gcp"],
            url_base=f"{server}/{mode}",
            dest_dir=updated,
            today=DAY + datetime.timedelta(days=1),
        )
    message = str(err.value)
    assert says in message and "\n" not in message
    assert message.startswith(f"{server}/{mode}/lambda/vms.csv")  # the first URL that failed
    assert _snapshot(updated) == before


def test_one_failing_provider_replaces_nothing(updated: Path, server: str, tmp_path: Path) -> None:
    before = _snapshot(updated)
    # lambda fits the size cap, gcp's larger file does not: lambda is not replaced either.
    with pytest.raises(InputError, match=r"gcp/vms\.csv: .*limit"):
        update_catalogs(
            ["lambda", "gcp"],
            url_base=f"{server}/ok",
            dest_dir=updated,
            max_bytes=(DATA / "lambda_vms.csv").stat().st_size,  # gcp's file is larger
        )
    assert _snapshot(updated) == before


def test_refused_connection(updated: Path) -> None:
    before = _snapshot(updated)
    base = f"http://127.0.0.1:{_refused_port()}/ok"
    with pytest.raises(InputError, match=r"cannot connect") as err:
        update_catalogs(["lambda"], url_base=base, dest_dir=updated, timeout=5)
    assert str(err.value).startswith(f"{base}/lambda/vms.csv")
    assert _snapshot(updated) == before


def test_only_https_leaves_this_machine() -> None:
    with pytest.raises(InputError, match="only https"):
        catalog_url("http://example.com/catalogs/v8", "aws")
    with pytest.raises(InputError, match="only https"):
        catalog_url("file:///etc", "aws")
    assert catalog_url("https://example.com/c/", "gcp") == "https://example.com/c/gcp/vms.csv"


def test_a_redirect_is_held_to_the_same_rule(updated: Path, server: str) -> None:
    """A server may redirect, but not to plain HTTP beyond this machine (the https-only rule
    held only for the first URL before); a redirect that keeps to the rule is followed."""
    before = _snapshot(updated)
    with pytest.raises(InputError, match=r"http://example\.com/lambda/vms\.csv: only https"):
        update_catalogs(["lambda"], url_base=f"{server}/redirect", dest_dir=updated, timeout=5)
    assert _snapshot(updated) == before
    update_catalogs(["lambda"], url_base=f"{server}/redirect-here", dest_dir=updated, timeout=5)
    assert _snapshot(updated)


def test_cancel_writes_nothing(tmp_path: Path, server: str) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(UpdateCancelled):
        update_catalogs(["lambda"], url_base=f"{server}/ok", dest_dir=tmp_path, cancel=cancel)
    assert list(tmp_path.iterdir()) == []


def test_progress_is_reported(tmp_path: Path, server: str) -> None:
    seen: list[tuple[str, int, int | None]] = []
    update_catalogs(
        ["oci"], url_base=f"{server}/ok", dest_dir=tmp_path, progress=lambda *a: seen.append(a)
    )
    size = (DATA / "oci_vms.csv").stat().st_size
    assert seen and seen[-1] == ("oci", size, size)


def test_cli_one_line_error_naming_the_url(tmp_path: Path, server: str) -> None:
    ran = run_gpuprof(
        ["catalog", "update", "--providers", "lambda", "--url-base", f"{server}/500"], tmp_path
    )
    assert_one_clear_error(ran, f"{server}/500/lambda/vms.csv")
    assert not (tmp_path / "data" / "catalog" / "skypilot-lambda.csv").exists()


def test_cli_update_then_list(tmp_path: Path, server: str) -> None:
    ran = run_gpuprof(
        ["catalog", "update", "--providers", "lambda,runpod", "--url-base", f"{server}/ok"],
        tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    assert "lambda: 3 instances" in ran.stdout and "fetching runpod" in ran.stderr
    listed = run_gpuprof(["catalog", "list", "--provider", "runpod", "--json"], tmp_path)
    assert "1x_A100-80GB_SECURE" in listed.stdout
