"""Where sessions work: workspaces (registered project folders), the host's folders (browse,
pick, create, open), git worktrees for parallel agents, and remote hosts over SSH."""
