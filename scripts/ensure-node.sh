# Sourced by ./run and .ci/run: puts a Node new enough for whsvc first on PATH.
# Uses the system node when it satisfies package.json's engines, otherwise
# installs Node 24 from the npm registry into .cache/node (ignored by git).
_whsvc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

_whsvc_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e '
    const [major, minor, patch] = process.versions.node.split(".").map(Number);
    const at = (a, b, c) => major > a || (major === a && (minor > b || (minor === b && patch >= c)));
    const ok = (major === 22 && at(22, 22, 2)) || (major === 24 && at(24, 15, 0)) || major >= 26;
    process.exit(ok ? 0 : 1);
  ' 2>/dev/null
}

if ! _whsvc_node_ok; then
  _whsvc_node_prefix="$_whsvc_root/.cache/node"
  export PATH="$_whsvc_node_prefix/node_modules/.bin:$PATH"
  if ! _whsvc_node_ok; then
    echo "whsvc: system node $(node --version 2>/dev/null || echo missing) is too old; installing Node 24 into .cache/node" >&2
    mkdir -p "$_whsvc_node_prefix"
    npm install --prefix "$_whsvc_node_prefix" --no-save --no-audit --no-fund --loglevel=error node@24 >&2
    hash -r
    if ! _whsvc_node_ok; then
      echo "whsvc: could not bring a new enough Node (need ^22.22.2, ^24.15.0 or >=26)" >&2
      return 1 2>/dev/null || exit 1
    fi
  fi
fi
unset -f _whsvc_node_ok
unset _whsvc_root _whsvc_node_prefix
