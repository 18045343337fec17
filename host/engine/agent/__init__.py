"""The agent loop: one agent per session, its turns and tool calls, approvals, compaction, slash
commands, goals and subagents."""
