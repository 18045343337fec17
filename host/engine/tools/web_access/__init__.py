"""The web for the agent: web_fetch (the host fetches a page, checked against private addresses)
and web_search (the person's configured provider). docs/decisions.md, "Web fetch and private
addresses"; docs/threat-model.md, "web_fetch and private addresses"."""
