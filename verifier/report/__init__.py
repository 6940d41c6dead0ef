"""Renderers of results: text and JSON (JUnit and SARIF for the CI gate)."""
