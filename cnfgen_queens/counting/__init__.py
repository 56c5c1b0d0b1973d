"""Counting by cubes: the border cubes of the plain board weighed by its symmetry group, the variants' own
cubes (the torus by its group), a binary's cubes by restart loops, and the engine choice between them."""
