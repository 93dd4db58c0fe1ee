"""What the network commands say when the server refuses, or the options name nothing (issue 21).

A 403 said "the token was refused" when no token had been sent: with no token the message says
the server refused access, that no token was sent and how to give one; with a token it still
says the token was refused. ``catalog update --providers ,,,`` fetched every provider and
``--url-base ''`` silently used the default: an option given but empty is one line naming it,
exit 2, and nothing is fetched.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuprof.cli import main
from gpuprof.fleet import FleetError, PrometheusClient
from gpuprof.telemetry.remote import RemoteError, RemoteSource
from tests.faults.hostile_http import HostileServer
from tests.faults.test_remote_faults import Scripted, http
from tests.prometheus_fixture import StaticMetrics, fake_prometheus

NO_TOKEN = "no token was sent"


def _one_error_line(code: int, err: str, *names: str) -> str:
    assert "Traceback" not in err, err
    assert code == 2, (code, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


# -- 403 -----------------------------------------------------------------------------------


def test_prometheus_403_without_a_token_says_none_was_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with StaticMetrics(fake_prometheus(status=403)) as forbidden:
        with pytest.raises(FleetError) as err:
            PrometheusClient(forbidden.url).query("up")
        assert err.value.kind == "auth"
        assert NO_TOKEN in str(err.value) and "--token-file" in str(err.value)
        assert "token was refused" not in str(err.value)
        line = _one_error_line(
            main(["fleet", "--prometheus", forbidden.url]), capsys.readouterr().err, forbidden.url
        )
        assert "refused access" in line and NO_TOKEN in line

        token = tmp_path / "token"
        token.write_text("s3cret\n")
        token.chmod(0o600)
        code = main(["fleet", "--prometheus", forbidden.url, "--token-file", str(token)])
        line = _one_error_line(code, capsys.readouterr().err, forbidden.url)
        assert "403 Forbidden: the token was refused" in line and NO_TOKEN not in line
        assert "s3cret" not in line

        user = forbidden.url.replace("http://", "http://ann:pw@")
        with pytest.raises(FleetError, match="user name and password were refused") as err:
            PrometheusClient(user).query("up")
        assert "pw" not in str(err.value)


def test_exporter_403_without_a_token_says_none_was_sent(tmp_path: Path) -> None:
    refused = http(b"no", status="403 Forbidden", ctype="text/plain")
    server = Scripted(refused, static=refused).start()
    try:
        with pytest.raises(RemoteError) as err:
            RemoteSource(server.url)
        assert "refused access" in str(err.value) and NO_TOKEN in str(err.value)
        token = tmp_path / "token"
        token.write_text("s3cret\n")
        token.chmod(0o600)
        with pytest.raises(RemoteError) as err:
            RemoteSource(server.url, token_file=token)
        assert "refused the token of --token-file" in str(err.value)
        assert NO_TOKEN not in str(err.value)
    finally:
        server.close()


# -- catalog update's options ----------------------------------------------------------------


def _nothing_fetched(conn: object) -> None:
    raise AssertionError("nothing may be fetched")


@pytest.mark.parametrize("providers", [",,,", "", " , ,"])
def test_catalog_update_with_no_provider_named_is_an_error(
    providers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with HostileServer(_nothing_fetched) as server:
        code = main(["catalog", "update", "--providers", providers, "--url-base", server.url])
        assert not server.connections
    line = _one_error_line(code, capsys.readouterr().err, "--providers")
    assert "names no provider" in line


@pytest.mark.parametrize("url_base", ["", "   "])
def test_catalog_update_with_an_empty_url_base_is_an_error(
    url_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["catalog", "update", "--providers", "lambda", "--url-base", url_base])
    line = _one_error_line(code, capsys.readouterr().err, "--url-base")
    assert "empty" in line
