"""ui/workers.py CancellableWorker: the thread-to-signal bridge under the bench and check workers."""

from __future__ import annotations

import threading
from typing import Any

import pytest


def _worker(qtbot: Any) -> Any:
    from gpuprof.ui.app import make_app
    from gpuprof.ui.workers import CancellableWorker

    make_app()

    class Echo(CancellableWorker):
        job_name = "an echo"
        thread_name = "gpuprof-echo"

        def start(self, gate: threading.Event) -> None:
            def body(token: Any) -> None:
                self._send("progress", threading.current_thread().name)
                gate.wait(10.0)
                self._send("finished", "cancelled" if token.cancelled else "done")

            self._launch(body)

    return Echo()


def test_signals_arrive_in_order_and_a_second_start_is_refused(qtbot: Any) -> None:
    worker = _worker(qtbot)
    seen: list[tuple[str, Any]] = []
    worker.started.connect(lambda: seen.append(("started", None)))
    worker.progress.connect(lambda v: seen.append(("progress", v)))
    worker.finished.connect(lambda v: seen.append(("finished", v)))
    gate = threading.Event()
    worker.start(gate)
    assert worker.running
    with pytest.raises(RuntimeError, match="an echo is already running"):
        worker.start(gate)
    gate.set()
    assert worker.wait(10.0) and not worker.running
    qtbot.waitUntil(lambda: len(seen) == 3, timeout=5000)
    assert seen == [("started", None), ("progress", "gpuprof-echo"), ("finished", "done")]


def test_cancel_reaches_the_job_and_detach_drops_what_it_reports_after(qtbot: Any) -> None:
    worker = _worker(qtbot)
    finished: list[Any] = []
    worker.finished.connect(finished.append)
    gate = threading.Event()
    worker.start(gate)
    worker.cancel()
    assert worker.cancel_token is not None and worker.cancel_token.cancelled
    gate.set()
    assert worker.wait(10.0)
    qtbot.waitUntil(lambda: finished == ["cancelled"], timeout=5000)

    gate = threading.Event()
    worker.start(gate)  # a fresh token, and reporting again
    assert worker.cancel_token is not None and not worker.cancel_token.cancelled
    worker.detach()
    gate.set()
    assert worker.wait(10.0)
    qtbot.wait(50)  # a queued signal would arrive now
    assert finished == ["cancelled"]
