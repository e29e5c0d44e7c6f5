"""Benchmarks run by ``lanqi bench``: plain functions that return a report and format it.

- :mod:`lanqi.bench.movegen`: perft speed of the xiangqi move generator, against
  the ``cchess`` package when it is installed.
"""
