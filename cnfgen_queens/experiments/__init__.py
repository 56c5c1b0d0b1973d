"""Batch experiments: YAML config -> run grid -> executor -> SQLite -> report and plots.

The pipeline, one module each: :mod:`.config` (load and validate), :mod:`.grid`
(runs and their keys), :mod:`.tasks` (what a worker does: generate an instance,
run a solver), :mod:`.executors` (local process pool or Dask), :mod:`.store`
(SQLite results, resume), :mod:`.batch` (the loop tying them together),
:mod:`.report` (PAR-2 tables) and :mod:`.plots` (cactus and time-vs-N plots).
"""
