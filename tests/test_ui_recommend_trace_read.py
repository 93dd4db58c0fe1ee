"""The Recommend tab reads a chosen trace file in a worker (issue 22's "an app that never
blocks"): a trace at the request limit takes about a second to parse, and a file past the size
limit as long to be refused. The field says it is reading, the result is applied when the read
ends, a newer choice (or Clear) drops an older read, and a bad file's error arrives the same
way."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from tests.test_ui_recommend_trace import write_trace

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def field(qtbot):
    from gpuprof.ui.recommend.trace_input import TraceInput
    from gpuprof.ui.shell.app import make_app

    make_app()
    f = TraceInput()
    qtbot.addWidget(f)
    return f


def test_a_chosen_trace_is_read_in_the_background_then_applied(field, qtbot, tmp_path) -> None:
    path = write_trace(tmp_path / "big.csv", 20_000)
    loaded: list[dict] = []
    field.loaded.connect(loaded.append)
    reader = field.load_in_background(str(path))
    # The call returned before the trace was read: nothing applied yet, the field says why.
    assert field.trace is None and loaded == []
    assert "Reading" in field.status.text()
    assert reader.thread_name == "gpuprof-trace-read"
    qtbot.waitUntil(lambda: field.trace is not None, timeout=30_000)
    assert len(field.trace) == 20_000
    assert len(loaded) == 1 and loaded[0]["prompt_len"] > 0
    assert "20,000 requests" in field.status.text() and field.reader is None


def test_a_newer_choice_drops_the_older_read(field, qtbot, tmp_path) -> None:
    first = write_trace(tmp_path / "first.csv", 30_000)
    second = write_trace(tmp_path / "second.csv", 50)
    old = field.load_in_background(str(first))
    field.load_in_background(str(second))
    qtbot.waitUntil(lambda: field.trace is not None, timeout=30_000)
    assert old.wait(30)
    qtbot.wait(50)  # anything the old reader sent is delivered (and dropped) now
    assert len(field.trace) == 50 and field.path.text() == str(second)


def test_clear_drops_a_read_in_progress(field, qtbot, tmp_path) -> None:
    old = field.load_in_background(str(write_trace(tmp_path / "t.csv", 30_000)))
    assert field.clear.isEnabled()
    field.clear_trace()
    assert old.wait(30)
    qtbot.wait(50)
    assert field.trace is None and field.path.text() == "" and field.status.isHidden()


def test_a_bad_file_read_in_the_background_says_why(field, qtbot, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("arrival_s,prompt_tokens,output_tokens\n0,abc,5\n", "utf-8")
    field.load_in_background(str(bad))
    qtbot.waitUntil(lambda: field.error is not None, timeout=30_000)
    assert field.trace is None
    assert "Cannot use this trace" in field.status.text() and "bad.csv" in field.error
