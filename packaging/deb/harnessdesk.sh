#!/bin/sh
# /usr/bin/harnessdesk: start the bundle in /opt/harnessdesk (the window is the system's
# WebKitGTK, which needs no sandbox flag, as root or not).
exec /opt/harnessdesk/harnessdesk "$@"
