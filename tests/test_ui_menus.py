"""The menus and the toolbar built from the action registry (ui/shell/context.py): the same entries,
order, shortcuts and separators as the window had when it set them up by hand, and a feature
added to the list shows in them without touching the window or the menus module."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel, QMenu, QWidget

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def _entries(menu: QMenu) -> list[Any]:
    out: list[Any] = []
    for a in menu.actions():
        if a.isSeparator():
            out.append("---")
        elif a.menu() is not None:
            out.append((a.text(), _entries(a.menu())))
        else:
            out.append((a.text(), a.shortcut().toString()))
    return out


def test_the_menus_are_built_from_the_registry_as_before(make_window: Any) -> None:
    w = make_window()
    bar = [a for a in w.menuBar().actions()]
    assert [a.text() for a in bar] == ["&File", "&View", "&Help"]
    file_menu, view_menu, help_menu = (a.menu() for a in bar)
    assert _entries(file_menu) == [
        ("&Open recording…", QKeySequence(QKeySequence.StandardKey.Open).toString()),
        ("Co&nnect to a machine…", "Ctrl+Shift+O"),
        ("Connect to &Prometheus…", ""),
        ("Start recording", "Ctrl+R"),
        ("Co&mpare results…", ""),
        "---",
        ("&Profile a command…", ""),
        ("&Job profiles…", ""),
        "---",
        ("Export &report…", "Ctrl+E"),
        ("Save screenshot of the &window…", "Ctrl+S"),
        ("Save screenshot of the current &tab…", "Ctrl+Shift+S"),
        ("&Copy screenshot", "Ctrl+Shift+C"),
        "---",
        ("&Quit", QKeySequence(QKeySequence.StandardKey.Quit).toString()),  # by platform
    ]
    view = _entries(view_menu)
    assert view[:4] == [
        ("&Light theme", ""),
        ("&Dark theme", ""),
        ("Toggle theme", "Ctrl+T"),
        "---",
    ]
    interval, window, pause, sep, language = view[4:]
    assert interval[0] == "Sampling &interval" and ("1 s", "") in interval[1]
    assert window[0] == "Time &window" and [s for _, s in window[1]][:2] == ["Ctrl+1", "Ctrl+2"]
    assert pause == ("&Pause plots", "Ctrl+P") and sep == "---"
    assert language[0] == "&Language" and language[1][0] == ("Automatic (from the system)", "")
    assert _entries(help_menu) == [("&About gpuprof", "F1")]
    tools = w.chrome.toolbar
    shown = [
        "---" if a.isSeparator() else (a.text() or type(tools.widgetForAction(a)).__name__)
        for a in tools.actions()
    ]
    assert shown == [
        "&Open recording…",
        "Start recording",
        "Save screenshot of the &window…",
        "---",
        "&Pause plots",
        "QLabel",
        "QComboBox",
        "---",
        "Toggle theme",
    ]
    assert isinstance(tools.widgetForAction(tools.actions()[5]), QLabel)
    # Only the shell's own choices are exclusive groups; each has one choice checked.
    for group in ("theme", "interval", "time_window", "language"):
        assert sum(a.isChecked() for a in w.chrome.choices(group)) == 1, group


class _Hello:
    """A feature that is a class plus one line in the list: Help → Say hello, and a strip."""

    name = "hello"

    def __init__(self, context: Any) -> None:
        self.context = context
        self.said: list[str] = []
        self.deadlines: list[float] = []
        self.bar = QLabel("hello strip")

    def actions(self) -> list[Any]:
        from gpuprof.ui.shell.context import ActionSpec

        return [
            ActionSpec(
                "help.hello",
                "Say &hello",
                lambda c, _on: self.said.append(c.settings.theme),
                menu="help",
                group="2",
                shortcut="Ctrl+Alt+H",
                tip="Says hello",
            )
        ]

    def strip(self) -> QWidget:
        return self.bar

    def shutdown(self, deadline: float) -> None:
        self.deadlines.append(deadline)


def test_a_new_feature_is_one_line_in_the_list(
    make_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof.ui.shell import features, main_window

    monkeypatch.setattr(main_window, "FEATURES", (*features.FEATURES, _Hello))
    w = make_window()
    hello = w.feature("hello")
    assert isinstance(hello, _Hello) and hello.context is w
    help_menu = w.menuBar().actions()[2].menu()
    assert _entries(help_menu) == [("&About gpuprof", "F1"), "---", ("Say &hello", "Ctrl+Alt+H")]
    w.action("help.hello").trigger()
    assert hello.said == [w.settings.theme]
    # Its strip sits just above the tabs, after the window's banner and replay bar.
    layout = w.centralWidget().layout()
    assert layout.indexOf(hello.bar) == layout.indexOf(w.tabs) - 1
    w.close()
    assert len(hello.deadlines) == 1  # asked once, with the window's one deadline


def test_every_feature_is_asked_to_shut_down_with_one_deadline(
    make_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = make_window()
    asked: list[tuple[str, float]] = []
    for feature in w.features:
        monkeypatch.setattr(
            feature, "shutdown", lambda d, n=feature.name: asked.append((n, d)), raising=True
        )
    closing: list[bool] = []
    w.about_to_close.connect(lambda: closing.append(w.closing))
    w.close()
    w.close()  # again (a test's teardown does): said once
    assert closing == [True]
    in_order = [
        *("jobs", "recording", "benchmarks", "recommend", "check"),
        *("connect", "fleet", "compare", "report"),
    ]
    assert [n for n, _ in asked[:9]] == in_order
    assert len({d for _, d in asked[:9]}) == 1


def test_closing_the_window_stops_the_fleet_tab(make_window: Any) -> None:
    """The Fleet tab stops refreshing with the window (its own closeEvent never ran there: Qt
    does not send Close to a tab when its window closes, so its timer went on)."""
    from gpuprof.ui.fleet.tab import open_fleet

    from gpuprof.fleet.client import PrometheusClient

    w = make_window()
    tab = open_fleet(w, PrometheusClient("http://127.0.0.1:9", timeout_s=1.0))
    assert tab.timer.isActive()
    w.close()
    assert not tab.timer.isActive()
