#!/usr/bin/env bash
# Builds Skill Studio's installable packages with Tauri's bundler (the `tauri` CLI pinned in
# studio-ui/package.json, from the npm registry). On Linux: a .deb under
# target/release/bundle/deb/, depending on webkit2gtk 4.1 and gtk 3, with a desktop entry and
# icons at 32, 64, 128, 256 (128@2x) and 512 pixels. The same configuration (tauri.conf.json)
# builds .msi/.exe installers on Windows and .app/.dmg on macOS; AppImage is left out, its
# bundler downloads tools while it builds.
#
# Usage: bash scripts/package.sh [--debug] [--verify]
#   --debug   bundles the debug build (under target/debug/bundle/) instead of the release
#             build: the same packaging, without the 15 minutes an optimised studio takes on
#             two cores. scripts/test.sh uses it; releases never do.
#   --verify  also unpacks the .deb into a throwaway folder and checks what it holds
#             (control fields, binary, desktop entry, icons); scripts/test.sh then starts the
#             unpacked binary under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
if [ "${1:-}" = "--debug" ]; then
  profile=debug
  shift
fi

# scripts/test.sh ran setup already (SKILLC_SETUP_DONE); running it again would reinstall
# the content-safety peer (700 MB) that a run short of disk removed once used.
[ -n "${SKILLC_SETUP_DONE:-}" ] || bash scripts/setup.sh

case "$(uname -s)" in
  Linux) bundles=deb ;;
  Darwin) bundles=app,dmg ;;
  MINGW* | MSYS* | CYGWIN*) bundles=msi,nsis ;;
  *) echo "package: no installer format for $(uname -s)" >&2; exit 2 ;;
esac

# The frontend was built by setup.sh; the CLI compiles the studio in release mode and bundles
# it (it refuses npm packages and a Rust crate of different minor versions: keep
# @tauri-apps/api on tauri's minor).
echo "package: building the studio ($profile) and its ${bundles} package(s)"
flags=()
if [ "$profile" = debug ]; then flags=(--debug); fi
studio-ui/node_modules/.bin/tauri build "${flags[@]}" --bundles "$bundles" --ci
bundle_dir="target/$profile/bundle"

if [ "${1:-}" != "--verify" ]; then
  ls "$bundle_dir"/*/
  exit 0
fi

deb=$(ls "$bundle_dir"/deb/*.deb | head -n 1)
echo "package: checking $deb"
dpkg-deb --field "$deb" Package Version Architecture Depends
depends=$(dpkg-deb --field "$deb" Depends)
for need in libwebkit2gtk-4.1-0 libgtk-3-0; do
  case "$depends" in
    *"$need"*) ;;
    *) echo "package: the .deb does not depend on $need (Depends: $depends)" >&2; exit 1 ;;
  esac
done
root=$(mktemp -d)
dpkg-deb -x "$deb" "$root"
for f in usr/bin/skill-studio usr/share/applications/*.desktop \
  usr/share/icons/hicolor/{32x32,64x64,128x128,256x256@2,512x512}/apps/skill-studio.png; do
  # shellcheck disable=SC2086
  if ! ls "$root"/$f >/dev/null 2>&1; then
    echo "package: the .deb lacks $f; it holds:" >&2
    (cd "$root" && find . -type f) >&2
    exit 1
  fi
done
grep -qx 'Exec=skill-studio' "$root"/usr/share/applications/*.desktop
grep -qx 'Icon=skill-studio' "$root"/usr/share/applications/*.desktop
echo "package: ok, unpacked into $root"
echo "$root" > "$bundle_dir/deb/unpacked-root"
