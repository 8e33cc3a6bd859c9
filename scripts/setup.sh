#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test everything here:
# the studio's system libraries (webkit, gtk), Xvfb and the WebDriver for its window tests,
# the reference validator `skills-ref` for the parity test, the MCP Python SDK (test client of
# `skillc mcp`), the Java runtime's build (sqlite-jdbc, Bouncy Castle, JUnit 4 and the Maven plugins, all
# from Debian, so that Maven builds it offline), minisign and PyCA's cryptography (signed
# artifacts), a registry server for `skillc push`/`pull` (docker-registry), and the npm packages of the studio's
# frontend and the TypeScript runtime. Idempotent: installs only what is missing. The compiler alone (`cargo build -p skillc-compiler`) needs none of this.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev librsvg2-dev
  libayatana-appindicator3-dev build-essential pkg-config libssl-dev
  xvfb webkit2gtk-driver imagemagick
  libxerial-sqlite-jdbc-java libbcprov-java junit4 libmaven-compiler-plugin-java libmaven-jar-plugin-java
  libmaven-resources-plugin-java libmaven-install-plugin-java libsurefire-java
  minisign python3-venv docker-registry
)
# The Java runtime needs a JDK and Maven (most machines here have both already).
command -v javac >/dev/null 2>&1 || apt_packages+=(default-jdk-headless)
command -v mvn >/dev/null 2>&1 || apt_packages+=(maven)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! python3 -c "import skills_ref" 2>/dev/null; then
  echo "setup: installing skills-ref (reference validator)"
  python3 -m pip install -q --disable-pip-version-check "skills-ref==0.1.1"
fi

# PyYAML: the MCP Skills extension test parses each served SKILL.md's frontmatter as a host would.
if ! python3 -c "import yaml" 2>/dev/null; then
  echo "setup: installing PyYAML (the MCP Skills extension test reads frontmatter with it)"
  python3 -m pip install -q --disable-pip-version-check "pyyaml==6.0.3"
fi
# The official MCP SDK for Python: the real client that drives `skillc mcp` in the tests.
if ! python3 -c "import mcp.client.stdio" 2>/dev/null; then
  echo "setup: installing the MCP Python SDK (test client of skillc mcp)"
  python3 -m pip install -q --disable-pip-version-check "mcp==2.3.0"
fi

# The Python runtime checks artifact signatures with PyCA's `cryptography` (Ed25519), imported
# only when it is given a public key.
if ! python3 -c "import cryptography.hazmat.primitives.asymmetric.ed25519" 2>/dev/null; then
  echo "setup: installing cryptography (the Python runtime's signature check)"
  python3 -m pip install -q --disable-pip-version-check "cryptography==48.0.0"
fi

# The BM25 baseline the routing quality table measures skillc route against.
if ! python3 -c "import rank_bm25" 2>/dev/null; then
  echo "setup: installing rank-bm25 (the routing quality baseline)"
  python3 -m pip install -q --disable-pip-version-check "rank-bm25==0.2.2"
fi

# The peer the content-safety corpus is measured against (tests/safety/compare.py), in a venv
# of its own: 107 packages, about 700 MB, static analyzers only (it runs with the network cut).
if [ ! -x .venv-peer/bin/skill-scanner ]; then
  echo "setup: installing cisco-ai-skill-scanner (the content-safety peer)"
  python3 -m venv .venv-peer
  .venv-peer/bin/pip install -q --disable-pip-version-check "cisco-ai-skill-scanner==2.3.2"
fi

# The WebDriver bridge for the studio's end-to-end tests (WebKitWebDriver comes from apt).
if ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
  echo "setup: installing tauri-driver"
  cargo install tauri-driver --locked --version 2.1.0 >/dev/null
fi

for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    rustup component add "$component"
  fi
done

# The studio's frontend (TypeScript, CodeMirror 6, bundled by Vite) from the committed lock
# file. Tauri embeds studio-ui/dist into the binary when it compiles, so this runs before any
# build of the studio (and before clippy, which compiles it too). Rollup comes as its WebAssembly
# build (package.json's `overrides`): its native packages for other platforms are not on every
# registry mirror, and a lock file missing them makes `npm ci` refuse to install.
if [ ! -d studio-ui/node_modules ] || [ studio-ui/package-lock.json -nt studio-ui/node_modules/.package-lock.json ]; then
  echo "setup: installing the studio's frontend packages (npm ci)"
  (cd studio-ui && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: building the studio's frontend (type check and bundle)"
(cd studio-ui && npm run --silent build >/dev/null)

# The TypeScript runtime (compiler/runtime/typescript): sql.js, SQLite compiled to WebAssembly,
# from the committed lock file; built (type-checked, .d.ts emitted) into dist/.
ts=compiler/runtime/typescript
if [ ! -d $ts/node_modules ] || [ $ts/package-lock.json -nt $ts/node_modules/.package-lock.json ]; then
  echo "setup: installing the TypeScript runtime's packages (npm ci)"
  (cd $ts && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: building the TypeScript runtime"
(cd $ts && npm run --silent build)
