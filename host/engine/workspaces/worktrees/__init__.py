"""Sessions in a git worktree of their folder's repository, and the hand-off of their work to the
person's checkout (docs/decisions.md, "Worktree sessions").

`layout` says where worktrees go and what a worktree session's sandbox binds; `files` reads and
writes the files that move between a checkout and a worktree without following links; `gitops`
runs the git each step needs through the host's one git module; `journal` makes every step that
changes the person's repository survive a kill -9 (finished or rolled back at the next start);
`making` adds a worktree, `handoff` brings its work home (apply, remove, adopt; `merging`
merges); `offers` answers what New session offers and a workspace's settings; `setup` runs a
workspace's setup command before the first turn; `rows` keeps the known worktrees; `service` is
`engine.worktrees`.
"""
