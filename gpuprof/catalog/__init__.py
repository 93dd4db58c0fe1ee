"""gpuprof.catalog."""
