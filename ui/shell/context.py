"""How a feature plugs into the window: the window as a feature sees it, the feature itself, and
its actions as data (DESIGN.md, "Growing the app").

A feature (report, compare, connect, fleet, job profiles, check, recording, benchmarks,
recommend) is made from a :class:`WindowContext` and gives the window :class:`ActionSpec`\\ s,
an optional strip above the tabs and a ``shutdown(deadline)``. The window builds its menus and
toolbar from the specs with :func:`build_actions` and :func:`build_menus` (napari's declarative
actions, without its app-model): no feature sets attributes on the window, looks for "the first
menu" or inserts widgets into its layout by position. :mod:`.features` lists the features.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QToolBar, QWidget

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np
    from gpuprof.telemetry.session import TelemetrySession
    from gpuprof.telemetry.source import TelemetrySource
    from PySide6.QtCore import SignalInstance

    from .settings import UiSettings
    from .state import UiState
    from .tab_host import TabHost

__all__ = [
    "CLOSE_BUDGET_S",
    "ActionSpec",
    "Feature",
    "FeatureFactory",
    "LazyTabFeature",
    "MenuSpec",
    "StepTickMarks",
    "ToolbarItem",
    "WindowContext",
    "build_actions",
    "build_menus",
    "build_toolbar",
    "remaining_s",
]


class StepTickMarks(Protocol):
    """The plots' ticks of a profiled job's steps (:class:`~..telemetry.plot.ticks.StepTicks`)."""

    @property
    def count(self) -> int: ...

    def set_times(self, times: np.ndarray) -> None:
        """The step end times, Unix s."""
        ...

    def clear(self) -> None: ...


class WindowContext(Protocol):
    """The window as a feature sees it: the session, settings, the tabs, the status bar, a strip
    above the tabs, and whether (and when) it closes."""

    @property
    def session(self) -> TelemetrySession | None: ...

    @property
    def source(self) -> TelemetrySource | None: ...

    @property
    def settings(self) -> UiSettings: ...

    @property
    def state(self) -> UiState: ...

    @property
    def tabs(self) -> TabHost: ...

    @property
    def step_ticks(self) -> StepTickMarks:
        """The plots' ticks of a profiled job's steps."""
        ...

    @property
    def closing(self) -> bool:
        """True once the window started closing: late callbacks do nothing."""
        ...

    @property
    def snapshot_received(self) -> SignalInstance:
        """``(Snapshot)`` in the GUI thread, after the window took it in."""
        ...

    @property
    def static_received(self) -> SignalInstance:
        """``(StaticFacts)`` of the source being watched, in the GUI thread, once they are read."""
        ...

    @property
    def measured_here(self) -> SignalInstance:
        """``(Measurements)`` a benchmark run on this machine measured, ``{GPU model: {dtype:
        TFLOPS}}``: a feature that measures emits it, one that ranks with it listens."""
        ...

    @property
    def checked_here(self) -> SignalInstance:
        """``(CheckResult)`` of an acceptance check run in this window: the Check feature emits
        it when a run ends, the report feature keeps the last one for its first page."""
        ...

    @property
    def session_changed(self) -> SignalInstance:
        """A new source, or the session's state changed (a recording stopped on its own)."""
        ...

    @property
    def about_to_close(self) -> SignalInstance:
        """Emitted once when the window starts closing, before the features' shutdown."""
        ...

    def widget(self) -> QWidget:
        """The window itself: the parent of a feature's dialogs and tabs."""
        ...

    def show_message(self, text: str, timeout_ms: int = 0) -> None:
        """A line in the status bar."""
        ...

    def add_status(self, widget: QWidget) -> None:
        """Put ``widget`` into the status bar, before the interval and driver labels."""
        ...

    def add_strip(self, strip: QWidget) -> None:
        """Put ``strip`` above the tabs (under the banner and the replay bar)."""
        ...

    def set_source(self, source: TelemetrySource) -> None:
        """Watch ``source`` instead (the session closes the old one)."""
        ...

    def open_recording(self, path: str | Path | None = None) -> None: ...

    def refresh_visible(self, force: bool = False) -> None: ...

    def action(self, action_id: str) -> QAction:
        """The action made from the spec ``action_id`` (KeyError: none)."""
        ...


