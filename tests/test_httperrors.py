"""gpuprof.httperrors.describe_url_error: the one mapper of failed requests for the Prometheus
client and the exporter client."""

from __future__ import annotations

import email.message
import http.client
import socket
import ssl
import urllib.error

import pytest

from gpuprof.httperrors import NETWORK_KINDS, ServerTexts, describe_url_error

TEXTS = ServerTexts(
    refused="refused: start it",
    unauthorized="401: give a token",
    token_refused="401: wrong token",
    forbidden="403: no",
    not_found="404: wrong path",
    untrusted_hint="; see --ca-file",
)


def _describe(exc: BaseException, url: str = "http://node7.example:9400", **kw: object):  # type: ignore[no-untyped-def]
    return describe_url_error(exc, url=url, timeout_s=2.5, texts=TEXTS, **kw)  # type: ignore[arg-type]


def _http(code: int, reason: str = "Boom", location: str | None = None) -> urllib.error.HTTPError:
    headers = email.message.Message()
    if location is not None:
        headers["Location"] = location
    return urllib.error.HTTPError("http://x", code, reason, headers, None)


@pytest.mark.parametrize(
    ("exc", "kind", "text"),
    [
        (urllib.error.URLError(socket.gaierror(-2, "no name")), "dns",
         "cannot resolve the host name node7.example"),
        (urllib.error.URLError(ConnectionRefusedError()), "refused", "refused: start it"),
        (urllib.error.URLError(TimeoutError()), "timeout", "no answer within 2.5 s"),
        (TimeoutError(), "timeout", "no answer within 2.5 s"),
        (ConnectionResetError(), "network", "the connection was reset (an HTTPS server? try https://)"),
        (urllib.error.URLError(ssl.SSLError(1, "wrong version")), "tls", "TLS failed"),
        (OSError(113, "No route to host"), "network", "network error: No route to host"),
        (http.client.IncompleteRead(b"ab", 10), "not_http", "the answer was cut short"),
        (http.client.RemoteDisconnected("x"), "not_http",
         "the server closed the connection without answering (an HTTPS server? try https://)"),
        (http.client.BadStatusLine("\x16\x03"), "not_http", "the answer is not HTTP"),
        (_http(302, location="http://elsewhere.example/\x1b[31m"), "redirect",
         "redirected to http://elsewhere.example/"),
        (_http(401), "auth", "401: give a token"),
        (_http(403), "auth", "403: no"),
        (_http(404), "not_found", "404: wrong path"),
        (_http(500, "Internal Server Error"), "http", "HTTP 500 Internal Server Error"),
    ],
)  # fmt: skip
def test_each_failure_has_its_kind_and_one_line(exc: BaseException, kind: str, text: str) -> None:
    got_kind, got = _describe(exc)
    assert got_kind == kind and text in got
    assert "\n" not in got and "\x1b" not in got
    assert (kind in NETWORK_KINDS) == (kind not in ("redirect", "auth", "not_found", "http"))


def test_an_untrusted_certificate_gets_the_callers_hint_and_https_no_hint() -> None:
    err = ssl.SSLCertVerificationError(1, "certificate verify failed")
    err.verify_message = "self-signed certificate"
    kind, text = _describe(urllib.error.URLError(err), url="https://node7.example")
    assert kind == "tls"
    assert (
        text
        == "TLS: the server's certificate is not trusted (self-signed certificate); see --ca-file"
    )
    kind, text = _describe(ConnectionResetError(), url="https://node7.example")
    assert text == "the connection was reset"


def test_401_says_whether_the_token_was_sent() -> None:
    assert _describe(_http(401), token_sent=True) == ("auth", "401: wrong token")
    assert _describe(_http(401), token_sent=False) == ("auth", "401: give a token")
