#!/usr/bin/env bash
# skillc for machines without a Rust toolchain: a statically linked Linux binary in a release
# archive (with its man page and bash, zsh and fish completions, generated from the
# command-line definitions by clap's own crates) and a .deb holding the same files.
#
# Usage: scripts/release.sh [OUT_DIR]      (default: target/dist)
# Writes OUT_DIR/skillc-<version>-x86_64-linux.tar.gz and OUT_DIR/skillc_<version>_amd64.deb.
# `--verify` after OUT_DIR installs both on clean paths and runs the CI recipe with each.
# SKILLC_RELEASE_PROFILE=dev builds the same archive and .deb unoptimised: what CI checks (the
# packaging, the static link, the installed command), in 3 minutes where `release` takes 8 on
# two cores. A release to hand out is built with the default, `release`.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-target/dist}")"
verify="${2:-}"
version="$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "skillc-compiler"))')"
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
triple=x86_64-unknown-linux-gnu
profile="${SKILLC_RELEASE_PROFILE:-release}"

# Static: glibc linked in (crt-static), so the binary runs on any x86_64 Linux. Built for an
# explicit target so that the flag does not reach build scripts and proc macros.
RUSTFLAGS="-C target-feature=+crt-static" \
  cargo build -q --profile "$profile" --locked --target "$triple" -p skillc-compiler --bin skillc
# Cargo's folder of the `dev` profile is `debug`.
bin="$target_dir/$triple/${profile/#dev/debug}/skillc"
if ! ldd "$bin" 2>&1 | grep -q "statically linked\|not a dynamic executable"; then
  echo "release: $bin is dynamically linked:" >&2
  ldd "$bin" >&2
  exit 1
fi

name="skillc-$version-x86_64-linux"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/completions" "$out"
cp "$bin" "$root/skillc"
"$bin" generate man > "$root/skillc.1"
"$bin" generate bash > "$root/completions/skillc.bash"
"$bin" generate zsh > "$root/completions/_skillc"
"$bin" generate fish > "$root/completions/skillc.fish"
cp compiler/README.md "$root/README.md"
tar -C "$stage" --owner=0 --group=0 --sort=name -czf "$out/$name.tar.gz" "$name"
echo "release: $out/$name.tar.gz"

# The .deb: the same files where Debian puts them.
deb="$stage/deb"
install -D -m 755 "$root/skillc" "$deb/usr/bin/skillc"
install -D -m 644 "$root/skillc.1" "$deb/usr/share/man/man1/skillc.1"
gzip -9n "$deb/usr/share/man/man1/skillc.1"
install -D -m 644 "$root/completions/skillc.bash" "$deb/usr/share/bash-completion/completions/skillc"
install -D -m 644 "$root/completions/_skillc" "$deb/usr/share/zsh/vendor-completions/_skillc"
install -D -m 644 "$root/completions/skillc.fish" "$deb/usr/share/fish/vendor_completions.d/skillc.fish"
mkdir -p "$deb/DEBIAN"
cat > "$deb/DEBIAN/control" <<EOF
Package: skillc
Version: $version
Architecture: amd64
Maintainer: skillc maintainers <skillc@users.noreply.invalid>
Section: devel
Priority: optional
Installed-Size: $(du -sk "$deb/usr" | cut -f1)
Description: build-time compiler for AI-agent skills
 Checks a workspace of skill folders (SKILL.md with YAML frontmatter) and compiles it into one
 SQLite artifact with per-client, per-locale and per-tier catalogs and prompts.
EOF
deb_file="$out/skillc_${version}_amd64.deb"
dpkg-deb --root-owner-group --build "$deb" "$deb_file" >/dev/null
echo "release: $deb_file"

if [ "$verify" != "--verify" ]; then
  exit 0
fi
# Each installed on a clean path, then the CI recipe run with it on the sample.
for kind in archive deb; do
  prefix="$stage/installed-$kind"
  mkdir -p "$prefix"
  case $kind in
    archive) tar -C "$prefix" -xzf "$out/$name.tar.gz" && skillc="$prefix/$name/skillc" ;;
    deb) dpkg-deb -x "$deb_file" "$prefix" && skillc="$prefix/usr/bin/skillc" ;;
  esac
  env -i PATH=/usr/bin:/bin HOME="$stage" "$skillc" --version
  ci="$stage/ci-$kind"
  env -i PATH=/usr/bin:/bin HOME="$stage" SKILLC="$skillc" GITHUB_STEP_SUMMARY="$ci/summary.md" \
    bash docs/ci-recipe.sh skills "$ci" >/dev/null 2>&1
  grep -q '"release": "' <("$skillc" catalog "$ci/skills.db" --format json)
  echo "release: the $kind's skillc ran the CI recipe on skills/"
done
bash -n "$stage/$name/completions/skillc.bash" 2>/dev/null || bash -c "source '$prefix/usr/share/bash-completion/completions/skillc' && complete -p skillc" >/dev/null
grep -q '^\.TH skillc 1' "$stage/installed-archive/$name/skillc.1"
echo "release: man page and completions in place"
