"""Hostile HTTP servers on 127.0.0.1 for the network limits (issue 21): one that trickles its
answer a byte at a time (the status line or the body), one whose body never ends, one that
redirects with a body that never ends. Each connection is served by a thread of its own running
a script that writes to the socket; the server counts the bytes it got out on each connection,
so that a test can say how much a client read before it stopped.

The counts are of what the kernel took: on loopback its socket buffers hold several MiB beyond
what the client read, which the tests allow for.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable

Script = Callable[["Conn"], None]

#: What a trickle sends at most, and an endless stream: past these a client that never stops
#: fails its test (on a wrong result) instead of hanging it.
TRICKLE_MAX_BYTES = 200
STREAM_MAX_BYTES = 512 * 2**20
_BLOCK = b"0," * (1 << 15)


class Conn:
    """One accepted connection, as a script sees it."""

    def __init__(self, sock: socket.socket, server: HostileServer) -> None:
        self.sock = sock
        self.server = server
        self.request = b""
        self.sent_bytes = 0

    def read_head(self) -> None:
        while b"\r\n\r\n" not in self.request:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the client went away")
            self.request += chunk

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)
        self.sent_bytes += len(data)
        with self.server.lock:
            self.server.sent_bytes += len(data)

    def wait(self, seconds: float) -> bool:
        """Sleep ``seconds``; True when the server is closing."""
        return self.server.closing.wait(seconds)


class HostileServer:
    """A loopback server answering every connection with ``script``."""

    def __init__(self, script: Script) -> None:
        self.script = script
        #: Bytes sent, over all connections.
        self.sent_bytes = 0
        self.connections: list[Conn] = []
        self.lock = threading.Lock()
        self.closing = threading.Event()
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port = int(self._listener.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._threads: list[threading.Thread] = []
        self._accepter = threading.Thread(target=self._accept, daemon=True)
        self._accepter.start()

    def _accept(self) -> None:
        while not self.closing.is_set():
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, sock: socket.socket) -> None:
        with sock, contextlib.suppress(OSError):
            sock.settimeout(30)
            conn = Conn(sock, self)
            with self.lock:
                self.connections.append(conn)
            conn.read_head()
            self.script(conn)

    @property
    def most_sent_bytes(self) -> int:
        """The most bytes sent on one connection."""
        with self.lock:
            return max((c.sent_bytes for c in self.connections), default=0)

    def close(self) -> None:
        self.closing.set()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes accept()
        self._listener.close()
        self._accepter.join(5)
        for thread in self._threads:
            thread.join(5)

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _trickle(conn: Conn, data: bytes, every_s: float) -> None:
    for i in range(min(len(data), TRICKLE_MAX_BYTES)):
        if conn.wait(every_s):
            return
        conn.send(data[i : i + 1])


def trickle_head(every_s: float = 0.2) -> Script:
    """The status line and headers a byte every ``every_s`` seconds (a per-read timeout never
    fires; before issue 21 nothing bounded this part)."""

    def script(conn: Conn) -> None:
        _trickle(
            conn, b"HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\n" + b"X-Pad: y\r\n" * 20, every_s
        )

    return script


def trickle_body(body: bytes, every_s: float = 0.2, content_type: str = "text/csv") -> Script:
    """Headers at once, then ``body`` a byte every ``every_s`` seconds."""

    def script(conn: Conn) -> None:
        conn.send(
            f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode("ascii")
        )
        _trickle(conn, body, every_s)

    return script


def endless_body(content_type: str = "application/json") -> Script:
    """A 200 answer with no Content-Length whose body never ends (up to
    :data:`STREAM_MAX_BYTES`, or until the client goes away)."""

    def script(conn: Conn) -> None:
        conn.send(
            f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n[".encode(
                "ascii"
            )
        )
        while conn.sent_bytes < STREAM_MAX_BYTES and not conn.server.closing.is_set():
            conn.send(_BLOCK)

    return script


def endless_redirect() -> Script:
    """A redirect to a URL on the same server whose body never ends: urllib reads a redirect's
    body whole before it follows it."""

    def script(conn: Conn) -> None:
        conn.send(
            b"HTTP/1.1 302 Found\r\nLocation: /elsewhere/vms.csv\r\nConnection: close\r\n\r\n"
        )
        while conn.sent_bytes < STREAM_MAX_BYTES and not conn.server.closing.is_set():
            conn.send(_BLOCK)

    return script
