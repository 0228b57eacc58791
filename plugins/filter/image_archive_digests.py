# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The image_archive_digests filter: the digests an image tarball on the controller names."""

from __future__ import annotations

import json
import tarfile

from ansible.errors import AnsibleFilterError

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._image_load import (
    archive_digests,
)

DOCUMENTATION = r"""
name: image_archive_digests
short_description: The digests an image tarball names (index.json targets, manifest.json config)
version_added: 0.2.0
author: cubestudio maintainers (@cubestudio)
description:
  - Reads C(index.json) (OCI layout - the digest containerd keeps for the image) and C(manifest.json)
    (C(docker save) - the config digest, Docker's image ID) of an image tarball on the controller; only
    those two members are read, not the layers.
  - Meant for O(cubestudio.ascend.container_image_load#module:digests) - the tarball is copied to a node only when
    the node's engine lacks the image with one of these digests.
options:
  _input:
    description: Path of the tarball on the controller.
    type: path
    required: true
"""

EXAMPLES = r"""
- name: Look for the image before copying its tarball
  cubestudio.ascend.container_image_load:
    image: ascend-k8sdeviceplugin:v7.3.0
    engine: containerd
    digests: "{{ '/srv/ascend-k8sdeviceplugin_v7.3.0_x86_64.tar' | cubestudio.ascend.image_archive_digests }}"
    state: query
"""

RETURN = r"""
_value:
  description: The digests (C(sha256:...)); empty when the tarball has neither file.
  type: list
  elements: str
"""


def image_archive_digests(path):
    """The digests of the tarball at `path`; AnsibleFilterError when it cannot be read."""
    members = {}
    try:
        with tarfile.open(str(path)) as archive:
            for name in ("index.json", "manifest.json"):
                try:
                    handle = archive.extractfile(name)
                except KeyError:
                    continue
                if handle is not None:
                    members[name] = json.load(handle)
    except (OSError, tarfile.TarError, ValueError) as exc:
        raise AnsibleFilterError(
            "image_archive_digests: %s is no readable image tarball: %s" % (path, exc)
        ) from exc
    index = members.get("index.json")
    manifest = members.get("manifest.json")
    return archive_digests(
        index if isinstance(index, dict) else None,
        manifest if isinstance(manifest, list) else None,
    )


class FilterModule:
    """cubestudio.ascend filters."""

    def filters(self):
        return {"image_archive_digests": image_archive_digests}
