#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: ascend_layer_record
short_description: Record on a node what a layer role left there, for a fast re-run (internal to the roles)
version_added: 0.1.0
description:
  - Writes (O(state=present)) or removes (O(state=absent)) the record of one layer of the
    collection in C(<state_dir>/layers/<name>.json) - the fingerprint of the role's inputs, the
    state of every file the role manages (its sha256, the target of a link, or absent) and the
    facts it left (versions, device counts).
  - A role writes its record after it finished and verified the node, and removes it before it
    changes anything. P(cubestudio.ascend.ascend_facts#module) reads the records back (key
    C(layers)) and P(cubestudio.ascend.ascend_plan#module) says whether the node is still
    exactly as the role left it, with the same inputs - only then is the role skipped.
  - The file is JSON with sorted keys, written atomically with mode C(0644) in a folder of mode
    C(0755); an unchanged record rewrites no byte (no change reported).
author: cubestudio maintainers (@cubestudio)
notes:
  - Internal to the roles of cubestudio.ascend, used by the layer roles (preflight, npu_driver,
    cann_toolkit, ascend_runtime) for their fast re-run. Its options and results follow what they
    need and may change in any release; it is documented for them and for debugging, not as an
    interface.
options:
  name:
    description: The layer (the role's name, C(npu_driver)).
    type: str
    required: true
  state:
    description: C(present) writes the record, C(absent) removes it.
    type: str
    choices: [present, absent]
    default: present
  fingerprint:
    description: The fingerprint of the role's inputs (lookup C(cubestudio.ascend.layer_fingerprint)). Required with O(state=present).
    type: str
  files:
    description: Absolute paths of the files (and links) the role manages; their state is recorded.
    type: list
    elements: path
    default: []
  facts:
    description: The facts the role left (C(ansible_facts.ascend)); only O(fact_paths) of them are recorded.
    type: dict
    default: {}
  fact_paths:
    description: Dotted paths into O(facts) to record (C(driver.version), C(davinci_devices)).
    type: list
    elements: str
    default: []
  state_dir:
    description: Folder of the collection's state on the node.
    type: path
    default: /var/lib/cubestudio-ascend
extends_documentation_fragment:
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
    details:
      - Reports whether the record would change; writes nothing.
  diff_mode:
    support: full
  platform:
    platforms: posix
    support: full
seealso:
  - module: cubestudio.ascend.ascend_facts
  - module: cubestudio.ascend.ascend_plan
"""

EXAMPLES = r"""
- name: Record what npu_driver left on the node
  cubestudio.ascend.ascend_layer_record:
    name: npu_driver
    fingerprint: "{{ lookup('cubestudio.ascend.layer_fingerprint', 'npu_driver') }}"
    files:
      - /etc/ascend_install.info
      - /run/cubestudio-ascend/reboot-required
    facts: "{{ ansible_facts['ascend'] }}"
    fact_paths: [driver.version, firmware.version, davinci_devices]

- name: Forget it before changing the node
  cubestudio.ascend.ascend_layer_record:
    name: npu_driver
    state: absent
"""

RETURN = r"""
path:
  description: The record file on the node.
  returned: always
  type: str
  sample: /var/lib/cubestudio-ascend/layers/npu_driver.json
record:
  description: The record written (null with O(state=absent)).
  returned: always
  type: dict
  sample:
    schema: 1
    layer: npu_driver
    fingerprint: 3f2c...
    files: {/etc/ascend_install.info: "sha256:9b1d...", /run/cubestudio-ascend/reboot-required: null}
    facts: {driver.version: 25.5.0, davinci_devices: 8}
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._node._layer_state import (
    LayerStateError,
    build_record,
    record_path,
    render,
)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _write(path: str, content: str) -> None:
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o755, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=folder, prefix=".record-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(content)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "name": {"type": "str", "required": True},
            "state": {
                "type": "str",
                "choices": ["present", "absent"],
                "default": "present",
            },
            "fingerprint": {"type": "str"},
            "files": {"type": "list", "elements": "path", "default": []},
            "facts": {"type": "dict", "default": {}},
            "fact_paths": {"type": "list", "elements": "str", "default": []},
            "state_dir": {"type": "path", "default": "/var/lib/cubestudio-ascend"},
        },
        required_if=[("state", "present", ("fingerprint",))],
        supports_check_mode=True,
    )
    params = module.params
    try:
        path = record_path(params["state_dir"], params["name"])
        record = None
        if params["state"] == "present":
            record = build_record(
                params["name"],
                params["fingerprint"],
                params["files"],
                params["facts"],
                params["fact_paths"],
            )
    except LayerStateError as error:
        module.fail_json(msg=str(error))
    before = _read(path)
    after = render(record) if record is not None else None
    changed = before != after
    result = {"changed": changed, "path": path, "record": record}
    if module._diff:
        result["diff"] = {
            "before": before or "",
            "after": after or "",
            "before_header": path,
            "after_header": path,
        }
    if changed and not module.check_mode:
        try:
            if after is None:
                os.unlink(path)
            else:
                _write(path, after)
        except OSError as error:
            module.fail_json(
                msg="cannot write the layer record %s: %s"
                % (path, error.strerror or error),
                **result,
            )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
