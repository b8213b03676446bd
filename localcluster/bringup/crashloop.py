#!/usr/bin/env python3
"""Create a pod running sh -c "exit 1"; poll every 2 s for up to 6 min; report CrashLoopBackOff timing."""
import json, os, subprocess, sys, time
K = os.environ.get("KUBECTL", "/work/main/.venv/bin/kubectl")
NS = sys.argv[1] if len(sys.argv) > 1 else "default"
NAME = "crashloop"
manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": NAME, "namespace": NS},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent",
                                     "command": ["sh", "-c", "exit 1"]}]}}
subprocess.run([K, "apply", "-f", "-"], input=json.dumps(manifest).encode(), check=True, stdout=subprocess.DEVNULL)
t0 = time.time()
first_clbo = None; marks = {30: None, 90: None, 180: None, 300: None}; rows = []
while time.time() - t0 < 360:
    r = subprocess.run([K, "-n", NS, "get", "pod", NAME, "-o", "json"], capture_output=True)
    el = time.time() - t0
    if r.returncode == 0:
        p = json.loads(r.stdout); cs = (p.get("status", {}).get("containerStatuses") or [{}])[0]
        st = cs.get("state", {}); rc = cs.get("restartCount")
        key = list(st)[0] if st else None; reason = (st.get(key) or {}).get("reason") if key else None
        rows.append((round(el, 1), rc, key, reason))
        if reason == "CrashLoopBackOff" and first_clbo is None:
            first_clbo = el; print(f"first waiting.reason=CrashLoopBackOff at {el:.1f}s restartCount={rc} msg={st[key].get('message')!r}", flush=True)
        for m in marks:
            if marks[m] is None and el >= m:
                marks[m] = (round(el, 1), rc, key, reason, (cs.get('lastState', {}).get('terminated') or {}).get('exitCode'))
                print(f"t={m}s: elapsed={el:.1f} restartCount={rc} state={key} reason={reason} lastState.exitCode={marks[m][4]}", flush=True)
    time.sleep(max(0, 2 - (time.time() - t0 - el)))
# transitions
prev = None
for row in rows:
    if row[1:] != prev:
        print("transition", row, flush=True); prev = row[1:]
print("events:", subprocess.run([K, "-n", NS, "get", "events", "--field-selector", f"involvedObject.name={NAME}", "-o",
      "custom-columns=LAST:.lastTimestamp,COUNT:.count,REASON:.reason,MSG:.message"], capture_output=True, text=True).stdout)
