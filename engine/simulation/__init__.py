"""Measuring tools beside the rules: bot tournaments and random play, in-process.

Nothing in a game depends on them; `cardtrail simulate`, the benchmarks and the tests
use them to measure how strong the bots are and how fast the rules run.
"""
