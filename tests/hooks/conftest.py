"""The API host of tests/api for the hook tests."""

from tests.api.conftest import carrier, host, llm, llm_server  # noqa: F401  (fixtures)
