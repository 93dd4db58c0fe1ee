"""Acceptance check of a GPU server: inventory, health, performance against cited references,
memory test and burn-in (``gpuprof check``); see :mod:`gpuprof.check.run`."""