class Feature(Protocol):
    """A part of the app that plugs into the window (see :mod:`.features`)."""

    #: Short and unique: ``window.feature(name)``.
    name: str

    def actions(self) -> Sequence[ActionSpec]:
        """What it adds to the menus, the toolbar and the window's shortcuts."""
        ...

    def strip(self) -> QWidget | None:
        """A widget to show above the tabs, or None."""
        ...

    def shutdown(self, deadline: float) -> None:
        """The window closes: stop what runs, waiting until ``deadline`` (``time.monotonic()``)
        at the latest. Nothing the feature started may outlive this, bar a thread stuck in a
        driver call (daemon threads, detached: they report nothing more)."""
        ...


#: Makes a feature for a window; :data:`.features.FEATURES` lists them.
FeatureFactory = Callable[[WindowContext], Feature]

#: The widget a lazy tab feature builds.
TabW = TypeVar("TabW", bound=QWidget)


class LazyTabFeature(Generic[TabW]):
    """A feature that is one tab, built when first shown or asked for (:meth:`widget`): its
    module and widgets cost start-up time only when used. A subclass names itself (``name``,
    the tab's name too) and builds its tab in :meth:`_make`; no actions, no strip."""

    name: str

    def __init__(self, context: WindowContext, title: str, tip: str) -> None:
        self._context = context
        #: The tab, once built (None until then).
        self.tab: TabW | None = None
        context.tabs.add_lazy(self.name, self._build, title, tip)

    def _make(self) -> TabW:
        raise NotImplementedError

    def _build(self) -> TabW:
        self.tab = self._make()
        return self.tab

    def widget(self) -> TabW:
        """The tab, built in place if it was not yet."""
        if self.tab is None:
            self._context.tabs.realize(self.name)
        assert self.tab is not None
        return self.tab

    def actions(self) -> list[ActionSpec]:
        return []

    def strip(self) -> None:
        return None


#: Closing the window: everything that runs (a profiled job saving its profile, a check, a
#: report preview, a benchmark, the sampler) stops within this, all together.
CLOSE_BUDGET_S = 14.0


def remaining_s(deadline: float, cap_s: float | None = None) -> float:
    """Seconds left until ``deadline`` (never negative), at most ``cap_s``."""
    left = max(0.0, deadline - time.monotonic())
    return left if cap_s is None else min(left, cap_s)


@dataclass(frozen=True)
class ActionSpec:
    """An action as data. ``callback(context, checked)`` runs when it is triggered (toggled, if
    ``checkable``); ``checked`` is False for a plain action.

    ``menu`` is a menu id ("file", "view", "view/interval", "help": see :class:`MenuSpec`);
    entries sort by ``group`` then ``order``, with a separator between groups. ``toolbar``
    is the group in the main toolbar (None: not there). Actions sharing ``exclusive`` are one
    exclusive choice; ``data`` is the value each stands for. An action in no menu still has
    its shortcut (the window holds it)."""

    id: str
    title: str
    callback: Callable[[WindowContext, bool], object]
    menu: str | None = None
    group: str = "1"
    order: float = 0.0
    shortcut: str | QKeySequence.StandardKey | None = None
    tip: str = ""
    checkable: bool = False
    checked: Callable[[WindowContext], bool] | None = None
    enabled_when: Callable[[WindowContext], bool] | None = None
    exclusive: str | None = None
    data: object = None
    toolbar: str | None = None
    toolbar_order: float = 0.0
    object_name: str = ""


@dataclass(frozen=True)
class MenuSpec:
    """A menu: ``parent`` None is one of the menu bar's, ordered by ``order``; otherwise a
    submenu, placed like an action (``group``, ``order``)."""

    id: str
    title: str
    parent: str | None = None
    group: str = "1"
    order: float = 0.0


@dataclass(frozen=True)
class ToolbarItem:
    """Widgets in the main toolbar that are not actions (a combo box and its label):
    ``make(toolbar)`` builds them, placed like an action's ``toolbar``/``toolbar_order``."""

    id: str
    make: Callable[[QToolBar], Sequence[QWidget]]
    group: str = "1"
    order: float = 0.0


