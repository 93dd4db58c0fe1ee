"""The exporter's HTTP server: a bounded number of threads, slow and idle clients timed out.

``http.server.ThreadingHTTPServer`` starts one thread per accepted connection and keeps it until
the client's request arrives: 500 connections that never send one hold 500 threads for ever,
and its listen backlog of 5 leaves 20 concurrent scrapers retrying their SYNs (p99 about 1 s).
Here one thread accepts the connections and reads their request heads as the bytes come (one
selector, no thread per connection); a connection whose head is not complete ``timeout_s`` after
it connected is closed, so a client that sends nothing, or a byte now and then, holds no thread.
A complete head goes to a pool of at most ``max_threads`` workers, which therefore never wait on
a client's request, only on its reading the answer (``timeout_s`` again). At
``max_connections`` open, the oldest unfinished connection is closed, or, when every one is a
complete request, new ones wait in the listen backlog. A client that goes away early (a reset,
a broken pipe) is logged at DEBUG, never a traceback.

The requests served have no body (``GET``, ``HEAD``): handlers subclass :class:`HeadHandler`,
which reads the request from the buffered head.

With an ``ssl_context`` every accepted connection is wrapped server-side and its TLS handshake
is driven by the same selector, within the same ``timeout_s``: a client that stalls its
handshake holds no thread either, and one that fails it (plain HTTP to an HTTPS port, a
certificate it refuses) is closed and logged at DEBUG.
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import queue
import selectors
import socket
import socketserver
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = [
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_MAX_THREADS",
    "DEFAULT_TIMEOUT_S",
    "LISTEN_BACKLOG",
    "BoundedHTTPServer",
    "HeadHandler",
]

log = logging.getLogger("gpuprof.exporter")

#: Seconds a client has to send its request head, and again to take each part of the answer.
DEFAULT_TIMEOUT_S = 10.0
#: Worker threads serving requests; a scrape costs about 1 ms, so a few go a long way.
DEFAULT_MAX_THREADS = 16
#: Open connections (unfinished, queued and in service) before the oldest unfinished is closed.
DEFAULT_MAX_CONNECTIONS = 512
#: The listen backlog (http.server's is 5).
LISTEN_BACKLOG = 128
#: The longest request head read; a longer one goes to the handler as it is (431 / 414).
MAX_HEAD_BYTES = 64 * 1024
_OUT_OF_FDS = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


class _Pending:
    """A connection whose request head is still arriving."""

    __slots__ = ("addr", "deadline", "head", "shaken")

    def __init__(self, addr: Any, deadline: float, *, shaken: bool = True) -> None:
        self.addr = addr
        self.deadline = deadline
        self.head = bytearray()
        self.shaken = shaken  # the TLS handshake is done (always, without TLS)


class HeadHandler(BaseHTTPRequestHandler):
    """A request handler that reads the head :class:`BoundedHTTPServer` buffered for it."""

    server: BoundedHTTPServer

    def setup(self) -> None:
        super().setup()
        self.rfile.close()
        self.rfile = io.BytesIO(self.server.take_head(self.connection))


class BoundedHTTPServer(socketserver.TCPServer):
    """A TCP server for a :class:`HeadHandler` class; see the module doc.

    Used like ``socketserver`` servers: :meth:`serve_forever` on a thread of its own,
    :meth:`shutdown` from another, then :meth:`server_close`.
    """

    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[HeadHandler],
        *,
        ipv6: bool = False,
        max_threads: int = DEFAULT_MAX_THREADS,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        if ipv6:
            self.address_family = socket.AF_INET6
        self.max_threads = max(1, int(max_threads))
        self.timeout_s = float(timeout_s)
        self.max_connections = max(1, int(max_connections))
        self.ssl_context = ssl_context
        self._lock = threading.Lock()
        self._open = 0  # unfinished + queued + in service
        self._idle_workers = 0
        self._workers: list[threading.Thread] = []
        self._work: queue.SimpleQueue[tuple[socket.socket, Any] | None] = queue.SimpleQueue()
        self._heads: dict[socket.socket, bytes] = {}
        self._pending: dict[socket.socket, _Pending] = {}  # oldest first (one timeout for all)
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._stopped.set()
        super().__init__(address, handler)

    def server_bind(self) -> None:
        super().server_bind()
        self.server_port = int(self.server_address[1])

    @property
    def open_connections(self) -> int:
        """Connections accepted and not yet closed."""
        with self._lock:
            return self._open

    @property
    def threads(self) -> int:
        """Worker threads started (at most ``max_threads``)."""
        with self._lock:
            return len(self._workers)

    # -- the accept loop -------------------------------------------------------------------

    def serve_forever(self, poll_interval: float = 0.1) -> None:
        self._stop.clear()
        self._stopped.clear()
        self.socket.setblocking(False)
        sel = selectors.DefaultSelector()
        sel.register(self.socket, selectors.EVENT_READ, None)
        listening = True
        try:
            while not self._stop.is_set():
                timeout = poll_interval
                if self._pending:
                    first = next(iter(self._pending.values()))
                    timeout = min(timeout, max(0.0, first.deadline - time.monotonic()))
                for key, _ in sel.select(timeout):
                    if key.data is None:
                        self._accept(sel)
                    else:
                        self._read_head(sel, key.fileobj)  # type: ignore[arg-type]
                self._expire(sel)
                # At the limit with nothing unfinished to close: leave new ones in the backlog.
                full = self.open_connections >= self.max_connections
                if full and listening:
                    sel.unregister(self.socket)
                    listening = False
                elif not full and not listening:
                    sel.register(self.socket, selectors.EVENT_READ, None)
                    listening = True
        finally:
            for conn in list(self._pending):
                self._close_pending(sel, conn)
            sel.close()
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever` and wait for it (about ``poll_interval``)."""
        self._stop.set()
        self._stopped.wait()

    def server_close(self) -> None:
        """Close the listening socket and the requests still queued, and end the workers."""
        super().server_close()
        while True:
            try:
                item = self._work.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                self._heads.pop(item[0], None)
                self._release(item[0])
        with self._lock:
            workers = len(self._workers)
            self._workers.clear()
        for _ in range(workers):
            self._work.put(None)  # a worker in a request ends after it (its socket times out)

    def _accept(self, sel: selectors.BaseSelector) -> None:
        for _ in range(64):  # a burst, then read what arrived
            if self.open_connections >= self.max_connections and not self._evict_oldest(sel):
                return
            try:
                conn, addr = self.socket.accept()
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno in _OUT_OF_FDS and not self._evict_oldest(sel):
                    log.debug("exporter: cannot accept: %s", exc)
                    self._stop.wait(0.05)  # the socket stays readable: do not spin
                return
            conn.setblocking(False)
            with self._lock:
                self._open += 1
            if self.ssl_context is not None:
                try:
                    conn = self.ssl_context.wrap_socket(
                        conn, server_side=True, do_handshake_on_connect=False
                    )
                except (OSError, ValueError) as exc:
                    log.debug("exporter: TLS with %s failed: %s", addr, exc)
                    self._release(conn)
                    continue
            deadline = time.monotonic() + self.timeout_s
            self._pending[conn] = _Pending(addr, deadline, shaken=self.ssl_context is None)
            sel.register(conn, selectors.EVENT_READ, addr)

    def _handshake(self, sel: selectors.BaseSelector, conn: socket.socket) -> bool:
        """Go on with ``conn``'s TLS handshake; True once done (False: not yet, or failed)."""
        assert isinstance(conn, ssl.SSLSocket)
        try:
            conn.do_handshake()
        except ssl.SSLWantReadError:
            sel.modify(conn, selectors.EVENT_READ, self._pending[conn].addr)
            return False
        except ssl.SSLWantWriteError:
            sel.modify(conn, selectors.EVENT_WRITE, self._pending[conn].addr)
            return False
        except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
            log.debug("exporter: TLS handshake with %s failed: %s", self._pending[conn].addr, exc)
            self._close_pending(sel, conn)
            return False
        self._pending[conn].shaken = True
        sel.modify(conn, selectors.EVENT_READ, self._pending[conn].addr)
        return True

    def _read_head(self, sel: selectors.BaseSelector, conn: socket.socket) -> None:
        pending = self._pending[conn]
        if not pending.shaken and not self._handshake(sel, conn):
            return
        try:
            chunk = conn.recv(MAX_HEAD_BYTES)
            if isinstance(conn, ssl.SSLSocket):  # decrypted bytes the selector cannot see
                while conn.pending() and len(chunk) < MAX_HEAD_BYTES:
                    chunk += conn.recv(MAX_HEAD_BYTES)
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return
        except OSError as exc:
            log.debug("exporter: connection from %s ended: %s", pending.addr, exc)
            self._close_pending(sel, conn)
            return
        if not chunk and not pending.head:
            self._close_pending(sel, conn)  # connected and left: nothing to answer
            return
        pending.head += chunk
        head = pending.head
        complete = b"\r\n\r\n" in head or b"\n\n" in head
        if chunk and not complete and len(head) <= MAX_HEAD_BYTES:
            return
        # A whole head, one too long, or the client stopped sending: a worker answers it.
        del self._pending[conn]
        sel.unregister(conn)
        with self._lock:
            self._heads[conn] = bytes(head)
            self._work.put((conn, pending.addr))
            if self._work.qsize() > self._idle_workers and len(self._workers) < self.max_threads:
                worker = threading.Thread(
                    target=self._serve_queue, name="gpuprof-exporter-worker", daemon=True
                )
                self._workers.append(worker)
                worker.start()

    def take_head(self, conn: socket.socket) -> bytes:
        """The request head read for ``conn`` (once)."""
        with self._lock:
            return self._heads.pop(conn, b"")

    def _expire(self, sel: selectors.BaseSelector) -> None:
        now = time.monotonic()
        while self._pending:
            conn, pending = next(iter(self._pending.items()))
            if pending.deadline > now:
                return
            log.debug(
                "exporter: closing %s: no whole request in %.1f s", pending.addr, self.timeout_s
            )
            self._close_pending(sel, conn)

    def _evict_oldest(self, sel: selectors.BaseSelector) -> bool:
        if not self._pending:
            return False
        log.debug("exporter: %d connections open: closing the oldest", self.open_connections)
        self._close_pending(sel, next(iter(self._pending)))
        return True

    def _close_pending(self, sel: selectors.BaseSelector, conn: socket.socket) -> None:
        del self._pending[conn]
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(conn)
        self._release(conn)

    def _release(self, conn: socket.socket) -> None:
        try:
            conn.close()
        finally:
            with self._lock:
                self._open -= 1

    # -- the workers -----------------------------------------------------------------------

    def _serve_queue(self) -> None:
        while True:
            with self._lock:
                self._idle_workers += 1
            item = self._work.get()
            with self._lock:
                self._idle_workers -= 1
            if item is None:
                return
            conn, addr = item
            try:
                conn.settimeout(self.timeout_s)  # a client that does not read its answer
                self.finish_request(conn, addr)
            except OSError as exc:  # reset, broken pipe, timed out: the client's business
                log.debug("exporter: connection from %s ended: %s", addr, exc)
            except Exception as exc:
                log.warning("exporter: request from %s failed: %s", addr, exc)
                log.debug("exporter: request from %s failed", addr, exc_info=True)
            finally:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_WR)
                self._release(conn)

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("exporter: request from %s failed", client_address, exc_info=True)
