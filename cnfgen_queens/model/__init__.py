"""The N-queens model: the board's geometry and symmetries, the variants (completion, blocked
squares, torus), the formula as a clause stream, the known counts (OEIS), and decoding a
model back to a checked placement.  Imports nothing above ``encodings/``."""
