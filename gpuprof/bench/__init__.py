"""gpuprof.bench."""
