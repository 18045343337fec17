#!/bin/sh
# /usr/bin/harnessdesk: start the bundle in /opt/harnessdesk.
# QtWebEngine's Chromium sandbox cannot run as root (the page never loads), so it is turned off
# for root only; ordinary users keep the sandbox.
if [ "$(id -u)" = 0 ]; then
    case " ${QTWEBENGINE_CHROMIUM_FLAGS:-} " in
        *" --no-sandbox "*) ;;
        *) QTWEBENGINE_CHROMIUM_FLAGS="${QTWEBENGINE_CHROMIUM_FLAGS:+$QTWEBENGINE_CHROMIUM_FLAGS }--no-sandbox" ;;
    esac
    export QTWEBENGINE_CHROMIUM_FLAGS
fi
exec /opt/harnessdesk/harnessdesk "$@"
