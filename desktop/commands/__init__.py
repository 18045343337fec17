"""One module per `harnessdesk` command, each the whole of its command read top-down: its
arguments (`add_parser`, or `arguments` for the window on the main parser) and `run(args)`.

An entry calls down into the shared leaves (desktop/paths.py, desktop/instance.py,
desktop/hostopen.py, desktop/instance_relay.py, the window in desktop/app.py, ...) and never into
another entry; no leaf imports an entry (tests/test_desktop_entries.py). Entries are imported
while the command line is parsed, so the host, pydantic and GTK are imported inside `run`
(docs/decisions.md, "Performance and packaging"); desktop/cli.py dispatches to them.
"""
