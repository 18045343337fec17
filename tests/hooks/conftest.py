"""The API host of tests/api for the hook tests."""

from tests.api.conftest import carrier, host  # noqa: F401  (fixtures)
