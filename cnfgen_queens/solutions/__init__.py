"""The policy of finding every solution, the one door the CLI, the library and the batch use: a request
(:mod:`.request`), the engine, the size cap, the deadline and the published counts (:mod:`.api`)."""
