"""Plain-language health findings over telemetry: :mod:`.diagnose` (configuration and state:
PCIe link below its maximum, power capped, ECC, throttling, driver and CUDA versions) and
:mod:`.activity` (what the profiling counters say: SMs idle while "utilized", tensor cores idle,
memory-bound). Both return :class:`~gpuprof.findings.Finding` records, which other readers
(fleet, job profiles) share.
"""
