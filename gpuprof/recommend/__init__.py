"""gpuprof.recommend."""
