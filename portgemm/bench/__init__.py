"""Benchmarks: ``python -m portgemm.bench`` times variants on devices beside a reference."""

from .runner import BenchRecord, bench_case, parse_sizes

__all__ = ["BenchRecord", "bench_case", "parse_sizes"]
