"""A session's files: checkpoints before a change, snapshots around a step, reverts, the review
pane's diffs, git, the file tree, the @ finder, and reading without following links."""
