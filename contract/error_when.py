"""When each error code is answered: one sentence per code of `ERROR_DETAILS`, the third column of
the error table that `python -m contract --docs` writes into docs/architecture.md ("Errors").

A new code needs its sentence here; `contract.docgen` refuses to render without it.
"""

from __future__ import annotations

ERROR_WHEN: dict[str, str] = {
    "bad-request": "envelope or payload fails validation, path/method mismatch (carrier)",
    "internal": (
        "a stream failed on the host; a subscriber fell behind (carrier); an action on this machine"
        " failed (opening settings.json); `{goalCode}` only for a goal-domain rejection (see "
        '"Goals")'
    ),
    "cancelled": "the caller went away, or the work was cancelled (carrier)",
    "session-not-found": "unknown session",
    "agent-busy": "the agent refused the input (closing, queue full)",
    "model-unavailable": "no route serves that provider now, or the model takes no such effort",
    "invalid-time-zone": "`clientTimeZone` is not `UTC` or an IANA Area/Location name",
    "title-invalid": "a rename normalises to nothing visible",
    "fork-unavailable": "no completed turn at or after the anchor",
    "queue-item-not-found": "queue edit of an item already claimed or gone",
    "steer-unavailable": "no turn is running to steer into",
    "attachment-error": (
        "image too big, bad media type, or not referenced by the session; an `attach` path of"
        " `session.prompt` that is not inside the session's folder (symlinks resolved), is missing,"
        " or is not a regular file or folder; an `attach` MCP resource whose server is not ready and"
        " allowed for the session, or whose `resources/read` fails or times out (nothing is queued)"
    ),
    "session-conflict": "a preallocated id exists with another cwd",
    "session-exists": (
        "`session.import` of a session already here (`sessionId`: the one to open instead); nothing"
        " is written — `asCopy: true` imports it under new ids"
    ),
    "settings-conflict": "`expectedRevision` is stale; nothing written",
    "settings-not-exposed": "a write to a namespace outside the exposed set (registered or not: same answer)",
    "settings-rejected": (
        "bad namespace name, a section that does not validate, read-only or unwritable file, or "
        "settings.json cannot be used (the message names the problem; nothing is written until it "
        "is fixed or reset)"
    ),
    "credential-rejected": (
        "a blank value, a ref the process environment supplies, the file cannot be saved, or "
        "credentials.json cannot be used (as above)"
    ),
    "storage-error": (
        "the database cannot be written or read (`reason`: `disk-full`, `corrupt`, `busy`, "
        "`timeout`, `io`, …); new prompts are refused while writes fail"
    ),
    "workspace-invalid-path": "a workspace's folder is not an existing directory",
    "workspace-not-found": "unknown workspace id",
    "workspace-name-conflict": "another workspace already has that name",
    "workspace-move-invalid": (
        "`workspace.insertSessionBefore` with a session or anchor that is not in that workspace"
    ),
    "workspace-attach-failed": (
        "`session.create` in a workspace made the session but could not add it to the workspace"
    ),
    "directory-picker-unavailable": (
        "a folder picker this host does not serve (`capability`: the one it does, `native` or `browse`)"
    ),
    "directory-unreadable": "`host.listDirectory` of a path that is not absolute or cannot be read",
    "directory-exists": "`host.createDirectory` of a folder that exists",
    "directory-create-failed": (
        "`host.createDirectory` with a parent that is not absolute, a name that is not one folder "
        "name, or an OS failure"
    ),
    "agent-preset-not-found": "an unknown preset id (`available` lists the ids that exist)",
    "agent-preset-invalid": "a broken preset; a new id that is malformed or taken",
    "agent-preset-read-only": "removing or opening a shipped preset",
    "agent-preset-locked": "`select` on a session that has run a turn (`agentPreset`: the one it runs)",
    "agent-preset-conflict": "a preallocated id exists with another preset",
    "model-discovery-failed": "every `llm.discoverModels` failure (the adapter's words, never the key)",
    "model-download-not-found": (
        "`llm.pauseDownload/resumeDownload/cancelDownload` of a download that is gone"
    ),
    "model-download-refused": (
        "`llm.downloadModel` that cannot start: unknown catalogue entry, already installed or "
        "downloading, no such file, not enough free space"
    ),
    "local-model-not-found": "`llm.removeModel` of a model that is not installed",
    "job-not-found": "no background job of that id in that session (jobs end with the app)",
    "revert-unavailable": (
        "`files.revertTurn` of a turn that changed no file, was already reverted, or while the agent works;"
        " `unrecorded`: the turn's steps ran without snapshots (why), so what they changed is unknown"
    ),
    "rewind-unavailable": (
        "`session.rewind` to a seq that is not a person's message opening a turn, one already rewound,"
        " or while the agent works (nothing changed)"
    ),
    "revert-conflict": (
        "a file to put back was changed since (`changed` outside the app, `later-turn`) or has no "
        "checkpoint (`not-saved`); `files.revertFile/revertHunk`: the file or hunk is not what the "
        "view showed (`stale`); nothing was written"
    ),
    "subagent-parent-unavailable": (
        "`subagent.prompt`: the parent cannot run an agent here (the host is closing)"
    ),
    "subagent-not-found": "the child is not a subagent, or not of that `mode`",
    "subagent-catalog-diagnostic": (
        "the child's log has no readable `subagent/descriptor` (`corrupt`, `unsupported`, `unavailable`)"
    ),
    "subagent-not-resumable": "the child's session cannot be loaded",
    "subagent-unauthorized": "the child belongs to another parent",
    "subagent-delivery-unavailable": "the child cannot take input now (closing, queue full)",
    "mcp-server-not-found": (
        "no MCP server of that name for the session's (or workspace's) project, or `mcp.approve` of"
        " a server that needs no approval"
    ),
    "mcp-server-changed": (
        "`mcp.approve` with a digest the entry no longer has (the person saw another command); also"
        " `hooks.approve` when the hook file changed (name `hooks:.harnessdesk/hooks.json`)"
    ),
    "command-error": (
        "a known slash command reported a usage or state error (its own text); reserved for a slash"
        " path in `session.prompt`"
    ),
    "unknown-command": "a leading-`/` prompt named no registered command; reserved like `command-error`",
    "privilege-required": (
        "a change that lets more run without asking (`/permission` to a looser preset, "
        "`agentPreset.select` of a preset that caps less) from a caller the fence refuses "
        "privileged methods; nothing changed"
    ),
    "archive-invalid": (
        "`session.import` of a file that is not a session archive, is damaged or too large (the"
        " reader's one line)"
    ),
    "worktree-conflict": (
        "`worktree.apply`: files the worktree changed were changed in the checkout too (`paths`); "
        "`worktree.merge`: the branches change the same lines (`paths`); nothing was written"
    ),
    "worktree-dirty": (
        "`worktree.merge` with uncommitted changes in the worktree or the checkout (`where`); "
        "`worktree.remove` of a worktree with uncommitted changes without `force`"
    ),
    "worktree-unmerged": (
        "`worktree.remove` deleting a branch with commits its base does not have, without `force`"
    ),
    "not-a-repository": (
        "`session.create` with `worktree`, `worktree.options` or `worktree.adopt` for a folder "
        "outside a git repository; `worktree.*` on a session that works in no worktree; `git.*` on"
        " a session whose folder is in no git repository"
    ),
    "worktree-untrusted": (
        "a worktree operation on a repository whose git configuration names programs, before the "
        "folder is trusted (`findings`), or on a machine without a sandbox"
    ),
    "worktree-failed": (
        "git refused or failed (a branch checked out elsewhere, no identity for a merge commit, a "
        "checkout on another branch than the base); nothing was changed"
    ),
    "remote-host-not-found": "a `remote.*` call, or a `hostId`, naming no remote host added here",
    "remote-unavailable": (
        "a call for a remote host (its `hostId`, or a session made there) while it is not connected;"
        " `state` says what it is instead"
    ),
    "remote-connect-failed": (
        "`remote.connect` could not reach or log in to the host (`ssh`), bring or install the server"
        " there (`bootstrap`: no suitable Python, another architecture — the message says which), or"
        " start it (`server`)"
    ),
    "host-key-unknown": (
        "`remote.connect` to a host whose key is not in known_hosts: `fingerprint` and `keyType` to"
        " show before `remote.trustHostKey`; nothing was recorded"
    ),
    "host-key-changed": (
        "the host presents another key than known_hosts records for it (never accepted by the app);"
        " `remote.trustHostKey` of a fingerprint the host no longer presents"
    ),
    "terminal-not-found": "`terminal.*` naming a terminal that was closed (or of an earlier host run)",
    "outside-folder": (
        "`files.tree` / `files.read` of a path that resolves outside the session's folder (`..`, a"
        " symlink leading out)"
    ),
    "not-a-file": "`files.read` of a folder, a pipe, a device or a socket",
    "too-large": (
        "`files.read` of a file over 10 MB without a range, or of a range whose text exceeds 1 MB"
        " (a whole file up to 10 MB is read at once)"
    ),
    # the review pane (docs/decisions/review-pane.md)
    "stale-diff": (
        "`git.stage` / `git.unstage` / `git.discard` naming a hunk or a file that is not what git shows"
        " now, or `git.undoDiscard` of a file changed since: nothing was written"
    ),
    "repository-untrusted": (
        "`git.stage` / `git.unstage` / `git.discard` in a repository whose configuration names programs"
        " while its folder is not trusted (`findings` says what)"
    ),
    # commit, log, push, pull request (docs/decisions/commit-and-push.md)
    "nothing-staged": "`git.draftMessage` or `git.commit` (without `amend`) while nothing is staged",
    "git-identity-missing": (
        "`git.commit` when git knows no `user.name` / `user.email` for the person (the host never"
        " invents one); the message says how to set them"
    ),
    "push-rejected": (
        "`git.push` refused by the remote (it has commits the branch lacks, or a hook there refused);"
        " git's output in `output`"
    ),
    "no-remote": (
        "`git.push` in a repository with no remote (or several and no upstream); `git.pullRequest`"
        " before the branch was pushed or for a remote that is no hosting site"
    ),
    "auth-failed": (
        "`git.push` whose remote did not accept the person's ssh key or credential helper (no prompt"
        " is ever shown); git's output in `output`"
    ),
    "git-failed": (
        "git or `gh` failed otherwise: a hook refused the commit, a timeout, `gh pr create` failed;"
        " their output in `output`"
    ),
}
