#!/usr/bin/env python3
"""Write an OCI image layout tarball (one gzip layer) with the stdlib only.

usage: mkimage.py OUT.tar REF --entrypoint JSON --cmd JSON [--file SRC:DST]... [--link DST:TARGET]... [--dir DST]...
"""
import argparse, gzip, hashlib, io, json, os, tarfile, time

def add_dir(tf, path, seen):
    parts = path.strip('/').split('/')
    for i in range(1, len(parts) + 1):
        p = '/'.join(parts[:i])
        if p and p not in seen:
            seen.add(p)
            ti = tarfile.TarInfo(p); ti.type = tarfile.DIRTYPE; ti.mode = 0o755; ti.mtime = 0
            if p == 'tmp': ti.mode = 0o1777
            tf.addfile(ti)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out'); ap.add_argument('ref')
    ap.add_argument('--entrypoint', default='null'); ap.add_argument('--cmd', default='null')
    ap.add_argument('--file', action='append', default=[]); ap.add_argument('--link', action='append', default=[])
    ap.add_argument('--dir', action='append', default=[]); ap.add_argument('--text', action='append', default=[])
    ap.add_argument('--user', default='')
    a = ap.parse_args()
    raw = io.BytesIO(); seen = set()
    with tarfile.open(fileobj=raw, mode='w', format=tarfile.PAX_FORMAT) as tf:
        for d in a.dir: add_dir(tf, d, seen)
        for spec in a.file:
            src, dst = spec.split(':', 1); dst = dst.lstrip('/')
            add_dir(tf, os.path.dirname(dst), seen)
            data = open(os.path.realpath(src), 'rb').read()
            ti = tarfile.TarInfo(dst); ti.size = len(data); ti.mode = 0o755; ti.mtime = 0
            tf.addfile(ti, io.BytesIO(data)); seen.add(dst)
        for spec in a.text:  # DST=CONTENT (\n escapes)
            dst, content = spec.split('=', 1); dst = dst.lstrip('/')
            add_dir(tf, os.path.dirname(dst), seen)
            data = content.encode().decode('unicode_escape').encode()
            ti = tarfile.TarInfo(dst); ti.size = len(data); ti.mode = 0o644; ti.mtime = 0
            tf.addfile(ti, io.BytesIO(data)); seen.add(dst)
        for spec in a.link:
            dst, target = spec.split(':', 1); dst = dst.lstrip('/')
            if dst in seen: continue
            add_dir(tf, os.path.dirname(dst), seen)
            ti = tarfile.TarInfo(dst); ti.type = tarfile.SYMTYPE; ti.linkname = target; ti.mtime = 0
            tf.addfile(ti); seen.add(dst)
    diff = raw.getvalue()
    gz = gzip.compress(diff, mtime=0)
    sha = lambda b: 'sha256:' + hashlib.sha256(b).hexdigest()
    cfg = {"architecture": "amd64", "os": "linux",
           "config": {"Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                      "Entrypoint": json.loads(a.entrypoint), "Cmd": json.loads(a.cmd), "WorkingDir": "/"},
           "rootfs": {"type": "layers", "diff_ids": [sha(diff)]},
           "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "pytest-simian mkimage.py"}],
           "created": "1970-01-01T00:00:00Z"}
    if a.user: cfg["config"]["User"] = a.user
    cfgb = json.dumps(cfg, sort_keys=True).encode()
    man = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
           "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(cfgb), "size": len(cfgb)},
           "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(gz), "size": len(gz)}]}
    manb = json.dumps(man, sort_keys=True).encode()
    tag = a.ref.rsplit(':', 1)[1]
    idx = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
           "manifests": [{"mediaType": man["mediaType"], "digest": sha(manb), "size": len(manb),
                          "platform": {"architecture": "amd64", "os": "linux"},
                          "annotations": {"io.containerd.image.name": a.ref, "org.opencontainers.image.ref.name": tag}}]}
    with tarfile.open(a.out, 'w') as out:
        def put(name, data):
            ti = tarfile.TarInfo(name); ti.size = len(data); ti.mtime = 0; out.addfile(ti, io.BytesIO(data))
        put('oci-layout', b'{"imageLayoutVersion":"1.0.0"}')
        put('index.json', json.dumps(idx).encode())
        for b in (cfgb, manb, gz):
            put('blobs/sha256/' + sha(b)[7:], b)
    print(a.ref, sha(manb), len(gz))

if __name__ == '__main__':
    main()
