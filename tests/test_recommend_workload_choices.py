"""Workload's named choices (billing, stack, recompute, KV dtype, attention kernel, KV
admission, sampler, SLO percentile): a known word in any case is taken, an unknown one is one error
naming it and the choices."""

from __future__ import annotations

import pytest

from gpuprof.errors import InputError
from gpuprof.recommend.efficiency import STACKS
from gpuprof.recommend.workload import (
    ATTENTION_KERNELS,
    BILLINGS,
    KV_ADMISSION,
    KV_DTYPES,
    PERCENTILES,
    RECOMPUTE,
    SAMPLERS,
    Workload,
)

SERVE = {"scenario": "serve", "params": 7e9, "rate_per_s": 1.0, "output_len": 100}
TRAIN = {"scenario": "pretrain", "params": 7e9, "tokens": 1e9}

CASES = [
    ("billing", BILLINGS, " Spot ", "spot", TRAIN),
    ("stack", STACKS, "Megatron", "tuned", TRAIN),
    ("recompute", RECOMPUTE, "FULL", "full", TRAIN),
    ("kv_dtype", KV_DTYPES, "FP8", "fp8", SERVE),
    ("attention_kernel", ATTENTION_KERNELS, " Per-Head", "per-head", SERVE),
    ("kv_admission", KV_ADMISSION, "Reserve ", "reserve", SERVE),
    ("sampler", SAMPLERS, " Decoder", "decoder", SERVE),
    ("slo_percentile", PERCENTILES, "P50", "p50", SERVE),
]


@pytest.mark.parametrize(("field", "choices", "given", "taken", "base"), CASES)
def test_a_known_choice_is_taken_in_any_case(field, choices, given, taken, base) -> None:
    assert getattr(Workload(**base, **{field: given}), field) == taken


@pytest.mark.parametrize(("field", "choices", "given", "taken", "base"), CASES)
def test_an_unknown_choice_names_itself_and_the_choices(field, choices, given, taken, base) -> None:
    with pytest.raises(InputError) as err:
        Workload(**base, **{field: "bogus-" + "x" * 60})
    text = str(err.value)
    assert text.startswith("unknown ")
    assert repr("bogus-" + "x" * 34) in text  # the value as given, cut to 40 characters
    assert ", ".join(choices) in text
