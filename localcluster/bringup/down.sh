#!/usr/bin/env bash
# Stop everything up.sh started and leave the host as found (also after a SIGKILL of up.sh).
set -uo pipefail
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || { echo "down.sh: must run as root" >&2; exit 2; }

killpid() { # name pid
  local n=$1 p=$2
  kill -0 "$p" 2>/dev/null || return 0
  kill -TERM "$p" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$p" 2>/dev/null || { log "stopped $n ($p)"; return 0; }; sleep 0.25; done
  kill -KILL "$p" 2>/dev/null; log "killed $n ($p)"
}
# 1. Kubernetes components: TERM all at once (pid files; each verified to be our binary), then wait/KILL
comp=()
for n in kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver etcd; do
  f=$R/pids/$n.pid; [ -f "$f" ] || continue; p=$(cat "$f")
  if [ -r "/proc/$p/cmdline" ] && tr '\0' ' ' < "/proc/$p/cmdline" | grep -q "$BIN/$n"; then comp+=("$n:$p"); kill -TERM "$p" 2>/dev/null; fi
done
for x in "${comp[@]}"; do killpid "${x%%:*}" "${x##*:}"; done
# 2. every process in a pod cgroup (containers, pause), then the shims of OUR containerd socket, then containerd
cg_pids() { for c in /sys/fs/cgroup/*/kubepods; do [ -d "$c" ] && find "$c" -name cgroup.procs -exec cat {} + 2>/dev/null; done | sort -un; }
for _ in 1 2 3; do
  ps=$(cg_pids); [ -z "$ps" ] && break
  log "killing pod processes: $(echo $ps)"; kill -KILL $ps 2>/dev/null; sleep 0.5
done
shims=$(for d in /proc/[0-9]*; do c=$(tr '\0' ' ' 2>/dev/null < "$d/cmdline") || continue
  case "$c" in *containerd-shim*"-address $SOCK "*) echo "${d#/proc/}";; esac; done)
for p in $shims; do killpid shim "$p"; done
f=$R/pids/containerd.pid
if [ -f "$f" ]; then p=$(cat "$f"); killpid containerd "$p"; fi
for d in /proc/[0-9]*; do c=$(tr '\0' ' ' 2>/dev/null < "$d/cmdline") || continue
  case "$c" in "containerd --config $S/containerd/config.toml"*) killpid containerd "${d#/proc/}";; esac; done

# 3. mounts under our dirs (deepest first), CNI network namespaces
unmount_under() {
  local pat=$1
  for _ in 1 2 3; do
    mapfile -t ms < <(awk '{print $5}' /proc/self/mountinfo | sed 's/\\040/ /g' | grep -E "$pat" | awk '{print length, $0}' | sort -rn | cut -d' ' -f2-)
    [ ${#ms[@]} -eq 0 ] && return 0
    for m in "${ms[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  done
}
unmount_under "^($S|$R|/run/containerd|/var/lib/kubelet)(/|$)"
for ns in /run/netns/cni-*; do
  [ -e "$ns" ] || continue
  grep -qx "$(basename "$ns")" "$R/netns.before" 2>/dev/null && continue
  umount "$ns" 2>/dev/null || umount -l "$ns" 2>/dev/null; rm -f "$ns"
done
unmount_under "^/run/netns/cni-"

# 4. links: our bridge and any veth still attached to it
for v in $(ip -o link show master "$BR" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do ip link del "$v" 2>/dev/null; done
ip link del "$BR" 2>/dev/null && log "deleted bridge $BR"

# 5. iptables/ip6tables: jumps from built-in chains, then KUBE-*, CNI-*, SIMIAN-* chains; kube-proxy nft tables
for ipt in iptables ip6tables; do
  for t in filter nat mangle raw; do
    $ipt -t $t -S 2>/dev/null | grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j (KUBE|CNI|SIMIAN)-' | sed 's/^-A/-D/' |
      while read -r rule; do eval "$ipt -t $t $rule" 2>/dev/null; done
    chains=$($ipt -t $t -S 2>/dev/null | awk '$1=="-N" && $2 ~ /^(KUBE|CNI|SIMIAN)-/ {print $2}')
    for c in $chains; do $ipt -t $t -F "$c" 2>/dev/null; done
    for c in $chains; do $ipt -t $t -X "$c" 2>/dev/null; done
  done
done
for fam in ip ip6; do nft delete table $fam kube-proxy 2>/dev/null && log "deleted nft table $fam kube-proxy"; done
# iptables-nft leaves empty tables behind: drop those that did not exist before start and hold no rule
if [ -f "$R/nft.tables.before" ]; then
  nft list tables 2>/dev/null | while read -r _ fam tbl; do
    grep -qx "table $fam $tbl" "$R/nft.tables.before" && continue
    nft list table "$fam" "$tbl" 2>/dev/null | grep -vE '^\s*(table|chain|type|\}|$)' | grep -q . && continue
    nft delete table "$fam" "$tbl" && log "deleted empty nft table $fam $tbl"
  done
fi

# 6. cgroups created by the kubelet (cgroupfs driver: /kubepods in every v1 hierarchy)
for c in /sys/fs/cgroup/*/kubepods; do [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null; done

# 7. sysctls as recorded before start
if [ -f "$R/sysctl.before" ]; then
  while IFS='=' read -r k v; do
    cur=$(sysctl -n "$k" 2>/dev/null)
    if [ "$cur" != "$v" ]; then sysctl -qw "$k=$v" && log "restored $k: $cur -> $v"; fi
  done < "$R/sysctl.before"
fi

# 8. files: our state, and what containerd/kubelet create outside it unless it was there before
for p in /run/containerd /var/lib/kubelet /var/log/containers /var/log/pods /var/lib/cni /opt/containerd; do
  [ -e "$p" ] || continue
  grep -qx "$p" "$R/preexist" 2>/dev/null && continue
  rm -rf "$p" && log "removed $p"
done
[ -d /var/log/containers ] && find /var/log/containers -xtype l -delete 2>/dev/null
if ! grep -qx /run/netns "$R/preexist" 2>/dev/null; then rmdir /run/netns 2>/dev/null && log "removed empty /run/netns"; fi
rm -rf "$S" "$R"

# 9. verify
left=0
for d in /proc/[0-9]*; do c=$(tr '\0' ' ' 2>/dev/null < "$d/cmdline") || continue
  case "$c" in *"$BIN/"*|containerd\ --config*|*containerd-shim*|/coredns*|/pause*) echo "LEFT process ${d#/proc/}: $c"; left=1;; esac; done
grep -E " ($S|$R|/run/containerd|/var/lib/kubelet|/run/netns/cni-)" /proc/self/mountinfo && left=1
ip -o link | grep -E "$BR|veth|cni0" && left=1
for ipt in iptables ip6tables; do for t in filter nat mangle raw; do
  $ipt -t $t -S 2>/dev/null | grep -E '(KUBE|CNI|SIMIAN)-' && left=1; done; done
ls -d /sys/fs/cgroup/*/kubepods 2>/dev/null && left=1
ls -d /run/containerd /var/lib/kubelet /var/lib/cni "$S" "$R" 2>/dev/null && left=1
[ $left = 0 ] && log "down: nothing left" || log "down: LEFTOVERS above"
exit $left
