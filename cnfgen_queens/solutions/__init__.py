"""Finding every solution: the accept step shared by every loop, the embedded, forked and
external loops, counting by border cubes, the worker pools, and :mod:`.api`, which owns the
policy (engine, size cap, deadline, the known-count check).  Imports ``solvers/`` and below."""
