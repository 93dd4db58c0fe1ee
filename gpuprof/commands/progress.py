"""A long job on a worker thread behind a progress bar, for ``gpuprof check`` and ``bench``.

Ctrl-C cancels the job through its :class:`~gpuprof.bench.base.CancelToken` and waits for it to
hand back what it has: the result of a cancelled job is never lost.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from gpuprof.i18n import tr

if TYPE_CHECKING:
    from rich.console import Console

    from gpuprof.bench.base import CancelToken

__all__ = ["run_with_progress"]

P = TypeVar("P")
R = TypeVar("R")


def run_with_progress(
    job: Callable[[Callable[[P], None], CancelToken], R],
    *,
    describe: Callable[[P], tuple[float, str]],
    console: Console,
    starting: str,
    thread_name: str,
    quiet: bool = False,
    poll_s: float = 0.1,
) -> R:
    """Run ``job(on_progress, cancel)`` on a daemon thread and show its latest progress, turned
    into ``(fraction, description)`` by ``describe``, until it ends. Ctrl-C cancels the token
    and keeps waiting; what the job returns is returned, what it raises is raised here.
    ``quiet`` hides the bar (the job still runs); the bar is redrawn every ``poll_s`` seconds."""
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    from gpuprof.bench.base import CancelToken

    cancel = CancelToken()
    latest: collections.deque[P] = collections.deque(maxlen=1)
    results: list[R] = []  # what the worker hands back: its result, or what it raised
    errors: list[BaseException] = []
    finished = threading.Event()

    def work() -> None:
        try:
            results.append(job(latest.append, cancel))
        except BaseException as exc:
            errors.append(exc)
        finally:
            finished.set()

    thread = threading.Thread(target=work, name=thread_name, daemon=True)
    columns: tuple[Any, ...] = (
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True, disable=quiet) as bar:
        task = bar.add_task(starting, total=1.0)
        thread.start()
        # An Event, not thread.is_alive(): a Ctrl-C inside Thread.join() can leave
        # is_alive() False while the worker still runs (and its result is lost).
        while not finished.is_set():
            try:
                finished.wait(poll_s)
            except KeyboardInterrupt:
                cancel.cancel()
                bar.update(task, description=tr("cancelling…"))
                continue
            if latest:
                fraction, description = describe(latest[-1])
                bar.update(task, completed=fraction, description=description)
    if errors:
        raise errors[0]
    return results[0]
