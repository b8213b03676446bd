#!/usr/bin/env bash
# Build the binaries of the local single-node cluster from Go modules:
#   kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet
#   (k8s.io/kubernetes, ./go.mod), etcd (./etcd/go.mod), coredns (./coredns/go.mod)
#
# Output: ${SIMIAN_CACHE:-/var/cache/simian}/k8s-<kubernetes version>/bin/<name>
# GOMODCACHE and GOCACHE live under ${SIMIAN_CACHE}/go/{mod,build}, outside the clone.
# A binary whose stamp and `--version` output match the pinned versions is not rebuilt.
# Components are built one at a time (parallel links of Kubernetes binaries can run
# a machine out of memory). Run it at low priority on a shared machine:
#   nice -n 19 bash localcluster/build.sh
#
# Usage: build.sh [--bin-dir] [component ...]
#   --bin-dir   print the output directory and exit (builds nothing)
#   component   build only these (default: all seven)
# Environment: SIMIAN_CACHE (cache root), GOTOOLCHAIN (only go1.27.3 is approved,
#   and only when the go on PATH is older than the modules need; the script picks it
#   by itself in that case).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
APPROVED_TOOLCHAIN=go1.27.3
ALL=(kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet etcd coredns)

log() { printf '[build.sh %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# --- pinned versions, read from the go.mod files (the single source of truth) --------
req_version() { # <go.mod> <module path>
  awk -v m="$2" '($1 == "require" && $2 == m) { print $3; exit } ($1 == m && $2 ~ /^v/) { print $2; exit }' "$1"
}
go_line() { awk '$1 == "go" { print $2; exit }' "$1"; }

K8S_VERSION=$(req_version "$HERE/go.mod" k8s.io/kubernetes)
ETCD_VERSION=$(req_version "$HERE/etcd/go.mod" go.etcd.io/etcd/server/v3)
COREDNS_VERSION=$(req_version "$HERE/coredns/go.mod" github.com/coredns/coredns)
[[ -n $K8S_VERSION && -n $ETCD_VERSION && -n $COREDNS_VERSION ]] || die "cannot read pinned versions from $HERE/{,etcd/,coredns/}go.mod"

SIMIAN_CACHE=${SIMIAN_CACHE:-/var/cache/simian}
OUT="$SIMIAN_CACHE/k8s-$K8S_VERSION/bin"
LOGS="$SIMIAN_CACHE/k8s-$K8S_VERSION/logs"

if [[ ${1:-} == --bin-dir ]]; then echo "$OUT"; exit 0; fi

want=("$@")
[[ ${#want[@]} -gt 0 ]] || want=("${ALL[@]}")
for c in "${want[@]}"; do
  [[ " ${ALL[*]} " == *" $c "* ]] || die "unknown component '$c' (known: ${ALL[*]})"
done

command -v go >/dev/null || die "no 'go' on PATH"
mkdir -p "$OUT" "$LOGS" "$SIMIAN_CACHE/go/mod" "$SIMIAN_CACHE/go/build"
export GOMODCACHE="$SIMIAN_CACHE/go/mod"
export GOCACHE="$SIMIAN_CACHE/go/build"
export GOFLAGS="-mod=readonly -buildvcs=false"
export CGO_ENABLED=0 # upstream builds all five Kubernetes server binaries, etcd and CoreDNS static
export GOPROXY=${GOPROXY:-https://proxy.golang.org,direct}

# One build at a time per cache, also across concurrent invocations.
exec 9>"$SIMIAN_CACHE/k8s-$K8S_VERSION/.build.lock"
flock 9

# --- toolchain ------------------------------------------------------------------------
need=$(printf '%s\n' "$(go_line "$HERE/go.mod")" "$(go_line "$HERE/etcd/go.mod")" "$(go_line "$HERE/coredns/go.mod")" | sort -V | tail -1)
version_ge() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" == "$2" ]]; } # $1 >= $2
export GOTOOLCHAIN=local
have=$(go env GOVERSION); have=${have#go}
if version_ge "$have" "$need"; then
  log "go $have on PATH ($(command -v go)) satisfies the modules' 'go $need'"
elif version_ge "${APPROVED_TOOLCHAIN#go}" "$need"; then
  log "go $have on PATH is older than the modules' 'go $need': using GOTOOLCHAIN=$APPROVED_TOOLCHAIN (fetched through the Go module proxy)"
  export GOTOOLCHAIN=$APPROVED_TOOLCHAIN
  have=$(go env GOVERSION) || die "could not obtain $APPROVED_TOOLCHAIN"
  have=${have#go}
else
  die "go $have on PATH and the approved $APPROVED_TOOLCHAIN are both older than the modules' 'go $need': put a Go >= $need on PATH"
fi
GOVER="go$have"

# --- per-component facts ----------------------------------------------------------------
module_dir() { case $1 in etcd) echo "$HERE/etcd" ;; coredns) echo "$HERE/coredns" ;; *) echo "$HERE" ;; esac; }
pkg_of() { case $1 in etcd) echo go.etcd.io/etcd/server/v3 ;; coredns) echo github.com/coredns/coredns ;; *) echo "k8s.io/kubernetes/cmd/$1" ;; esac; }
version_of() { case $1 in etcd) echo "$ETCD_VERSION" ;; coredns) echo "$COREDNS_VERSION" ;; *) echo "$K8S_VERSION" ;; esac; }
version_cmd() { case $1 in coredns) echo -version ;; *) echo --version ;; esac; }
expected_version_line() {
  local v; v=$(version_of "$1")
  case $1 in etcd) echo "etcd Version: ${v#v}" ;; coredns) echo "CoreDNS-${v#v}" ;; *) echo "Kubernetes $v" ;; esac
}
# Release time and commit of a pinned module, from the proxy's .info in GOMODCACHE
# (reproducible build dates; the commit is empty where the proxy gives none).
info_file() { local m=$1 v=$2; echo "$GOMODCACHE/cache/download/${m}/@v/${v}.info"; }
release_time() { sed -n 's/.*"Time": *"\([^"]*\)".*/\1/p' "$(info_file "$1" "$2")" 2>/dev/null | sed 's/\.[0-9]*Z$/Z/' | head -1; }
release_commit() { sed -n 's/.*"Hash": *"\([0-9a-f]*\)".*/\1/p' "$(info_file "$1" "$2")" 2>/dev/null | head -1; }

