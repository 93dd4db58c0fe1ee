"""Workloads of the shipped models table's architectures, made in a test."""

from __future__ import annotations

import functools
from typing import Any

from gpuprof.recommend.models import ModelArch, find_model, load_models
from gpuprof.recommend.workload import Workload


@functools.cache
def _shipped() -> dict[str, ModelArch]:
    return load_models()


def model_workload(scenario: str, model: str, **kw: Any) -> Workload:
    """A ``scenario`` workload of the shipped table's ``model`` (its architecture's fields:
    layers, hidden, heads, experts, ...); ``kw``: the workload's others, which win over the
    model's."""
    fields = find_model(model, _shipped()).workload_fields()
    return Workload(scenario, **{**fields, **kw})


def serving(model: str, **kw: Any) -> Workload:
    """Serving the shipped table's ``model`` (:func:`model_workload` of scenario ``serve``)."""
    return model_workload("serve", model, **kw)
