# Source this file (bash): `. scripts/use-node24.sh`
#
# When the machine's `node` is not 22.15+ or 24 (what tai42 and its development tools
# admit together: README, Development), installs Node.js 24 LTS from the npm registry
# (package node-linux-<arch>, which ships the binary and its C headers) into a cache
# folder outside the repo, puts it first on PATH for the rest of the shell, and points
# npm_config_nodedir at its headers so native addons (better-sqlite3, built from source
# by node-gyp) build against it without downloading anything. Needs only the npm
# registry. A `node` that is already one of those is kept.
#
#   TAI_NODE_VERSION  version to install (default below)
#   TAI_NODE_HOME     where to install it (default $HOME/.cache/tai42-node<major>)

_tai_node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit((a === 22 && b >= 15) || a === 24 ? 0 : 1)' 2>/dev/null
}

_tai_use_node24() {
  local version="${TAI_NODE_VERSION:-24.22.3}"
  local arch
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "use-node24: no Node package for $(uname -m)" >&2; return 1 ;;
  esac
  local home="${TAI_NODE_HOME:-${HOME:-/root}/.cache/tai42-node${version%%.*}}"
  local pkg="$home/node_modules/node-linux-$arch"
  if [ ! -x "$pkg/bin/node" ] || [ "$("$pkg/bin/node" -p process.versions.node 2>/dev/null)" != "$version" ]; then
    echo "use-node24: installing Node.js $version (node-linux-$arch from the npm registry) into $home" >&2
    mkdir -p "$home"
    # npm runs here on the old node: that is fine, it only unpacks a package.
    npm install --prefix "$home" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "node-linux-$arch@$version" >&2 || return 1
  fi
  [ -f "$pkg/include/node/node.h" ] || { echo "use-node24: $pkg has no C headers" >&2; return 1; }
  export PATH="$pkg/bin:$PATH"
  hash -r
  export npm_config_nodedir="$pkg"
  echo "use-node24: using $(command -v node) $(node -v); npm_config_nodedir=$npm_config_nodedir" >&2
}

if _tai_node_ok; then
  echo "use-node24: $(command -v node) $(node -v) will do" >&2
else
  _tai_use_node24 || { echo "use-node24: could not install Node.js 24" >&2; return 1 2>/dev/null || exit 1; }
fi
unset -f _tai_node_ok _tai_use_node24
