"""What docs/ derives from the code and from its own decision records, written by a tool so that it
cannot drift: `python -m docs_tools` writes it, `python -m docs_tools --check` fails when it is stale
(tests/test_docs.py runs the same checks). A development tool: nothing in the product imports it."""
