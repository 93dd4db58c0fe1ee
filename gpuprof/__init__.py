"""gpuprof: watch what a GPU does, measure what it can do, decide which cloud machine to rent.

The Python API for the user's own job (issue 13)::

    import gpuprof

    with gpuprof.track("my-run") as t:
        for batch in loader:
            ...
            t.step(tokens=n_tokens, flops=gpuprof.flops_per_token(n_params, seq_len) * n_tokens)

``track`` and ``flops_per_token`` are loaded on first use: ``import gpuprof`` itself imports
nothing heavy (no torch, no Qt, no numpy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuprof.version import __version__

__all__ = ["__version__", "flops_per_token", "track"]

if TYPE_CHECKING:
    from gpuprof.profile.steps import flops_per_token
    from gpuprof.profile.track import track


def __getattr__(name: str) -> Any:
    # PEP 562: the API modules are imported when first asked for.
    if name == "track":
        from gpuprof.profile.track import track

        return track
    if name == "flops_per_token":
        from gpuprof.profile.steps import flops_per_token

        return flops_per_token
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
