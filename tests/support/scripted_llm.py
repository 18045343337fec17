"""Placeholder: the scripted OpenAI-compatible server fixture lands here (engine adapters helper)."""
