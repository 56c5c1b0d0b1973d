"""Enumeration: the seeds' blocking-clause loops (embedded, in a forked child, the durable external loop),
the accept step that checks every model, the records they return, and the size cap of a held formula."""
