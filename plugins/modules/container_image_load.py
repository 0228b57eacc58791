#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: container_image_load
short_description: Load an image tarball into containerd or Docker when the image is not there, or remove the image
version_added: 0.1.0
description:
  - Loads an image archive (C(docker save) or OCI layout, as MindCluster release zips ship them)
    into containerd's namespace C(k8s.io) with C(ctr images import), or into Docker with
    C(docker load), unless the image is already present. The offline way of Huawei's guides
    for nodes without a registry.
  - Fails with the cause when the archive does not hold the image it should.
  - With O(state=absent), removes the image from the engine when it is there (the Kubernetes
    layer's uninstall); the archive is not needed then.
author: cubestudio maintainers (@cubestudio)
options:
  path:
    description: The archive on the node. Required with O(state=present).
    type: path
  image:
    description: The image reference the archive holds (C(ascend-k8sdeviceplugin:v7.3.0)); short names are C(docker.io/library/) ones.
    type: str
    required: true
  engine:
    description:
      - C(containerd) or C(docker), or a Node's C(status.nodeInfo.containerRuntimeVersion)
        such as C(containerd://1.6.20), the engine the kubelet uses.
    type: str
    required: true
  namespace:
    description: containerd namespace (the CRI's is C(k8s.io)).
    type: str
    default: k8s.io
  digests:
    description:
      - Digests the image must have in the engine (P(cubestudio.ascend.image_archive_digests#filter) of the
        archive) - an image of the same reference with another digest counts as missing and is loaded again.
        Empty - the reference alone decides.
    type: list
    elements: str
    default: []
    version_added: 0.9.0
  state:
    description:
      - V(present) loads the archive when the image is not there; V(absent) removes the image
        when it is there; V(query) only reports RV(present) (no archive needed, nothing changes),
        so that the archive is copied to the node only when the image is missing.
    type: str
    choices: [present, absent, query]
    default: present
extends_documentation_fragment:
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
    details:
      - Looks for the image and reports a change when it would load (or remove) it; changes nothing.
  diff_mode:
    support: none
  platform:
    platforms: posix
    support: full
"""

EXAMPLES = r"""
- name: Load the device plugin image into containerd
  cubestudio.ascend.container_image_load:
    path: /var/lib/cubestudio/images/ascend-k8sdeviceplugin_v7.3.0_x86_64.tar
    image: ascend-k8sdeviceplugin:v7.3.0
    engine: containerd

- name: Remove it again (uninstall)
  cubestudio.ascend.container_image_load:
    image: ascend-k8sdeviceplugin:v7.3.0
    engine: containerd://1.6.20
    state: absent
"""

RETURN = r"""
engine:
  description: The engine the image was looked for and loaded into (or removed from).
  returned: success
  type: str
  sample: containerd
present:
  description: Whether the engine has the image (with one of O(digests)) - before loading it.
  returned: success
  type: bool
  sample: true
digest:
  description: The digest the engine has for the reference (before loading); null when it has none.
  returned: when O(digests) is given
  type: str
  sample: sha256:2d57f535df11af4cd91ac9e92767ad85115e663db526515cb6c349931f155d27
reference:
  description: The full reference looked for.
  returned: success
  type: str
  sample: docker.io/library/ascend-k8sdeviceplugin:v7.3.0
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._engines._image_load import (
    ImageLoadError,
    digest_command,
    digest_matches,
    engine_digest,
    engine_kind,
    full_reference,
    is_present,
    load_command,
    present_command,
    remove_command,
)


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path"},
            "image": {"type": "str", "required": True},
            "engine": {"type": "str", "required": True},
            "namespace": {"type": "str", "default": "k8s.io"},
            "digests": {"type": "list", "elements": "str", "default": []},
            "state": {
                "type": "str",
                "choices": ["present", "absent", "query"],
                "default": "present",
            },
        },
        required_if=[("state", "present", ["path"])],
        supports_check_mode=True,
    )
    params = module.params
    try:
        engine = engine_kind(params["engine"])
        reference = full_reference(params["image"])
    except ImageLoadError as error:
        module.fail_json(msg=str(error))
    result = {"changed": False, "engine": engine, "reference": reference}
    binary = "ctr" if engine == "containerd" else "docker"
    if not module.get_bin_path(binary):
        module.fail_json(
            msg="%s is not on the node: the kubelet's engine is %s, but its command-line tool "
            "is missing" % (binary, engine),
            **result,
        )

    def present():
        rc, out, _err = module.run_command(
            present_command(engine, params["image"], params["namespace"])
        )
        return is_present(engine, rc, out)

    def found_digest():
        rc, out, _err = module.run_command(
            digest_command(engine, params["image"], params["namespace"])
        )
        return engine_digest(engine, params["image"], rc, out)

    if params["state"] in ("present", "query"):
        if params["digests"]:
            result["digest"] = found_digest()
            result["present"] = digest_matches(result["digest"], params["digests"])
        else:
            result["present"] = present()
        if params["state"] == "query" or result["present"]:
            module.exit_json(**result)

    if params["state"] == "absent":
        if not present():
            module.exit_json(**result)
        result["changed"] = True
        if module.check_mode:
            module.exit_json(**result)
        rc, out, err = module.run_command(
            remove_command(engine, params["image"], params["namespace"])
        )
        if rc != 0 or present():
            module.fail_json(
                msg="removing %s from %s failed (exit %d): %s. A container that still uses "
                "the image keeps it (Docker): stop it first"
                % (reference, engine, rc, (err or out).strip()),
                **result,
            )
        module.exit_json(**result)
    if not os.path.isfile(params["path"]):
        module.fail_json(
            msg="the image archive %s is not on the node" % params["path"], **result
        )
    result["changed"] = True
    if module.check_mode:
        module.exit_json(**result)
    rc, out, err = module.run_command(
        load_command(engine, params["path"], params["namespace"])
    )
    if rc != 0:
        module.fail_json(
            msg="loading %s into %s failed (exit %d): %s"
            % (params["path"], engine, rc, (err or out).strip()),
            **result,
        )
    if not (
        digest_matches(found_digest(), params["digests"])
        if params["digests"]
        else present()
    ):
        module.fail_json(
            msg="%s was loaded into %s but holds no image %s: the archive is of another "
            "release or architecture. Fix: device_plugin_image_archive must be the tarball of "
            "the version being deployed" % (params["path"], engine, reference),
            **result,
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
