"""The Prometheus client's errors and the selector, against loopback servers (no Prometheus
needed): each failure is one line naming the URL and what failed, exit 2."""

from __future__ import annotations

import socket
import ssl

import pytest

from gpuprof.errors import InputError
from gpuprof.fleet import FleetError, PrometheusClient, parse_selector, read_fleet
from gpuprof.fleet.client import display_url
from gpuprof.tokenfile import read_token
from tests.faults.hostile import assert_one_clear_error, run_gpuprof
from tests.prometheus_fixture import (
    StaticMetrics,
    api_answer,
    fake_prometheus,
    free_port,
)


def _fleet_cli(url: str, home, *more: str):
    return run_gpuprof(["fleet", "--prometheus", url, *more], home)


def test_refused_is_one_line_naming_the_url(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(FleetError) as err:
        PrometheusClient(url).query("up")
    assert err.value.kind == "refused"
    ran = _fleet_cli(url, tmp_path)
    assert_one_clear_error(ran, url)
    assert "connection refused" in ran.stderr


@pytest.mark.slow
def test_timeout_bounds_the_whole_request(tmp_path):
    with StaticMetrics(fake_prometheus(), delay_s=30) as slow:
        ran = _fleet_cli(slow.url, tmp_path, "--timeout", "0.5")
        assert_one_clear_error(ran, slow.url)
        assert "no answer within 0.5 s" in ran.stderr
    # A server that answers a byte at a time never reaches the end within the timeout.
    with StaticMetrics(fake_prometheus(), trickle_s=0.05) as trickle:
        with pytest.raises(FleetError) as err:
            PrometheusClient(trickle.url, timeout_s=0.3).query("up")
        assert err.value.kind == "timeout"


@pytest.mark.slow
def test_an_html_page_is_not_prometheus(tmp_path):
    page = "<!DOCTYPE html><html><body>Grafana login</body></html>"
    with StaticMetrics(page, content_type="text/html; charset=utf-8") as html:
        ran = _fleet_cli(html.url, tmp_path)
        assert_one_clear_error(ran, html.url)
        assert "not a Prometheus API answer: it answered an HTML page" in ran.stderr
    with StaticMetrics(page, content_type="application/json") as lying:
        with pytest.raises(FleetError, match="HTML page") as err:
            PrometheusClient(lying.url).query("up")
        assert err.value.kind == "not_prometheus"
    other = StaticMetrics('{"hello": "world"}', content_type="application/json")
    with other, pytest.raises(FleetError, match="no status field"):
        PrometheusClient(other.url).query("up")


@pytest.mark.slow
def test_401_without_a_token_and_the_token_file(tmp_path):
    token = "s3cret-token.value"
    with StaticMetrics(fake_prometheus(), token=token) as guarded:
        ran = _fleet_cli(guarded.url, tmp_path)
        assert_one_clear_error(ran, guarded.url)
        assert "401 Unauthorized: it needs a token (--token-file)" in ran.stderr

        wrong = tmp_path / "wrong.token"
        wrong.write_text("not-it\n")
        ran = _fleet_cli(guarded.url, tmp_path, "--token-file", str(wrong))
        assert_one_clear_error(ran, guarded.url)

        good = tmp_path / "good.token"
        good.write_text(f"  {token}\n")
        ran = _fleet_cli(guarded.url, tmp_path, "--token-file", str(good))
        assert ran.returncode == 0, ran.stderr
        assert "0 nodes" in ran.stdout and "No GPU series found" in ran.stdout
        assert token not in ran.stdout + ran.stderr


@pytest.mark.slow
def test_403_and_other_http_errors():
    with StaticMetrics(fake_prometheus(status=403)) as forbidden:
        with pytest.raises(FleetError, match="403 Forbidden") as err:
            PrometheusClient(forbidden.url).query("up")
        assert err.value.kind == "auth"
    with StaticMetrics(fake_prometheus(status=404, content_type="text/plain")) as missing:
        with pytest.raises(FleetError, match="404: no Prometheus API") as err:
            PrometheusClient(missing.url + "/not/here").query("up")
        assert err.value.kind == "not_prometheus"
    bad = api_answer(None, "error").replace(
        b"}", b', "errorType": "bad_data", "error": "parse error"}'
    )
    with StaticMetrics(fake_prometheus(query=bad, status=400)) as refused:
        with pytest.raises(FleetError, match=r"the query failed \(400\): parse error") as err:
            PrometheusClient(refused.url).query("up{")
        assert err.value.kind == "query"


def test_a_redirect_is_refused_not_followed():
    def answer(method, path, got):
        return 302, "text/plain", b""

    with StaticMetrics(answer) as moved:
        with pytest.raises(FleetError, match="redirected") as err:
            PrometheusClient(moved.url).query("up")
        assert err.value.kind == "redirect"
        assert len(moved.requests) == 1


@pytest.mark.slow
def test_tls_against_a_plain_http_server_is_a_tls_error(tmp_path):
    with StaticMetrics(fake_prometheus()) as plain_http:
        url = f"https://127.0.0.1:{plain_http.port}"
        with pytest.raises(FleetError) as err:
            PrometheusClient(url, ssl_context=ssl.create_default_context()).query("up")
        assert err.value.kind == "tls"
        ran = _fleet_cli(url, tmp_path)
        assert_one_clear_error(ran, url)
        assert "TLS failed" in ran.stderr


def test_dns_failure_names_the_host(monkeypatch):
    def no_such_host(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    with pytest.raises(FleetError, match=r"cannot resolve the host name prom\.example") as err:
        PrometheusClient("http://prom.example:9090").query("up")
    assert err.value.kind == "dns"
    assert "http://prom.example:9090" in str(err.value)


@pytest.mark.parametrize(
    "url",
    ["ftp://host/x", "file:///etc/passwd", "http://", "http://host:notaport", "http://h/?q=1"],
)
@pytest.mark.slow
def test_bad_urls_are_refused_before_any_request(url, tmp_path):
    with pytest.raises(FleetError) as err:
        PrometheusClient(url)
    assert err.value.kind == "url"
    assert_one_clear_error(_fleet_cli(url, tmp_path), "Prometheus at")


def test_credentials_in_the_url_are_sent_but_never_shown():
    seen = []

    def answer(method, path, got):
        return 401, "text/plain", b""

    with StaticMetrics(answer) as server:
        server.answer = lambda m, p, g: (seen.append(p), (401, "text/plain", b""))[1]
        url = f"http://admin:hunter2@127.0.0.1:{server.port}"
        with pytest.raises(FleetError) as err:
            PrometheusClient(url).query("up")
        assert "hunter2" not in str(err.value) and "admin" not in str(err.value)
    assert display_url(url) == f"http://127.0.0.1:{server.port}"


def test_token_file_errors_name_the_file(tmp_path):
    for name, content in [
        ("empty.token", b"\n\n"),
        ("binary.token", b"\xff\xfe\x00"),
        ("spaces.token", b"two words\n"),
        ("huge.token", b"a" * 70_000),
    ]:
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(InputError, match=name):
            read_token(path)
    with pytest.raises(InputError, match="is a folder"):
        read_token(tmp_path)
    ran = _fleet_cli("http://127.0.0.1:1", tmp_path, "--token-file", str(tmp_path / "none"))
    assert_one_clear_error(ran, "none")


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ('{cluster="a"}', 'up{cluster="a"}'),
        ("cluster='a', job=~\"dcgm.*\"", "up{cluster='a', job=~\"dcgm.*\"}"),
        ('{ node != "x\\"y" ,}', 'up{node!="x\\"y"}'),
        ("{}", "up"),
        ("", "up"),
    ],
)
def test_selector_parses_matchers(text, rendered):
    assert parse_selector(text).for_targets("up") == rendered


