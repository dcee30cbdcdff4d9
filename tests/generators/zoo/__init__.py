"""Zoo model families for scripts/make_zoo.py (one module per family)."""
