"""Indexing rules judged by the reference interpreter (`tests/oracle`) and the indexing document's golden cases."""
