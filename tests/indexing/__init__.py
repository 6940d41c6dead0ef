"""Indexing rules judged by the reference interpreter (`tests/oracle`) and SPEC §2."""
