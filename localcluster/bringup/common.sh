# shared settings for up.sh / down.sh / measure.sh (sourced)
S=${SIMIAN_LOCAL_STATE:-/var/lib/simian-local}     # persistent-ish state (certs, etcd, containerd root, kubelet root)
R=${SIMIAN_LOCAL_RUN:-/run/simian-local}           # sockets, pid files, recorded host state
BIN=${SIMIAN_K8S_BIN:-/var/cache/simian/k8s-v1.36.3/bin}
KUBECTL=${KUBECTL:-/work/main/.venv/bin/kubectl}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOCK=$R/containerd.sock
BR=simian0                 # our own bridge (pre-created so it can carry the node IP)
NODE_IP=10.244.0.1
POD_CIDR=10.244.0.0/24
SVC_CIDR=10.96.0.0/24
DNS_IP=10.96.0.10
NODE_NAME=$(hostname)      # must resolve to 127.0.0.1 in /etc/hosts: apiserver->kubelet uses Hostname
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables net.ipv4.conf.all.route_localnet kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.netfilter.nf_conntrack_max net.netfilter.nf_conntrack_tcp_timeout_established net.netfilter.nf_conntrack_tcp_timeout_close_wait"
export KUBECONFIG=$S/kubeconfig/admin.kubeconfig
ts() { date +%s.%N; }
log() { echo "[$(date +%T.%3N)] $*"; }
