"""The ACP suite reuses the API suite's scripted provider fixtures (one server per session)."""

from tests.api.conftest import llm, llm_server

__all__ = ["llm", "llm_server"]