def test_selector_splits_gpu_labels_from_target_labels():
    sel = parse_selector('{cluster="a", modelName=~"H100.*", gpu!="3"}')
    assert sel.for_targets("up") == 'up{cluster="a"}'
    assert (
        sel.for_gpus("X", 'reason="r"')
        == 'X{cluster="a", modelName=~"H100.*", gpu!="3", reason="r"}'
    )


@pytest.mark.parametrize(
    "text",
    [
        "{cluster=}",
        '{cluster="a"',
        'up{cluster="a"}',
        '{__name__="up"}',
        '{a="1" b="2"}',
        '{1a="x"}',
        '{a=="x"}',
    ],
)
def test_bad_selectors_are_one_clear_error(text):
    with pytest.raises(InputError, match="--selector"):
        parse_selector(text)


def test_empty_prometheus_is_an_empty_fleet():
    with StaticMetrics(fake_prometheus()) as empty:
        fleet = read_fleet(PrometheusClient(empty.url))
    assert fleet.nodes == () and fleet.findings == () and fleet.worst is None


@pytest.mark.slow
def test_the_targets_page_is_asked_only_when_a_target_is_down():
    """``up`` 0 sends for the targets page (the down node's last error) while the other
    queries run; all targets up: it is never asked."""
    target = {"job": "dcgm", "instance": "10.0.0.7:9400"}
    gpu = {**target, "gpu": "0", "UUID": "GPU-1", "__name__": "DCGM_FI_DEV_FB_USED"}
    series = api_answer([gpu])
    pages = api_answer(
        {
            "activeTargets": [
                {"labels": target, "scrapeUrl": "u", "health": "down", "lastError": "refused"}
            ],
            "droppedTargets": [],
        }
    )
    for value, asked in (("1", 0), ("0", 1)):
        up = {"__name__": "up", **target}
        vector = api_answer(
            {"resultType": "vector", "result": [{"metric": up, "value": [1, value]}]}
        )
        with StaticMetrics(fake_prometheus(query=vector, series=series, targets=pages)) as prom:
            fleet = read_fleet(PrometheusClient(prom.url))
        assert sum(r.startswith("/api/v1/targets") for r in prom.requests) == asked
        (node,) = fleet.nodes
        assert node.down is (value == "0")
        assert node.last_error == ("refused" if value == "0" else "")
