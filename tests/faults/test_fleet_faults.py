"""A hostile Prometheus: what ``gpuprof fleet`` does with answers no real Prometheus gives.

Every answer goes through one reader (:class:`gpuprof.fleet.client.PrometheusClient`: the body
bounded in size and time, the document and each series checked for shape). A document of the
wrong shape is one clear error naming the URL (exit 2); a malformed series inside a good answer
is skipped and counted; a value that is not a finite, plausible number is absent (``null`` in
strict JSON); label text from outside never reaches the terminal raw. Never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading

import pytest

from gpuprof.cli import main
from gpuprof.fleet import FleetError, PrometheusClient
from gpuprof.jsonout import loads_strict
from tests.prometheus_fixture import (
    EMPTY_SERIES,
    StaticMetrics,
    api_answer,
    fake_prometheus,
)

LABELS = {
    "job": "dcgm",
    "instance": "10.0.0.7:9400",
    "gpu": "0",
    "UUID": "GPU-1",
    "modelName": "NVIDIA H100 80GB HBM3",
    "Hostname": "node-7",
}


def _vector(*series: tuple[dict, object]) -> bytes:
    result = [{"metric": m, "value": v} for m, v in series]
    return api_answer({"resultType": "vector", "result": result})


def _util(value: object, **labels: str) -> tuple[dict, object]:
    return ({"__name__": "DCGM_FI_DEV_GPU_UTIL", **LABELS, **labels}, [1700000000.0, value])


GOOD = _vector(_util("50"))
_HALF = GOOD[: len(GOOD) // 2]

#: name -> (the /api/v1/query answer, the /api/v1/series answer): a document of the wrong
#: shape, or bytes that are no document: one clear error naming the URL.
BROKEN: dict[str, tuple[bytes, bytes]] = {
    "truncated": (_HALF, EMPTY_SERIES),
    "empty": (b"", EMPTY_SERIES),
    "random-bytes": (bytes(range(256)) * 64, EMPTY_SERIES),
    "nul-bytes": (b"\0" * 4096, EMPTY_SERIES),
    "not-utf8-garbage": ("gpu,café\n".encode("latin-1") + b"\xc3\x28", EMPTY_SERIES),
    "top-level-list": (b"[1, 2, 3]", EMPTY_SERIES),
    "no-status": (b'{"data": {"resultType": "vector", "result": []}}', EMPTY_SERIES),
    "data-null": (api_answer(None), EMPTY_SERIES),
    "data-string": (api_answer("vector"), EMPTY_SERIES),
    "matrix-for-instant": (api_answer({"resultType": "matrix", "result": []}), EMPTY_SERIES),
    "result-object": (api_answer({"resultType": "vector", "result": {"a": 1}}), EMPTY_SERIES),
    "deeply-nested": (b"[" * 100_000 + b"]" * 100_000, EMPTY_SERIES),
    "nan-literal-doc": (b'{"status": "success", "data": NaN}', EMPTY_SERIES),
    "series-not-list": (GOOD, api_answer({"resultType": "vector", "result": []})),
    "status-error-with-escapes": (
        json.dumps(
            {"status": "error", "errorType": "bad\x1b[31m", "error": "line1\nline2\u202e" * 500}
        ).encode(),
        EMPTY_SERIES,
    ),
}

#: name -> the /api/v1/query answer: a good document with hostile series or values in it.
#: Handled: exit 0 or 1, strict JSON, the hostile part skipped or absent.
HANDLED: dict[str, bytes] = {
    "metric-not-object": _vector(("up", [1.0, "1"]), _util("50")),
    "value-not-pair": _vector(({**LABELS, "__name__": "DCGM_FI_DEV_GPU_UTIL"}, [1.0]), _util("5")),
    "value-number-not-string": _vector(_util(50)),
    "timestamp-string": _vector(({**LABELS, "__name__": "DCGM_FI_DEV_FB_USED"}, ["1", "5"])),
    "timestamp-infinite": _vector(
        ({**LABELS, "__name__": "DCGM_FI_DEV_FB_USED"}, [1e400, "5"]), _util("1")
    ),
    # An integer too big for a float (OverflowError, not ValueError), and a JSON boolean.
    "timestamp-huge-integer": _vector(
        ({**LABELS, "__name__": "DCGM_FI_DEV_FB_USED"}, [10**400, "5"]), _util("1")
    ),
    "timestamp-bool": _vector(({**LABELS, "__name__": "DCGM_FI_DEV_FB_USED"}, [True, "5"])),
    "label-not-string": _vector(({"__name__": "DCGM_FI_DEV_GPU_UTIL", "gpu": 0}, [1.0, "1"])),
    "nan": _vector(_util("NaN")),
    "plus-inf": _vector(_util("+Inf")),
    "minus-inf": _vector(_util("-Inf")),
    "overflow": _vector(_util("1e999")),
    "not-a-number": _vector(_util("abc")),
    "absurd-values": _vector(
        _util("1e300"),
        ({**LABELS, "__name__": "DCGM_FI_DEV_GPU_TEMP"}, [1.0, "-1e9"]),
        ({**LABELS, "__name__": "DCGM_FI_DEV_FB_USED"}, [1.0, "1e30"]),
        ({**LABELS, "__name__": "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"}, [1.0, "-5"]),
        ({**LABELS, "__name__": "DCGM_FI_DEV_XID_ERRORS"}, [1.0, "1e300"]),
    ),
    "non-utf8-labels": _vector(_util("5"))
    .replace(b'"node-7"', b'"node-\xff\xfe-7"')
    .replace(b'"GPU-1"', b'"GPU-\xc3\x28"'),
    "terminal-escapes-in-labels": _vector(_util("5", Hostname="evil\x1b[2J\x1b]0;pwned\x07\u202e")),
    "markup-in-labels": _vector(_util("5", Hostname="[bold red]x[/]:ab:", gpu="[/]")),
    "many-label-sets-one-gpu": _vector(
        *(_util("5", pod=f"p{i}", namespace="ns") for i in range(50))
    ),
    "empty-and-odd-label-names": _vector(
        ({"__name__": "DCGM_FI_DEV_GPU_UTIL", "": "x", "gpu": "\n0", "job": ""}, [1.0, "1"])
    ),
    "no-gpu-label": _vector(({"__name__": "DCGM_FI_DEV_GPU_UTIL", "job": "j"}, [1.0, "1"])),
    "unknown-metrics": _vector(({**LABELS, "__name__": "something_else"}, [1.0, "1"])),
}


def _run(url: str, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, str, str]:
    code = main(["fleet", "--prometheus", url, "--timeout", "5", *more])
    out, err = capsys.readouterr()
    return code, out, err


def _one_error(code: int, err: str, url: str) -> str:
    assert "Traceback" not in err, err
    assert code == 2, (code, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and url in lines[0], lines
    assert "\x1b" not in lines[0] and "\u202e" not in lines[0]
    return lines[0]


@pytest.mark.parametrize("name", list(BROKEN))
@pytest.mark.slow
def test_a_broken_answer_is_one_clear_error(name, capsys):
    query, series = BROKEN[name]
    with StaticMetrics(fake_prometheus(query=query, series=series)) as prom:
        code, _, err = _run(prom.url, capsys, "--json")
    line = _one_error(code, err, prom.url)
    assert "Prometheus at" in line


@pytest.mark.parametrize("name", list(HANDLED))
@pytest.mark.slow
def test_hostile_series_are_skipped_or_absent(name, capsys):
    with StaticMetrics(fake_prometheus(query=HANDLED[name])) as prom:
        code, out, err = _run(prom.url, capsys, "--json")
        assert "Traceback" not in err and code in (0, 1), (code, err)
        doc = loads_strict(out)  # strict: no NaN, no Infinity
        gpus = [g for n in doc["nodes"] for g in n["gpus"]]
        for g in gpus:
            for key in ("util_pct", "temp_c", "mem_used_bytes", "xid"):
                assert g[key] is None or 0 <= g[key] <= 2**50, (key, g[key])
        # The same answer as text: nothing raw reaches the terminal.
        code, out, err = _run(prom.url, capsys)
        assert "Traceback" not in err and code in (0, 1), (code, err)
        assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    if name in ("nan", "plus-inf", "minus-inf", "overflow", "not-a-number", "absurd-values"):
        assert gpus and gpus[0]["util_pct"] is None
    skips = ("metric-not-object", "value-not-pair", "label-not-string", "timestamp-bool")
    if name in (*skips, "timestamp-huge-integer", "timestamp-infinite"):
        assert doc["summary"]["skipped_series"] >= 1
    if name == "many-label-sets-one-gpu":
        assert len(gpus) == 1
    if name == "non-utf8-labels":
        assert doc["nodes"][0]["name"] == "node-\ufffd\ufffd-7"
    if name == "markup-in-labels":
        assert "[bold red]x[/]:ab:" in out  # shown literally, not as rich markup or emoji


@pytest.mark.slow
def test_a_huge_answer_is_read_or_refused_by_size(capsys):
    gpus = [_util("50", gpu=str(i), UUID=f"GPU-{i}") for i in range(5000)]
    with StaticMetrics(fake_prometheus(query=_vector(*gpus))) as prom:
        code, out, err = _run(prom.url, capsys)
        assert code == 0 and "Traceback" not in err, err
        assert "4968 more GPU columns not shown: see --json" in out
        with pytest.raises(FleetError, match="larger than 1 MiB") as exc:
            PrometheusClient(prom.url, max_bytes=2**20).query("up")
        assert exc.value.kind == "too_big"


def test_a_down_node_with_a_broken_targets_page_is_still_reported(capsys):
    up = ({"__name__": "up", "job": "dcgm", "instance": LABELS["instance"]}, [1.0, "0"])
    gpu_series = api_answer([{**LABELS, "__name__": "DCGM_FI_DEV_GPU_UTIL"}])
    answer = fake_prometheus(query=_vector(up), series=gpu_series, targets=b"<html>")
    with StaticMetrics(answer) as prom:
        code, out, err = _run(prom.url, capsys, "--json")
    assert code == 1, err
    doc = loads_strict(out)
    (node,) = doc["nodes"]
    assert node["down"] and node["gpus"][0]["down"] and node["last_error"] is None
    assert [f["code"] for f in doc["findings"]] == ["exporter_down"]


def _raw_server(reply: bytes) -> tuple[socket.socket, threading.Thread]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(reply)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return srv, thread


@pytest.mark.parametrize(
    "reply",
    [
        b"SSH-2.0-OpenSSH_9.2\r\n",
        b"",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + GOOD[:100],
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
    ids=["not-http", "closed-at-once", "cut-short", "bad-chunk"],
)
def test_a_server_that_is_not_http_is_one_clear_error(reply, capsys):
    srv, thread = _raw_server(reply)
    url = f"http://127.0.0.1:{srv.getsockname()[1]}"
    try:
        code, _, err = _run(url, capsys)
    finally:
        with contextlib.suppress(OSError):
            srv.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the serving thread
        srv.close()
        thread.join(5)
    assert not thread.is_alive()
    _one_error(code, err, url)
