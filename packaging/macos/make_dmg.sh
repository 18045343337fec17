#!/usr/bin/env bash
# macOS: wrap dist/HarnessDesk.app (from `python3 packaging/build.py`) into a drag-to-install
# disk image, dist/HarnessDesk-VERSION.dmg, with hdiutil. Optional signing and notarisation:
#   CODESIGN_IDENTITY="Developer ID Application: …"  sign the .app (hardened runtime) and the dmg
#   NOTARY_PROFILE=<keychain profile of `xcrun notarytool store-credentials`>  notarise + staple
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ "$(uname -s)" == "Darwin" ]] || { echo "make_dmg.sh runs on macOS (hdiutil)" >&2; exit 2; }

app=dist/HarnessDesk.app
[[ -d "$app" ]] || { echo "no $app: run python3 packaging/build.py first" >&2; exit 2; }
version=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
dmg="dist/HarnessDesk-$version.dmg"

if [[ -n "${CODESIGN_IDENTITY:-}" ]]; then
  codesign --deep --force --options runtime --timestamp \
    --entitlements packaging/macos/entitlements.plist --sign "$CODESIGN_IDENTITY" "$app"
  codesign --verify --deep --strict "$app"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -R "$app" "$stage/"
ln -s /Applications "$stage/Applications"
rm -f "$dmg"
hdiutil create -volname "HarnessDesk $version" -srcfolder "$stage" -fs HFS+ -format UDZO -ov "$dmg"

if [[ -n "${CODESIGN_IDENTITY:-}" ]]; then
  codesign --force --timestamp --sign "$CODESIGN_IDENTITY" "$dmg"
fi
if [[ -n "${NOTARY_PROFILE:-}" ]]; then
  xcrun notarytool submit "$dmg" --keychain-profile "$NOTARY_PROFILE" --wait
  xcrun stapler staple "$dmg"
fi
echo "$dmg ($(du -h "$dmg" | cut -f1))"
