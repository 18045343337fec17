"""A session's files: checkpoints before a change, snapshots around a step, reverts, git, and the @
finder."""
