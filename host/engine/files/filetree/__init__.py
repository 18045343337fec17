"""The Files pane's host side: one folder level of a session's folder with its ignore rules and
git marks (`listing`, `marks`), a file read for the viewer (`reading`), and the folder's watch
(`watching`): docs/decisions.md, "Terminal and files"."""
