"""Everything the host does with git (docs/decisions.md, "The host's git"): find a repository and
its branch from the files (`layout`), tell whether its configuration names programs
(`config_scan`), run git — inside the sandbox on a person's repository, with only our own
configuration on the app's shadow repositories (`runner`, the one module that starts git) — and
the header's status (`status`)."""
