"""The ACP suite uses the root plugin's scripted provider fixtures (`llm`, `llm_server` in
tests/support/scripted_llm.py): nothing of its own."""
