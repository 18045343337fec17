"""The pages' Content-Security-Policy, shared by the loopback site and the desktop window.

A module of its own (no fence, no contract) so the window can read it while it starts without
importing the API's models (docs/decisions.md, "Performance and packaging").
"""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
