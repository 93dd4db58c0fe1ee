"""CLI sub-commands; each module has ``register(subparsers)`` and keeps heavy imports lazy."""

from __future__ import annotations

import argparse

from gpuprof.i18n import tr

__all__ = ["interval_arg"]


def interval_arg(text: str) -> float:
    """argparse type for ``--interval``: seconds within the sampler's 0.1–60 s range."""
    from gpuprof.telemetry.sampler import MAX_INTERVAL_S, MIN_INTERVAL_S

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            tr("interval must be a number of seconds, got {t!r}", t=text)
        ) from None
    if not MIN_INTERVAL_S <= value <= MAX_INTERVAL_S:
        raise argparse.ArgumentTypeError(
            tr(
                "interval {v} s is outside {lo}–{hi} s",
                v=value,
                lo=MIN_INTERVAL_S,
                hi=MAX_INTERVAL_S,
            )
        )
    return value
