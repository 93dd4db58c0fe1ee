"""ui/shell/workers.py CancellableWorker: the thread-to-signal bridge under the bench and check workers."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest


def _worker(qtbot: Any) -> Any:
    from gpuprof.ui.shell.app import make_app
    from gpuprof.ui.shell.workers import CancellableWorker

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


def test_a_thread_runs_under_the_name_of_what_it_does(qtbot: Any) -> None:
    """run_in_thread names its thread (every one was ``gpuprof-static-info``, issue 25); the
    exception itself reaches on_error."""
    from gpuprof.ui.shell.app import make_app
    from gpuprof.ui.shell.workers import run_in_thread

    make_app()
    names: list[str] = []
    errors: list[BaseException] = []
    run_in_thread(
        lambda: names.append(threading.current_thread().name),
        lambda _r: None,
        name="gpuprof-test-read",
    ).join(5.0)
    assert names == ["gpuprof-test-read"]
    boom = KeyError("missing")

    def fail() -> None:
        raise boom

    run_in_thread(fail, lambda _r: None, errors.append, name="gpuprof-test-fail")
    qtbot.waitUntil(lambda: errors != [], timeout=5000)
    assert errors == [boom]


@pytest.mark.parametrize("fails", [False, True])
def test_a_plain_function_callback_runs_in_the_gui_thread(qtbot: Any, fails: bool) -> None:
    """on_done / on_error run in the GUI thread even when they are plain functions, not a
    QObject's methods (PySide calls a bare callable in the emitting thread; the UI would then
    start timers from the worker: "QBasicTimer::start: Timers cannot be started from another
    thread")."""
    from gpuprof.ui.shell.app import make_app
    from gpuprof.ui.shell.workers import run_in_thread
    from PySide6.QtCore import QObject

    make_app()
    receiver = QObject()
    threads: list[str] = []

    def job() -> str:
        if fails:
            raise OSError("no answer")
        return "ok"

    def record(_value: object) -> None:
        threads.append(threading.current_thread().name)

    run_in_thread(job, record, record, receiver, name="gpuprof-test-where")
    qtbot.waitUntil(lambda: threads != [], timeout=5000)
    assert threads == [threading.main_thread().name]


@pytest.mark.parametrize("fails", [False, True])
def test_a_result_after_the_receiver_was_deleted_is_dropped_quietly(
    qtbot: Any, fails: bool
) -> None:
    """The tab that asked closes while the thread runs: its result (or error) reaches no one, and
    the thread ends without an exception of its own (it raised "Signal source has been
    deleted")."""
    from gpuprof.ui.shell.app import make_app
    from gpuprof.ui.shell.workers import run_in_thread
    from PySide6.QtCore import QObject

    make_app()
    parent = QObject()
    release = threading.Event()
    got: list[object] = []
    thread_errors: list[BaseException | None] = []
    previous = threading.excepthook
    threading.excepthook = lambda hook_args: thread_errors.append(hook_args.exc_value)

    def job() -> str:
        release.wait(5.0)
        if fails:
            raise OSError("the exporter went away")
        return "late"

    try:
        thread = run_in_thread(job, got.append, got.append, parent, name="gpuprof-test-late")
        parent.deleteLater()
        qtbot.waitUntil(lambda: not _alive(parent), timeout=5000)
        release.set()
        thread.join(5.0)
        qtbot.wait(50)
    finally:
        threading.excepthook = previous
    assert not thread.is_alive()
    assert thread_errors == [] and got == []


def _alive(obj: Any) -> bool:
    from shiboken6 import isValid

    return bool(isValid(obj))


def test_every_worker_thread_of_the_app_has_its_own_name() -> None:
    """Each run_in_thread call in ui/ passes a literal name=, and no two share one."""
    import ast
    from pathlib import Path

    names: list[str] = []
    for path in sorted((Path(__file__).resolve().parent.parent / "ui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "run_in_thread"):
                continue
            given = [k.value for k in node.keywords if k.arg == "name"]
            assert len(given) == 1 and isinstance(given[0], ast.Constant), f"{path}:{node.lineno}"
            names.append(str(given[0].value))
    assert len(names) >= 8 and len(set(names)) == len(names), names
    assert all(n.startswith("gpuprof-") for n in names)


def test_a_failed_check_reports_the_exception_itself(qtbot: Any) -> None:
    """errored carries the exception (superqt's way): the tab words it, the log keeps its type
    and traceback, rather than a string made in the worker thread."""
    from gpuprof.ui.check.worker import CheckWorker, error_text
    from gpuprof.ui.shell.app import make_app

    from gpuprof.errors import InputError

    make_app()
    worker = CheckWorker()
    problem = InputError("8xH100: no such instance")

    def make() -> Any:
        raise problem

    with qtbot.waitSignal(worker.errored, timeout=10_000) as got:
        worker.start(make)
    assert got.args == [problem]
    assert error_text(problem) == "8xH100: no such instance"
    assert error_text(ValueError("bad")) == "ValueError: bad"
    assert worker.wait(10.0)


def test_closing_a_window_cancels_the_workers_it_holds_and_no_others(
    make_window: Any, qtbot: Any
) -> None:
    """superqt's await_workers, for one window: every worker under it (a tab's, at any depth)
    is cancelled and waited for with the window's deadline; another window's goes on."""
    from gpuprof.ui.shell.workers import CancellableWorker, shutdown_workers
    from PySide6.QtWidgets import QWidget

    class UntilCancelled(CancellableWorker):
        thread_name = "gpuprof-until-cancelled"

        def start(self, stuck: threading.Event | None = None) -> None:
            def body(token: Any) -> None:
                while not token.cancelled:
                    token.wait(0.01)
                if stuck is not None:
                    stuck.wait(10.0)  # a driver call that does not return
                self._send("finished", "cancelled")

            self._launch(body)

    w, other = make_window(), QWidget()
    qtbot.addWidget(other)
    inside = QWidget(w.tabs.widget(0))  # held by a tab of the window
    mine, theirs = UntilCancelled(inside), UntilCancelled(other)
    mine.start()
    theirs.start()
    w.close()
    assert not mine.running and mine.cancel_token.cancelled
    assert theirs.running and not theirs.cancel_token.cancelled
    theirs.cancel()
    assert theirs.wait(10.0)

    stuck_gate = threading.Event()
    stuck = UntilCancelled(other)
    stuck.start(stuck_gate)
    assert not shutdown_workers(other, time.monotonic() + 0.2)  # still stuck: detached
    finished: list[Any] = []
    stuck.finished.connect(finished.append)
    stuck_gate.set()
    assert stuck.wait(10.0)
    qtbot.wait(50)  # anything it reported would arrive now
    assert finished == []
