"""Where sessions work: workspaces (registered project folders), a session's project and its
instructions, the host's folders, git worktrees for parallel agents, and remote hosts over SSH."""
