"""The simulator's vectorized noise is the scalar noise, value for value (demo determinism)."""

from __future__ import annotations

import numpy as np
import pytest

from gpuprof.telemetry.simulated import _noise, _noise_array


@pytest.mark.parametrize("seed", [0, -3, 2**70 + 5])
@pytest.mark.parametrize("tick", [-5, 0, 123_456_789, -(2**40)])
def test_noise_array_equals_scalar_noise(seed: int, tick: int) -> None:
    keys = np.arange(-10, 230)
    got = _noise_array(seed, 20, keys, tick)
    want = np.array([_noise(seed, 20, int(k), tick) for k in keys])
    np.testing.assert_array_equal(got, want)
    assert got.min() >= -1.0 and got.max() < 1.0
    assert len(np.unique(got)) == len(keys)  # well spread: no two keys collide
    # An array key in the middle, scalars after it (the NVLink pattern).
    links = np.arange(18)
    np.testing.assert_array_equal(
        _noise_array(seed, 12, 3, links, tick),
        [_noise(seed, 12, 3, int(k), tick) for k in links],
    )
