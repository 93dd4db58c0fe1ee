"""Every HTTP request gpuprof makes (catalog update, the Prometheus client, ``--connect``) is
bounded as a whole: a :class:`Budget` gives it a deadline on the monotonic clock and a cap on
the bytes it may receive.

A per-read socket timeout is not a deadline: a server that sends one byte every few seconds
keeps such a download, or even its status line and headers, alive for ever. Here each socket
read of a request (connect, TLS handshake, request, headers, a redirect's body, the answer)
waits at most the time left, and the bytes received are counted against the cap, so that the
answers urllib reads on its own (a redirect's body it throws away, headers) are bounded too.
:func:`read_body` reads the answer a socket read at a time and stops at the cap.

Use :func:`build_opener` for the opener and :class:`BoundedRequest` for the request; the
budget follows a redirect. A limit hit is a :class:`HttpLimitError` (not an ``OSError``:
urllib passes it through untouched), which the callers wrap in their own error naming the URL.
"""

from __future__ import annotations

import http.client
import io
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from http.client import HTTPMessage
from typing import IO, Any

from gpuprof.errors import GpuprofError
from gpuprof.i18n import tr
from gpuprof.units import fmt_bytes

__all__ = [
    "HEAD_ROOM_BYTES",
    "BoundedRequest",
    "Budget",
    "BudgetRedirectHandler",
    "HttpLimitError",
    "build_opener",
    "fmt_size",
    "read_body",
]

#: What a request may receive beyond its body's cap: the status line and headers
#: (http.client reads at most 100 lines of 64 KiB), and the bodies of redirects.
HEAD_ROOM_BYTES = 1 << 20
_CHUNK = 1 << 16

#: ``before_read(bytes_so_far, content_length_or_None)``, called before each read of a body:
#: progress, or a cancel that raises.
BeforeRead = Callable[[int, "int | None"], None]


class HttpLimitError(GpuprofError):
    """A request ran out of its :class:`Budget`. ``kind``: ``"deadline"`` or ``"size"``;
    ``received_bytes``: what had come in when it stopped."""

    def __init__(self, kind: str, what: str, received_bytes: int) -> None:
        super().__init__(what)
        self.kind = kind
        self.what = what
        self.received_bytes = received_bytes


def fmt_size(n_bytes: int) -> str:
    """A size limit as the messages show it: ``32 MiB``, or ``1.5 KiB`` when not whole MiB."""
    if n_bytes >= 2**20 and n_bytes % 2**20 == 0:
        return f"{n_bytes >> 20} MiB"
    return fmt_bytes(n_bytes)


