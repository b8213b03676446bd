#!/usr/bin/env bash
# Behaviour checks against a cluster started by up.sh. CRASHLOOP=1 also runs the 6-minute crashloop.py poll.
set -uo pipefail
source "$(dirname "$0")/common.sh"
K=$KUBECTL
t0=$(ts)
$K apply -f - >/dev/null <<'EOT'
apiVersion: v1
kind: Pod
metadata: {name: sleeper}
spec:
  containers: [{name: c, image: busybox:1.36, imagePullPolicy: IfNotPresent, command: [sleep, "3600"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: oom}
spec:
  restartPolicy: Never
  containers: [{name: c, image: busybox:1.36, imagePullPolicy: IfNotPresent, command: [tail, /dev/zero], resources: {limits: {memory: 64Mi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: noimage}
spec:
  containers: [{name: c, image: docker.io/library/does-not-exist:1.0}]
---
apiVersion: v1
kind: Pod
metadata: {name: wget-t}
spec:
  restartPolicy: Never
  containers: [{name: c, image: busybox:1.36, imagePullPolicy: IfNotPresent, command: [busybox, wget, -T, "2", "http://127.0.0.1:1/"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: wget-plain}
spec:
  restartPolicy: Never
  containers: [{name: c, image: busybox:1.36, imagePullPolicy: IfNotPresent, command: [busybox, wget, "http://127.0.0.1:1/"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: c, image: busybox:1.36, imagePullPolicy: IfNotPresent, command: [sh, -c, "mkdir -p /www && echo hello-from-web > /www/index.html && exec httpd -f -p 8080 -h /www"]}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}
EOT
$K wait --for=condition=Ready pod/sleeper pod/web --timeout=60s >/dev/null
echo "sleeper+web Ready after $(python3 -c "print(round($(ts)-$t0,1))") s"
sleep 10
$K get pods -o wide
for p in oom wget-t wget-plain noimage; do
  echo "== $p: $($K get pod $p -o jsonpath='{.status.containerStatuses[0].state}')"
  case $p in wget-*) echo "-- logs:"; $K logs $p;; esac
done
echo "== DNS in pod:"; $K exec sleeper -- nslookup web.default.svc.cluster.local | grep -A1 '^Name'
echo "== Service via DNS name:"; $K exec sleeper -- wget -q -O- http://web.default.svc.cluster.local/
echo "== pod -> kubernetes Service (expected refused: apiserver listens on 127.0.0.1 only):"
$K exec sleeper -- sh -c 'nc -w 2 10.96.0.1 443 </dev/null; echo rc=$?' 2>&1
if [ "${CRASHLOOP:-0}" = 1 ]; then python3 "$HERE/crashloop.py" default; fi
