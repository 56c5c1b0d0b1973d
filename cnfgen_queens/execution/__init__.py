"""Where work runs: a local process pool, Dask, SLURM (dask-jobqueue) and the task pool over them, with
the workers' signal handling; the counters, the certificate checks and the batch all use it from below."""
