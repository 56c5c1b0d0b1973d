"""Batch experiments: YAML config -> run grid -> executor -> SQLite -> report and plots.

The pipeline, one module each: :mod:`.config` (read, aliases never expanded, and
validated, with limits), :mod:`.grid` (runs and
their keys), :mod:`.tasks` (what a worker does: generate an instance, run a
solver), :mod:`.instance_hash` (the GBD hash that identifies a cached CNF),
:mod:`.executors` (local process pool or Dask), :mod:`.store` (SQLite results,
resume; one :class:`~.store.Row` per run), :mod:`.verdict` (solved, wrong or
unsolved), :mod:`.batch` (the loop tying them together), :mod:`.report` (PAR-2
tables) and :mod:`.plots` (cactus and time-vs-N plots).
"""
