"""Certificates: ``count --certify DIR`` writes a DRAT proof per cube and a manifest that covers the board;
``check-count`` checks them (every proof, the cover, the bounds) in parallel."""
