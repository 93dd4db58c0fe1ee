"""The Benchmarks tab: the run worker, table, panels, charts and screenshot."""
