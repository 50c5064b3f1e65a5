"""The experiments, one module each (plus their base scenario TOMLs in this directory).

A module defines ``EXPERIMENT = Experiment(...)``; `lastmile.reproduce.experiments()` finds
it. Modules starting with ``_`` are shared helpers. The repository's ``experiments/``
directory is a symlink here.
"""
