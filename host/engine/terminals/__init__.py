"""The Terminal pane's host side: the person's login shell in a real PTY per terminal tab,
its output fanned out as `terminal/output` frames with a bounded scrollback, and flow control
(docs/decisions.md, "Terminal and files").

- `shell`: which shell, in which environment, started how (below the supervisor, with the PTY
  as its controlling terminal).
- `scrollback`: the newest output bytes a terminal keeps for `terminal.attach`.
- `flow`: when to stop reading a shell (a client is too far behind) and when to go on.
- `terminal`: one terminal: its PTY, its output frames, its input, its end.
"""