tags_of() { case $1 in etcd | coredns) echo "" ;; *) echo "selinux,notest,grpcnotrace" ;; esac; } # upstream's release tags
ldflags_of() {
  local c=$1 v t h
  v=$(version_of "$c")
  case $c in
    etcd)
      h=$(release_commit go.etcd.io/etcd/server/v3 "$v")
      echo "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=${h:0:7}" ;;
    coredns)
      h=$(release_commit github.com/coredns/coredns "$v")
      echo "-s -w -X github.com/coredns/coredns/coremain.GitCommit=${h:0:7}" ;;
    *)
      t=$(release_time k8s.io/kubernetes "$v"); t=${t:-1970-01-01T00:00:00Z}
      local major minor rest=${v#v}; major=${rest%%.*}; rest=${rest#*.}; minor=${rest%%.*}
      local f="-s -w" p
      for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        f+=" -X $p.gitVersion=$v -X $p.gitMajor=$major -X $p.gitMinor=$minor"
        f+=" -X $p.gitTreeState=clean -X $p.gitCommit= -X $p.buildDate=$t"
      done
      echo "$f" ;;
  esac
}
stamp_of() { echo "$1 $(version_of "$1") $GOVER CGO_ENABLED=$CGO_ENABLED tags=$(tags_of "$1") recipe=2"; }