def build_actions(
    owner: QWidget, context: WindowContext, specs: Iterable[ActionSpec]
) -> dict[str, QAction]:
    """A QAction per spec (child of ``owner``, which holds its shortcut), by id."""
    actions: dict[str, QAction] = {}
    groups: dict[str, QActionGroup] = {}
    for spec in specs:
        if spec.id in actions:
            raise ValueError(f"two actions have the id {spec.id!r}")
        action = QAction(spec.title, owner)
        if spec.object_name:
            action.setObjectName(spec.object_name)
        if spec.shortcut is not None:
            action.setShortcut(QKeySequence(spec.shortcut))
        if spec.tip:
            action.setToolTip(spec.tip)
            action.setStatusTip(spec.tip)
        action.setData(spec.data)
        action.setCheckable(spec.checkable or spec.exclusive is not None)
        if spec.checked is not None:
            action.setChecked(spec.checked(context))
        if spec.enabled_when is not None:
            action.setEnabled(spec.enabled_when(context))
        if spec.exclusive is not None:
            group = groups.get(spec.exclusive)
            if group is None:
                group = groups[spec.exclusive] = QActionGroup(owner)
            group.addAction(action)
        callback = spec.callback
        if spec.checkable and spec.exclusive is None:
            action.toggled.connect(lambda on, cb=callback: cb(context, bool(on)))
        else:
            action.triggered.connect(lambda on=False, cb=callback: cb(context, bool(on)))
        # Held by the window so that its shortcut works from any tab, in a menu or not (a
        # choice without a shortcut needs no holder: its menu holds it).
        if spec.shortcut is not None or spec.exclusive is None:
            owner.addAction(action)
        actions[spec.id] = action
    return actions


def _ordered(entries: Iterable[tuple[str, float, object]]) -> list[list[object]]:
    """Entries as groups in order, each group's entries in order."""
    by_group: dict[str, list[tuple[float, int, object]]] = {}
    for n, (group, order, item) in enumerate(entries):
        by_group.setdefault(group, []).append((order, n, item))
    return [
        [item for *_, item in sorted(by_group[g], key=lambda e: e[:2])] for g in sorted(by_group)
    ]


def build_menus(
    bar: QMenuBar,
    menus: Sequence[MenuSpec],
    specs: Iterable[ActionSpec],
    actions: dict[str, QAction],
) -> dict[str, QMenu]:
    """Fill ``bar`` with ``menus`` and the actions that name them; returns the menus by id."""
    built: dict[str, QMenu] = {}
    specs = list(specs)
    known = {m.id for m in menus}
    for spec in specs:
        if spec.menu is not None and spec.menu not in known:
            raise ValueError(f"action {spec.id!r} names no menu: {spec.menu!r}")

    def fill(menu: QMenu, menu_id: str) -> None:
        entries: list[tuple[str, float, object]] = [
            (s.group, s.order, actions[s.id]) for s in specs if s.menu == menu_id
        ]
        entries += [(m.group, m.order, m) for m in menus if m.parent == menu_id]
        for n, group in enumerate(_ordered(entries)):
            if n:
                menu.addSeparator()
            for item in group:
                if isinstance(item, MenuSpec):
                    sub = menu.addMenu(item.title)
                    built[item.id] = sub
                    fill(sub, item.id)
                else:
                    assert isinstance(item, QAction)
                    menu.addAction(item)

    for top in sorted((m for m in menus if m.parent is None), key=lambda m: m.order):
        menu = bar.addMenu(top.title)
        built[top.id] = menu
        fill(menu, top.id)
    return built


def build_toolbar(
    toolbar: QToolBar,
    specs: Iterable[ActionSpec],
    actions: dict[str, QAction],
    items: Iterable[ToolbarItem] = (),
) -> None:
    """Put the actions that name a toolbar group (and ``items``) into ``toolbar``."""
    entries: list[tuple[str, float, object]] = [
        (s.toolbar, s.toolbar_order, actions[s.id]) for s in specs if s.toolbar is not None
    ]
    entries += [(i.group, i.order, i) for i in items]
    for n, group in enumerate(_ordered(entries)):
        if n:
            toolbar.addSeparator()
        for item in group:
            if isinstance(item, ToolbarItem):
                for widget in item.make(toolbar):
                    toolbar.addWidget(widget)
            else:
                assert isinstance(item, QAction)
                toolbar.addAction(item)
