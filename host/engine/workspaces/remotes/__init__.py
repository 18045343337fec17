"""Remote hosts over SSH (docs/decisions.md, "Remote hosts"): the system's OpenSSH client, the
server this host brings to the remote (its own wheels), the remote server's launch and the
Unix-socket forward, one supervisor per host. The relay of methods and frames is not here: it is
a carrier concern (`host/relay/`)."""
