#!/usr/bin/env bash
# Feasibility bring-up of a real single-node Kubernetes v1.36.3 on 127.0.0.1 (root only).
# State: $S (/var/lib/simian-local) and $R (/run/simian-local). Undo with down.sh.
set -euo pipefail
source "$(dirname "$0")/common.sh"

[ "$(id -u)" = 0 ] || { echo "up.sh: must run as root" >&2; exit 2; }
[ "$(uname -s)" = Linux ] || { echo "up.sh: Linux only" >&2; exit 2; }
for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy coredns; do
  [ -x "$BIN/$b" ] || { echo "up.sh: missing $BIN/$b" >&2; exit 2; }
done
for b in containerd containerd-shim-runc-v2 runc ctr openssl iptables ip busybox gcc python3; do
  command -v $b >/dev/null || { echo "up.sh: missing $b (apt-get install containerd runc containernetworking-plugins iptables busybox gcc)" >&2; exit 2; }
done
[ -x /usr/lib/cni/bridge ] || { echo "up.sh: missing /usr/lib/cni/bridge (containernetworking-plugins)" >&2; exit 2; }
getent hosts "$NODE_NAME" | grep -q '^127\.' || { echo "up.sh: hostname $NODE_NAME must resolve to 127.x" >&2; exit 2; }

if [ -e "$R/up.started" ] || [ -e "$S" ]; then
  log "stale state found: running down.sh first"
  bash "$HERE/down.sh" || true
fi

T0=$(ts)
mkdir -p "$R/pids" "$S"/{pki,kubeconfig,logs,etcd,containerd/root,containerd/state,containerd/certs.d/docker.io,cni/net.d,cni/ipam,kubelet,manifests,coredns,images,pod-logs,volume-plugins}
chmod 700 "$S" "$R"
echo "$T0" > "$R/up.started"
mark() { echo "$1 $(ts)" >> "$S/logs/timeline"; log "$1 (+$(python3 -c "print(round($(ts)-$T0,1))")s)"; }

# ---- host state before start (restored by down.sh) ---------------------------------------
: > "$R/sysctl.before"
for k in $SYSCTLS; do v=$(sysctl -n "$k" 2>/dev/null) && echo "$k=$v" >> "$R/sysctl.before"; done
for p in /run/containerd /var/lib/kubelet /var/log/containers /var/log/pods /var/lib/cni /opt/containerd /run/netns /etc/cni; do
  [ -e "$p" ] && echo "$p" >> "$R/preexist" || true
done
touch "$R/preexist"
ls /run/netns 2>/dev/null > "$R/netns.before" || true
nft list tables 2>/dev/null > "$R/nft.tables.before" || true
mark "host state recorded"