class Budget:
    """The limits of one operation: ``deadline_s`` seconds from now for all of it, and
    ``max_bytes`` of answer (:data:`HEAD_ROOM_BYTES` more on the wire for headers and
    redirects). ``monotonic`` is the clock (injected by tests)."""

    def __init__(
        self,
        deadline_s: float,
        max_bytes: int,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.deadline_s = float(deadline_s)
        self.max_bytes = int(max_bytes)
        self._monotonic = monotonic
        self._end = monotonic() + self.deadline_s
        #: Bytes received from the network so far (headers and redirects included).
        self.received_bytes = 0

    def expired(self) -> bool:
        return self._monotonic() >= self._end

    def left_s(self) -> float:
        """Seconds left; :class:`HttpLimitError` when none are."""
        left = self._end - self._monotonic()
        if left <= 0:
            raise self.deadline_error()
        return left

    def deadline_error(self) -> HttpLimitError:
        if self.received_bytes:  # a server that trickles: say the limit is for all of it
            what = tr(
                "no complete answer within {s:g} s (the time limit of the whole request)",
                s=self.deadline_s,
            )
        else:
            what = tr("no answer within {s:g} s", s=self.deadline_s)
        return HttpLimitError("deadline", what, self.received_bytes)

    def size_error(self) -> HttpLimitError:
        what = tr("the answer is larger than {n} (the size limit)", n=fmt_size(self.max_bytes))
        return HttpLimitError("size", what, self.received_bytes)

    def count(self, n_bytes: int) -> None:
        """Count ``n_bytes`` received; :class:`HttpLimitError` past the cap and its head room."""
        self.received_bytes += n_bytes
        if self.received_bytes > self.max_bytes + HEAD_ROOM_BYTES:
            raise self.size_error()

    def timed_out(self, exc: OSError) -> BaseException:
        """What a socket timeout means: the deadline when it has passed, else ``exc``."""
        return self.deadline_error() if self.expired() else exc


class BoundedRequest(urllib.request.Request):
    """A ``urllib`` request that carries its :class:`Budget` to the connection."""

    def __init__(self, url: str, budget: Budget, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.budget = budget


def _budget_of(req: urllib.request.Request) -> Budget | None:
    return req.budget if isinstance(req, BoundedRequest) else None


class BudgetRedirectHandler(urllib.request.HTTPRedirectHandler):
    """Redirects that keep the first request's budget (urllib's makes a plain request for the
    new URL). ``check(url)``, when given, sees each redirect's absolute URL first and raises to
    refuse it (a catalog download that began on HTTPS is not sent to plain HTTP elsewhere)."""

    def __init__(self, check: Callable[[str], object] | None = None) -> None:
        super().__init__()
        self._check = check

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        if self._check is not None:
            try:
                self._check(urllib.parse.urljoin(req.full_url, newurl))
            except BaseException:
                fp.close()  # urllib closes the redirect's answer only after this returns
                raise
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        budget = _budget_of(req)
        if new is None or budget is None:
            return new
        return BoundedRequest(
            new.full_url,
            budget,
            headers=dict(new.header_items()),
            origin_req_host=new.origin_req_host,
            unverifiable=True,
        )


class _BudgetIO(io.RawIOBase):
    """The raw reader under an answer's buffer: each read waits at most the time left."""

    def __init__(self, sock: socket.socket, budget: Budget) -> None:
        super().__init__()
        # The socket's own raw reader: it keeps the socket open after urllib closes the
        # connection's reference to it, until the answer is closed.
        self._raw = sock.makefile("rb", buffering=0)
        self._socket = sock
        self._budget = budget

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int | None:
        self._socket.settimeout(self._budget.left_s())
        try:
            n = self._raw.readinto(b)
        except TimeoutError as exc:
            raise self._budget.timed_out(exc) from None
        if n:
            self._budget.count(n)
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


class _BudgetSocket:
    """A connection's socket as ``http.client`` sees it: what it sends and reads is bounded by
    the budget; everything else is the socket's."""

    def __init__(self, sock: socket.socket, budget: Budget) -> None:
        self._sock = sock
        self._budget = budget

    def makefile(self, mode: str = "r", buffering: int | None = None, **kwargs: Any) -> Any:
        if mode != "rb":  # http.client reads answers through makefile("rb") only
            return self._sock.makefile(mode, buffering, **kwargs)  # type: ignore[call-overload]
        return io.BufferedReader(_BudgetIO(self._sock, self._budget))

    def sendall(self, data: Any, flags: int = 0) -> None:
        self._sock.settimeout(self._budget.left_s())
        try:
            self._sock.sendall(data, flags)
        except TimeoutError as exc:
            raise self._budget.timed_out(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def resolve(host: str, port: int, budget: Budget) -> list[tuple[Any, ...]]:
    """``getaddrinfo`` within the time left: a resolver that never answers (the socket
    timeout does not cover the name lookup) is the budget's deadline. The lookup runs in a
    daemon thread that is left behind when the deadline passes (the C call cannot be
    interrupted); its answer is then thrown away."""
    answer: list[Any] = []

    def lookup() -> None:
        try:
            answer.append(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
        except OSError as exc:
            answer.append(exc)

    worker = threading.Thread(target=lookup, name="gpuprof-dns-lookup", daemon=True)
    worker.start()
    worker.join(budget.left_s())
    if not answer:
        raise budget.deadline_error()
    if isinstance(answer[0], OSError):
        raise answer[0]
    return list(answer[0])


def _bounded_create_connection(budget: Budget) -> Callable[..., socket.socket]:
    """``socket.create_connection`` whose name lookup keeps to ``budget`` (see
    :func:`resolve`); each address is then tried with the time left."""

    def create(
        address: tuple[str, int], timeout: Any = None, source_address: Any = None, **_: Any
    ) -> socket.socket:
        error: OSError | None = None
        for family, kind, proto, _name, sockaddr in resolve(address[0], address[1], budget):
            # The whole address as resolved (an IPv6 one keeps its flow and scope id: a
            # link-local peer needs the scope).
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(budget.left_s())
                if source_address:
                    sock.bind(source_address)
                sock.connect(sockaddr)
                return sock
            except TimeoutError as exc:
                sock.close()
                raise budget.timed_out(exc) from None
            except OSError as exc:
                sock.close()
                error = exc
        raise error or OSError(f"{address[0]}: no address")

    return create


def _connect(conn: http.client.HTTPConnection, budget: Budget | None, connect: Any) -> None:
    """``connect()`` (name lookup, TCP, and TLS for HTTPS: CPython bounds a whole handshake by
    the socket timeout) within the time left, then the socket wrapped for the rest of the
    request."""
    if budget is None:
        connect()
        return
    conn.timeout = budget.left_s()
    conn._create_connection = _bounded_create_connection(budget)  # type: ignore[attr-defined]
    try:
        connect()
    except TimeoutError as exc:
        raise budget.timed_out(exc) from None
    conn.sock = _BudgetSocket(conn.sock, budget)  # type: ignore[assignment]


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, *, budget: Budget | None = None, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._budget = budget

    def connect(self) -> None:
        _connect(self, self._budget, super().connect)


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, *, budget: Budget | None = None, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._budget = budget

    def connect(self) -> None:
        _connect(self, self._budget, super().connect)


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_HTTPConnection, req, budget=_budget_of(req))  # type: ignore[arg-type]


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, context: ssl.SSLContext | None = None) -> None:
        super().__init__(context=context)
        self._tls = context

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(  # type: ignore[arg-type]
            _HTTPSConnection, req, context=self._tls, budget=_budget_of(req)
        )


def build_opener(
    *handlers: urllib.request.BaseHandler, ssl_context: ssl.SSLContext | None = None
) -> urllib.request.OpenerDirector:
    """``urllib.request.build_opener(*handlers)`` whose HTTP and HTTPS connections keep to the
    :class:`Budget` of a :class:`BoundedRequest`; HTTPS with ``ssl_context`` (default: the
    system's store)."""
    return urllib.request.build_opener(*handlers, _HTTPHandler(), _HTTPSHandler(ssl_context))


def _content_length(resp: Any) -> int | None:
    headers = getattr(resp, "headers", None)
    text = headers.get("Content-Length") if headers is not None else None
    return int(text) if isinstance(text, str) and text.isdigit() else None


def read_body(resp: Any, budget: Budget, *, before_read: BeforeRead | None = None) -> bytes:
    """The body of ``resp`` (an answer, or an ``HTTPError``), read a socket read at a time:
    :class:`HttpLimitError` past the budget's deadline or ``max_bytes`` (at once when the
    Content-Length says so), ``http.client.IncompleteRead`` when it ends before its
    Content-Length."""
    length = _content_length(resp)
    if length is not None and length > budget.max_bytes:
        raise budget.size_error()
    read = getattr(resp, "read1", None) or resp.read  # read1: one socket read at most
    chunks: list[bytes] = []
    size = 0
    while True:
        if before_read is not None:
            before_read(size, length)
        budget.left_s()
        chunk = read(_CHUNK)
        if not chunk:
            break
        size += len(chunk)
        if size > budget.max_bytes:
            raise budget.size_error()
        chunks.append(chunk)
    body = b"".join(chunks)
    if length is not None and size < length:
        raise http.client.IncompleteRead(body, length - size)
    return body
