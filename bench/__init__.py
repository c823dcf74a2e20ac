"""Benchmarks: run as modules, e.g. `python -m bench.engine_bench`; never timed in tests."""
