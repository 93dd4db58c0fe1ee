"""The window's features, in one list: a new feature is a module plus one line here.

Each entry makes a :class:`~.context.Feature` from the window's
:class:`~.context.WindowContext`; the window builds its menus and toolbar from their actions,
puts their strips above the tabs, and asks each to shut down, in this order, before one shared
deadline when it closes. Tabs a feature adds come after the window's own, in this order.
See docs/features.md.
"""

from __future__ import annotations

from ..bench.feature import BenchFeature
from ..check.tab import CheckFeature
from ..fleet.tab import FleetFeature
from ..profile.status import JobProfiles
from ..recommend.feature import RecommendFeature
from ..report.compare import CompareFeature
from ..report.dialog import ReportFeature
from ..telemetry.connect_dialog import ConnectFeature
from ..telemetry.recording import RecordingFeature
from .context import FeatureFactory

__all__ = ["FEATURES"]

FEATURES: tuple[FeatureFactory, ...] = (
    JobProfiles,  # first to shut down: a job saving its profile gets the most time
    RecordingFeature,  # File → Start recording, the REC mark
    BenchFeature,  # the Benchmarks tab (Alt+6)
    RecommendFeature,  # the Recommend tab (Alt+7)
    CheckFeature,  # the Check tab (Alt+8)
    ConnectFeature,
    FleetFeature,  # the Fleet tab, when --prometheus asked for it at start
    CompareFeature,
    ReportFeature,
)
