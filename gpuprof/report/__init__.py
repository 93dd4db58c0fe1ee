"""gpuprof.report."""
