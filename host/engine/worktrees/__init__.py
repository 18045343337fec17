"""Sessions in a git worktree of their folder's repository, and the hand-off of their work to the
person's checkout (docs/decisions.md, "Worktree sessions").

`layout` says where worktrees go and what a worktree session's sandbox binds; `files` reads and
writes the files that move between a checkout and a worktree without following links; `gitops`
runs the git each step needs through the host's one git module; `journal` makes every step that
changes the person's repository survive a kill -9 (finished or rolled back at the next start);
`making` adds a worktree and `handoff` brings its work home (apply, merge, remove, adopt);
`setup` runs a workspace's setup command before the first turn; `service` is `engine.worktrees`.
"""
