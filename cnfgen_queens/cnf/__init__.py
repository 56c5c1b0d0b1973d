"""CNF as bytes: DIMACS reading (bounded, strict or forgiving), scanning and model checks,
compressed and atomic files, the writer and its fast path, output sizes, ``--shuffle``,
OPB/MiniZinc exports, the GBD instance hash and instance statistics.  Imports only ``model/``
and ``encodings/``."""
