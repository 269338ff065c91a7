#!/bin/sh
# Install (or, with --uninstall, remove) memoir-desktop for the current user, from the
# unpacked tarball, without root:
#   app      ~/.local/opt/memoir-desktop/         (the PyInstaller one-folder bundle)
#   command  ~/.local/bin/memoir-desktop          (a symlink)
#   menu     ~/.local/share/applications/memoir-desktop.desktop, icons in ~/.local/share/icons
# Your journal is not touched either way: it lives in ~/.local/share/memoir-desktop.
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
OPT="$HOME/.local/opt/memoir-desktop"
BIN="$HOME/.local/bin"

if [ "${1:-}" = "--uninstall" ]; then
  rm -rf "$OPT" "$BIN/memoir-desktop" "$DATA/applications/memoir-desktop.desktop"
  find "$DATA/icons/hicolor" -name 'memoir-desktop.*' -delete 2>/dev/null || true
  echo "memoir-desktop removed (your journal in $DATA/memoir-desktop is kept)"
  exit 0
fi

mkdir -p "$HOME/.local/opt" "$BIN" "$DATA/applications"
rm -rf "$OPT"
cp -a "$HERE/memoir-desktop" "$OPT"
ln -sf "$OPT/memoir-desktop" "$BIN/memoir-desktop"
cp -a "$HERE/share/icons/." "$DATA/icons/"
# Menu entry with the full path: ~/.local/bin is not on every desktop session's PATH.
sed -e "s|^Exec=.*|Exec=$OPT/memoir-desktop|" -e "s|^TryExec=.*|TryExec=$OPT/memoir-desktop|" \
  "$HERE/share/applications/memoir-desktop.desktop" >"$DATA/applications/memoir-desktop.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$DATA/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true
echo "memoir-desktop installed: run 'memoir-desktop' or find memoir in the applications menu"
