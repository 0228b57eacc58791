# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turn a root filesystem tarball into an OCI image archive that `ctr images import` reads.

Test helper of cubestudio.ascend (not shipped). The node images of the molecule scenarios
carry the workload as a plain rootfs tarball (/opt/cubestudio-images/workload.tar): `docker
import` takes it as it is, containerd needs an image. This writes an OCI image layout (as a
tar stream) with the tarball as its only, uncompressed layer, and one manifest per image name:

    python3 oci_archive.py ROOTFS.tar NAME[=ENTRYPOINT...] [NAME...] > image.tar
    python3 oci_archive.py /opt/cubestudio-images/workload.tar \
        docker.io/cubestudio/workload:latest 'registry.k8s.io/pause:3.6=/bin/sleep infinity' \
        | ctr -n k8s.io images import -

Each NAME becomes an image whose config sets the given entrypoint (split on blanks), so the
same layer can serve as the workload image and as the local pod sandbox ("pause") image. The
layer is read twice (digest, then copy); nothing is written to disk. Standard library only.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
import sys
import tarfile

LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar"
CONFIG_TYPE = "application/vnd.oci.image.config.v1+json"
MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json"
INDEX_TYPE = "application/vnd.oci.image.index.v1+json"
PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
GOARCH = {"x86_64": "amd64", "aarch64": "arm64"}


def goarch(machine=None):
    """The OCI architecture name of a `uname -m` machine name."""
    machine = machine or platform.machine()
    return GOARCH.get(machine, machine)


def file_digest(path, chunk=1 << 20):
    """(sha256 hex, size) of a file."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while True:
            block = handle.read(chunk)
            if not block:
                break
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def parse_image_arg(arg):
    """'name=entry point words' -> (name, [words]); a bare name has no entrypoint."""
    name, sep, entry = arg.partition("=")
    if not name:
        raise ValueError("empty image name in %r" % arg)
    return name, (entry.split() if sep else [])


def blob(data):
    """(descriptor fields, bytes) of a JSON document."""
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    return "sha256:" + hashlib.sha256(raw).hexdigest(), len(raw), raw


def build_documents(layer_sha, layer_size, images, arch):
    """The JSON blobs and index.json of the archive: (list of (digest, bytes), index bytes)."""
    layer = {
        "mediaType": LAYER_TYPE,
        "digest": "sha256:" + layer_sha,
        "size": layer_size,
    }
    blobs = []
    manifests = []
    for name, entrypoint in images:
        config = {
            "architecture": arch,
            "os": "linux",
            "config": {"Env": [PATH_ENV], "Cmd": ["/bin/sh"]},
            "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer_sha]},
        }
        if entrypoint:
            config["config"]["Entrypoint"] = entrypoint
            config["config"]["Cmd"] = []
        c_digest, c_size, c_raw = blob(config)
        manifest = {
            "schemaVersion": 2,
            "mediaType": MANIFEST_TYPE,
            "config": {"mediaType": CONFIG_TYPE, "digest": c_digest, "size": c_size},
            "layers": [layer],
        }
        m_digest, m_size, m_raw = blob(manifest)
        blobs += [(c_digest, c_raw), (m_digest, m_raw)]
        manifests.append(
            {
                "mediaType": MANIFEST_TYPE,
                "digest": m_digest,
                "size": m_size,
                "platform": {"architecture": arch, "os": "linux"},
                "annotations": {
                    "io.containerd.image.name": name,
                    "org.opencontainers.image.ref.name": name,
                },
            }
        )
    index = {"schemaVersion": 2, "mediaType": INDEX_TYPE, "manifests": manifests}
    return blobs, json.dumps(index, sort_keys=True).encode()


def _add_bytes(archive, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    archive.addfile(info, io.BytesIO(data))


def write_archive(out, rootfs, images, arch=None):
    """Write the OCI archive of `rootfs` with `images` [(name, entrypoint)] to the stream `out`."""
    layer_sha, layer_size = file_digest(rootfs)
    blobs, index = build_documents(layer_sha, layer_size, images, arch or goarch())
    seen = set()
    with tarfile.open(fileobj=out, mode="w|") as archive:
        _add_bytes(archive, "oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
        _add_bytes(archive, "index.json", index)
        for digest, raw in blobs:
            if digest not in seen:
                seen.add(digest)
                _add_bytes(archive, "blobs/sha256/" + digest[7:], raw)
        info = tarfile.TarInfo("blobs/sha256/" + layer_sha)
        info.size = layer_size
        info.mode = 0o644
        with open(rootfs, "rb") as handle:
            archive.addfile(info, handle)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    images = [parse_image_arg(arg) for arg in argv[1:]]
    write_archive(sys.stdout.buffer, argv[0], images)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