up_to_date() { # binary present, stamp matches, and the binary reports the pinned version
  local c=$1 bin="$OUT/$1"
  [[ -x $bin && -f "$OUT/.$c.stamp" ]] || return 1
  [[ "$(cat "$OUT/.$c.stamp")" == "$(stamp_of "$c")" ]] || return 1
  "$bin" "$(version_cmd "$c")" 2>&1 | grep -qF "$(expected_version_line "$c")"
}

declare -A downloaded=()
download_module() { # go mod download for one module dir, once per run
  local dir=$1 name t0 t1
  [[ -z ${downloaded[$dir]:-} ]] || return 0
  name=$(basename "$dir"); [[ $dir == "$HERE" ]] && name=k8s
  t0=$(date +%s.%N)
  log "downloading modules for localcluster${dir#"$HERE"}/go.mod ..."
  (cd "$dir" && go mod download) >"$LOGS/download-$name.log" 2>&1 \
    || { tail -20 "$LOGS/download-$name.log" >&2; die "go mod download failed in $dir (log: $LOGS/download-$name.log)"; }
  t1=$(date +%s.%N)
  downloaded[$dir]=1
  log "$(printf 'download %-28s %7s s' "localcluster${dir#"$HERE"}/go.mod" "$(elapsed "$t0" "$t1")")"
}

build_one() {
  local c=$1 dir pkg t0 t1 tmp rc=0
  dir=$(module_dir "$c"); pkg=$(pkg_of "$c")
  download_module "$dir"
  tmp="$OUT/.$c.tmp"
  rm -f "$tmp"
  log "building $c ($pkg@$(version_of "$c"), $GOVER, CGO_ENABLED=$CGO_ENABLED) ..."
  local -a timecmd=()
  [[ -x /usr/bin/time ]] && timecmd=(/usr/bin/time -f '%e s wall, %U s user, %S s sys, max RSS %M KB' -o "$LOGS/$c.time")
  t0=$(date +%s.%N)
  (cd "$dir" && "${timecmd[@]}" go build -trimpath -tags="$(tags_of "$c")" -ldflags="$(ldflags_of "$c")" -o "$tmp" "$pkg") \
    >"$LOGS/$c.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if [[ $rc -ne 0 ]]; then
    tail -30 "$LOGS/$c.log" >&2
    die "$c failed (exit $rc) after $(printf '%.1f' "$(elapsed "$t0" "$t1")") s; full log: $LOGS/$c.log"
  fi
  mv -f "$tmp" "$OUT/$c"
  stamp_of "$c" >"$OUT/.$c.stamp"
  local vline; vline=$("$OUT/$c" "$(version_cmd "$c")" 2>&1 | head -3 | tr '\n' ' ')
  echo "$vline" | grep -qF "$(expected_version_line "$c")" \
    || die "$c built but '$c $(version_cmd "$c")' printed: $vline (expected '$(expected_version_line "$c")')"
  log "$(printf 'built    %-28s %7s s  %s' "$c" "$(elapsed "$t0" "$t1")" "$( [[ -f $LOGS/$c.time ]] && tail -1 "$LOGS/$c.time")")"
}

T0=$(date +%s.%N)
built=0
for c in "${want[@]}"; do
  if up_to_date "$c"; then
    log "$(printf 'ok       %-28s (up to date: %s)' "$c" "$(expected_version_line "$c")")"
  else
    build_one "$c"
    built=$((built + 1))
  fi
done
T1=$(date +%s.%N)
log "$(printf 'total    %-28s %7s s (%d built, %d up to date)' "" "$(elapsed "$T0" "$T1")" "$built" "$((${#want[@]} - built))")"
if [[ $built -gt 0 ]]; then
  log "sizes: bin $(du -sh "$OUT" | cut -f1), GOMODCACHE $(du -sh "$GOMODCACHE/" | cut -f1), GOCACHE $(du -sh "$GOCACHE/" | cut -f1)"
fi
echo "$OUT"
