"""The NVML backend: :class:`~gpuprof.telemetry.nvml.source.NvmlSource` and what it reads.

- :mod:`.source`: the source, and the one module of gpuprof that imports pynvml (lazily;
  tests assign a fake to ``source.pynvml``);
- :mod:`.query`: every NVML call, its error turned into ``None`` and recorded once;
- :mod:`.static`, :mod:`.poll`, :mod:`.gpm`, :mod:`.values`: what is read once, per poll, from
  GPM, and NVML's numbers in gpuprof's units, all free of pynvml;
- :mod:`.events`: the XID event watch (its own NVML event set and thread).

Importing this package imports none of them: start-up does not pay for NVML.
"""
