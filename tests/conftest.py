"""Root fixtures: shared plugins live in tests/support/ (each suite keeps its own conftest)."""

pytest_plugins = ["tests.support.scripted_llm"]