# ---- PKI -------------------------------------------------------------------------------
P=$S/pki
cd "$P"
openssl genrsa -out ca.key 2048 2>/dev/null
openssl req -x509 -new -key ca.key -subj "/CN=simian-local-ca" -days 3 -out ca.crt
openssl genrsa -out etcd-ca.key 2048 2>/dev/null
openssl req -x509 -new -key etcd-ca.key -subj "/CN=simian-local-etcd-ca" -days 3 -out etcd-ca.crt
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
mkcert() { # name ca cn org eku sans
  local n=$1 ca=$2 cn=$3 o=$4 eku=$5 sans=$6 subj="/CN=$3"
  [ -n "$o" ] && subj="/O=$o/CN=$cn"
  openssl genrsa -out "$n.key" 2048 2>/dev/null
  openssl req -new -key "$n.key" -subj "$subj" -out "$n.csr"
  { echo "basicConstraints=CA:FALSE"; echo "keyUsage=critical,digitalSignature,keyEncipherment"; echo "extendedKeyUsage=$eku"
    [ -n "$sans" ] && echo "subjectAltName=$sans"; } > "$n.ext"
  openssl x509 -req -in "$n.csr" -CA "$ca.crt" -CAkey "$ca.key" -CAcreateserial -days 3 -extfile "$n.ext" -out "$n.crt" 2>/dev/null
  rm -f "$n.csr" "$n.ext"
}
mkcert etcd-server etcd-ca etcd-server "" serverAuth,clientAuth "DNS:localhost,IP:127.0.0.1"
mkcert apiserver-etcd-client etcd-ca kube-apiserver-etcd-client "" clientAuth ""
mkcert apiserver ca kube-apiserver "" serverAuth "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:10.96.0.1,IP:$NODE_IP"
mkcert apiserver-kubelet-client ca kube-apiserver-kubelet-client system:masters clientAuth ""
mkcert admin ca kubernetes-admin system:masters clientAuth ""
mkcert controller-manager ca system:kube-controller-manager "" clientAuth ""
mkcert scheduler ca system:kube-scheduler "" clientAuth ""
mkcert kubelet-client ca "system:node:$NODE_NAME" system:nodes clientAuth ""
mkcert kubelet-server ca "$NODE_NAME" "" serverAuth "DNS:$NODE_NAME,DNS:localhost,IP:127.0.0.1,IP:$NODE_IP"
mkcert kube-proxy ca system:kube-proxy "" clientAuth ""
mkcert coredns ca system:coredns "" clientAuth ""
chmod 600 ./*.key
cd - >/dev/null
mkkc() { # name cert
  local kc=$S/kubeconfig/$1.kubeconfig
  "$KUBECTL" config set-cluster simian-local --server=https://127.0.0.1:6443 --certificate-authority="$P/ca.crt" --embed-certs=true --kubeconfig="$kc" >/dev/null
  "$KUBECTL" config set-credentials "$1" --client-certificate="$P/$2.crt" --client-key="$P/$2.key" --embed-certs=true --kubeconfig="$kc" >/dev/null
  "$KUBECTL" config set-context simian-local --cluster=simian-local --user="$1" --kubeconfig="$kc" >/dev/null
  "$KUBECTL" config use-context simian-local --kubeconfig="$kc" >/dev/null
}
for x in admin:admin controller-manager:controller-manager scheduler:scheduler kubelet:kubelet-client kube-proxy:kube-proxy coredns:coredns; do
  mkkc "${x%%:*}" "${x##*:}"
done
cp "$S/kubeconfig/coredns.kubeconfig" "$S/coredns/kubeconfig"
mark "pki + kubeconfigs written"

# ---- our bridge (node IP lives here) + guard rules: pods reach only the bridge and service IPs ---
ip link add "$BR" type bridge
ip addr add "$NODE_IP/24" dev "$BR"
ip link set "$BR" up
guard() {
  iptables -N SIMIAN-FWD 2>/dev/null || iptables -F SIMIAN-FWD
  iptables -A SIMIAN-FWD -i "$BR" ! -o "$BR" -j DROP
  iptables -A SIMIAN-FWD -o "$BR" ! -i "$BR" -j DROP
  iptables -N SIMIAN-IN 2>/dev/null || iptables -F SIMIAN-IN
  iptables -A SIMIAN-IN -i lo -j RETURN
  iptables -A SIMIAN-IN -i "$BR" -j RETURN
  iptables -A SIMIAN-IN -d "$POD_CIDR" -j DROP
  iptables -D FORWARD -j SIMIAN-FWD 2>/dev/null || true
  iptables -D INPUT -j SIMIAN-IN 2>/dev/null || true
  iptables -I FORWARD 1 -j SIMIAN-FWD
  iptables -I INPUT 1 -j SIMIAN-IN
}
guard
mark "bridge $BR $NODE_IP up"

start() { # name logfile cmd...
  local n=$1; shift
  nohup "$@" > "$S/logs/$n.log" 2>&1 < /dev/null &
  echo $! > "$R/pids/$n.pid"
}
waitfor() { # desc timeout cmd...
  local d=$1 t=$2; shift 2; local end=$(( $(date +%s) + t ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || { echo "TIMEOUT waiting for $d" >&2; return 1; }
    sleep 0.5
  done
}

# ---- etcd ------------------------------------------------------------------------------
start etcd "$BIN/etcd" --name simian --data-dir "$S/etcd" \
  --listen-client-urls https://127.0.0.1:2379 --advertise-client-urls https://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster simian=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381 \
  --client-cert-auth --trusted-ca-file "$P/etcd-ca.crt" --cert-file "$P/etcd-server.crt" --key-file "$P/etcd-server.key"
waitfor etcd 60 curl -sf --cacert "$P/etcd-ca.crt" --cert "$P/apiserver-etcd-client.crt" --key "$P/apiserver-etcd-client.key" https://127.0.0.1:2379/health
mark "etcd healthy"

# ---- kube-apiserver -----------------------------------------------------------------------
cat > "$S/audit-policy.yaml" <<EOT
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
EOT
start kube-apiserver "$BIN/kube-apiserver" \
  --bind-address=127.0.0.1 --secure-port=6443 --advertise-address="$NODE_IP" \
  --etcd-servers=https://127.0.0.1:2379 --etcd-cafile="$P/etcd-ca.crt" --etcd-certfile="$P/apiserver-etcd-client.crt" --etcd-keyfile="$P/apiserver-etcd-client.key" \
  --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
  --anonymous-auth=false --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
  --service-cluster-ip-range="$SVC_CIDR" --allow-privileged=true \
  --kubelet-client-certificate="$P/apiserver-kubelet-client.crt" --kubelet-client-key="$P/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority="$P/ca.crt" --kubelet-preferred-address-types=Hostname \
  --audit-policy-file="$S/audit-policy.yaml" --audit-log-path="$S/logs/audit.log" --audit-log-maxsize=200 --audit-log-maxbackup=1 \
  --profiling=false --endpoint-reconciler-type=lease
waitfor kube-apiserver 120 "$KUBECTL" get --raw /readyz
mark "kube-apiserver ready"

# ---- controller-manager, scheduler ---------------------------------------------------------
start kube-controller-manager "$BIN/kube-controller-manager" \
  --bind-address=127.0.0.1 --kubeconfig="$S/kubeconfig/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$S/kubeconfig/controller-manager.kubeconfig" --authorization-kubeconfig="$S/kubeconfig/controller-manager.kubeconfig" \
  --client-ca-file="$P/ca.crt" --root-ca-file="$P/ca.crt" --service-account-private-key-file="$P/sa.key" \
  --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" \
  --use-service-account-credentials=true --leader-elect=false --service-cluster-ip-range="$SVC_CIDR" --profiling=false
start kube-scheduler "$BIN/kube-scheduler" \
  --bind-address=127.0.0.1 --kubeconfig="$S/kubeconfig/scheduler.kubeconfig" \
  --authentication-kubeconfig="$S/kubeconfig/scheduler.kubeconfig" --authorization-kubeconfig="$S/kubeconfig/scheduler.kubeconfig" \
  --leader-elect=false --profiling=false

# RBAC for CoreDNS (same rules as kubeadm's system:coredns) + kube-dns Service
"$KUBECTL" apply -f - > /dev/null <<EOT
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:coredns"}]
---
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: $DNS_IP
  selector: {k8s-app: kube-dns}
  ports:
  - {name: dns, port: 53, protocol: UDP, targetPort: 53}
  - {name: dns-tcp, port: 53, protocol: TCP, targetPort: 53}
EOT
mark "controller-manager + scheduler started, coredns RBAC applied"

# ---- containerd -----------------------------------------------------------------------------
cat > "$S/containerd/certs.d/docker.io/hosts.toml" <<EOT
# no registry here: every pull of docker.io goes to a closed loopback port
# containerd 1.6.20 rejects a hosts.toml with no [host] table ("failed to decode hosts.toml" error="invalid host tree")
# and then falls back to registry-1.docker.io: the [host] table is required.
server = "http://127.0.0.1:1"
[host."http://127.0.0.1:1"]
  capabilities = ["pull", "resolve"]
EOT
cat > "$S/containerd/config.toml" <<EOT
version = 2
root = "$S/containerd/root"
state = "$S/containerd/state"
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_cdi = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    discard_unpacked_layers = false
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$R/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$S/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$S/containerd/certs.d"
EOT
cat > "$S/cni/net.d/10-simian.conflist" <<EOT
{
  "cniVersion": "1.0.0",
  "name": "simian",
  "plugins": [
    {"type": "bridge", "bridge": "$BR", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$S/cni/ipam",
              "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP", "rangeStart": "10.244.0.10"}]],
              "routes": [{"dst": "$SVC_CIDR"}]}}
  ]
}
EOT
# HTTP(S)_PROXY to a closed loopback port: a backstop so that no pull can ever leave the machine
start containerd env HTTP_PROXY=http://127.0.0.1:1 HTTPS_PROXY=http://127.0.0.1:1 NO_PROXY= \
  containerd --config "$S/containerd/config.toml" --log-level info
waitfor containerd 60 ctr --address "$SOCK" version
mark "containerd up"

# ---- local images (no registry): pause, busybox:1.36, coredns --------------------------------
I=$S/images
gcc -O2 -static -s -o "$I/pause" "$HERE/pause.c"
python3 "$HERE/mkimage.py" "$I/pause.tar" registry.k8s.io/pause:3.10 --entrypoint '["/pause"]' --file "$I/pause:/pause" --user 65535:65535
BBLINKS=()
while read -r l; do BBLINKS+=(--link "$l:/bin/busybox"); done < <(busybox --list-full | grep -v '^bin/busybox$')
BBFILES=(--file /bin/busybox:/bin/busybox)
while read -r lib; do BBFILES+=(--file "$lib:$lib"); done < <(ldd /bin/busybox | grep -o '/[^ ]*' | sort -u)
python3 "$HERE/mkimage.py" "$I/busybox.tar" docker.io/library/busybox:1.36 --cmd '["sh"]' "${BBFILES[@]}" "${BBLINKS[@]}" \
  --dir /tmp --dir /root --dir /home --dir /var --dir /etc \
  --text '/etc/passwd=root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n' \
  --text '/etc/group=root:x:0:\nnogroup:x:65534:\n'
python3 "$HERE/mkimage.py" "$I/coredns.tar" registry.k8s.io/coredns/coredns:v1.14.2 --entrypoint '["/coredns"]' --file "$BIN/coredns:/coredns"
for t in pause busybox coredns; do ctr --address "$SOCK" -n k8s.io images import "$I/$t.tar"; done
ctr --address "$SOCK" -n k8s.io images ls -q
mark "images imported"

# ---- CoreDNS as a static pod (hostNetwork; answers on $NODE_IP:53 and 127.0.0.1:53) ------------
cat > "$S/coredns/Corefile" <<EOT
.:53 {
    bind $NODE_IP 127.0.0.1
    errors
    health 127.0.0.1:8080
    ready 127.0.0.1:8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig /etc/coredns/kubeconfig
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    cache 30
    reload
}
EOT
cat > "$S/manifests/coredns.yaml" <<EOT
apiVersion: v1
kind: Pod
metadata: {name: coredns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  hostNetwork: true
  dnsPolicy: Default
  priorityClassName: system-node-critical
  containers:
  - name: coredns
    image: registry.k8s.io/coredns/coredns:v1.14.2
    imagePullPolicy: Never
    args: ["-conf", "/etc/coredns/Corefile"]
    volumeMounts: [{name: conf, mountPath: /etc/coredns, readOnly: true}]
    resources: {requests: {cpu: 50m, memory: 70Mi}, limits: {memory: 170Mi}}
    readinessProbe: {httpGet: {host: 127.0.0.1, path: /ready, port: 8181}, periodSeconds: 2}
    livenessProbe: {httpGet: {host: 127.0.0.1, path: /health, port: 8080}, periodSeconds: 10, failureThreshold: 5}
  volumes: [{name: conf, hostPath: {path: $S/coredns, type: Directory}}]
EOT

# ---- kubelet ---------------------------------------------------------------------------------
cat > "$S/kubelet/config.yaml" <<EOT
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $P/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $P/kubelet-server.crt
tlsPrivateKeyFile: $P/kubelet-server.key
containerRuntimeEndpoint: unix://$SOCK
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
oomScoreAdj: 0
protectKernelDefaults: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
imageMinimumGCAge: 87600h
serializeImagePulls: false
clusterDomain: cluster.local
clusterDNS: [$DNS_IP]
resolvConf: ""
staticPodPath: $S/manifests
podLogsDir: $S/pod-logs
volumePluginDir: $S/volume-plugins
evictionHard: {memory.available: 100Mi, nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
rotateCertificates: false
serverTLSBootstrap: false
EOT
start kubelet "$BIN/kubelet" --config="$S/kubelet/config.yaml" --kubeconfig="$S/kubeconfig/kubelet.kubeconfig" \
  --root-dir="$S/kubelet" --node-ip="$NODE_IP" --hostname-override="$NODE_NAME" --v=2
mark "kubelet started"

# ---- kube-proxy (iptables) -------------------------------------------------------------------
cat > "$S/kube-proxy.yaml" <<EOT
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
clientConnection: {kubeconfig: $S/kubeconfig/kube-proxy.kubeconfig}
clusterCIDR: $POD_CIDR
hostnameOverride: $NODE_NAME
nodePortAddresses: ["$NODE_IP/32"]
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {localhostNodePorts: false, masqueradeAll: false}
EOT
start kube-proxy "$BIN/kube-proxy" --config="$S/kube-proxy.yaml" --v=1

waitfor "node Ready" 180 sh -c "\"$KUBECTL\" get node \"$NODE_NAME\" -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
mark "node Ready"
guard   # re-insert our guard chains ahead of the kubelet's/kube-proxy's jumps
waitfor "coredns answers" 120 sh -c "busybox nslookup kubernetes.default.svc.cluster.local 127.0.0.1 | grep -q 10.96.0.1"
mark "coredns answers on 127.0.0.1"
"$KUBECTL" get nodes -o wide
"$KUBECTL" get pods -A -o wide
mark "up done"
