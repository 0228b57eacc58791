#!/usr/bin/python
# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
---
module: ascend_install_options
short_description: Decide the installer options of an Ascend driver or firmware package run (internal to the roles)
version_added: 0.1.0
description:
  - Decides which of C(--install-path=), C(--install-username=), C(--install-usergroup=) and
    C(--install-for-all) a driver or firmware C(.run) package is given, the way Huawei's driver
    installer accepts them.
  - A fresh install (O(action=full)) gets what is asked for.
  - An upgrade (O(action=upgrade)) gets none of them. The real driver installer refuses them
    with C(--upgrade) (C(ERR_NO:0x0004)) and keeps the install path, user, group and
    install-for-all that the first install recorded in C(/etc/ascend_install.info). When what is
    recorded differs from what is asked for, the module fails and names the cause and the fix
    instead of letting the node silently keep other settings.
  - Reads the node only; changes nothing.
author:
  - cubestudio maintainers (@cubestudio)
notes:
  - Internal to the roles of cubestudio.ascend, used by the npu_driver role. Its options and results
    follow what they need and may change in any release; it is documented for them and for
    debugging, not as an interface.
options:
  component:
    description: The package.
    type: str
    required: true
    choices: [driver, firmware]
  action:
    description: V(full) for a fresh install, V(upgrade) over an installed package.
    type: str
    required: true
    choices: [full, upgrade]
  install_path:
    description: The install path asked for; empty for the installer's default.
    type: str
    default: ""
  install_username:
    description: The run user asked for; empty for the installer's default (HwHiAiUser).
    type: str
    default: ""
  install_usergroup:
    description: The run group asked for; given together with O(install_username).
    type: str
    default: ""
  install_for_all:
    description: Whether C(--install-for-all) is asked for (driver only).
    type: bool
    default: false
  labels:
    description:
      - The names the caller knows the options by (for example role variables), used in the
        failure message. Keys are V(install_path), V(install_username), V(install_usergroup),
        V(install_for_all).
    type: dict
    default: {}
  install_info:
    description: Where the installers record what they installed.
    type: path
    default: /etc/ascend_install.info
extends_documentation_fragment:
  - cubestudio.ascend.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    support: N/A
    platforms: posix
seealso:
  - module: cubestudio.ascend.ascend_package
  - module: cubestudio.ascend.ascend_facts
"""

EXAMPLES = r"""
- name: Decide how the driver upgrade is run
  cubestudio.ascend.ascend_install_options:
    component: driver
    action: upgrade
    install_path: /usr/local/Ascend
    install_for_all: true
    labels:
      install_path: npu_driver_install_path
      install_for_all: npu_driver_install_for_all
  register: driver_options

- name: Upgrade the driver with the options decided
  cubestudio.ascend.ascend_package:
    path: /var/cache/ascend/packages/Ascend-hdk-910b-npu-driver_25.5.0_linux-x86_64.run
    action: upgrade
    install_path: "{{ driver_options.options.install_path or omit }}"
    install_for_all: "{{ driver_options.options.install_for_all }}"
    success_rc: [0, 2]
    reboot_rc: [2]
"""

RETURN = r"""
options:
  description: The options of M(cubestudio.ascend.ascend_package) for this run; null or false for an option not to pass.
  returned: success
  type: dict
  contains:
    install_path:
      description: Value of C(--install-path=), null to leave it out.
      type: str
    install_username:
      description: Value of C(--install-username=), null to leave it out.
      type: str
    install_usergroup:
      description: Value of C(--install-usergroup=), null to leave it out.
      type: str
    install_for_all:
      description: Whether to pass C(--install-for-all).
      type: bool
  sample: {"install_path": null, "install_username": null, "install_usergroup": null, "install_for_all": false}
recorded:
  description: What C(/etc/ascend_install.info) recorded for the component (defaults where it has nothing); null without the file.
  returned: always
  type: dict
  sample: {"install_path": "/usr/local/Ascend", "install_username": "HwHiAiUser", "install_usergroup": "HwHiAiUser", "install_for_all": true}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._ascend_files import (
    parse_info_file,
    read_text,
)
from ansible_collections.cubestudio.ascend.plugins.module_utils._installers._installer import (
    InstallOptionsError,
    install_options,
    recorded_settings,
)

LABEL_KEYS = (
    "install_path",
    "install_username",
    "install_usergroup",
    "install_for_all",
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            component=dict(type="str", required=True, choices=["driver", "firmware"]),
            action=dict(type="str", required=True, choices=["full", "upgrade"]),
            install_path=dict(type="str", default=""),
            install_username=dict(type="str", default=""),
            install_usergroup=dict(type="str", default=""),
            install_for_all=dict(type="bool", default=False),
            labels=dict(type="dict", default={}),
            install_info=dict(type="path", default="/etc/ascend_install.info"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    unknown = sorted(set(p["labels"]) - set(LABEL_KEYS))
    if unknown:
        module.fail_json(
            msg="labels has unknown keys %s (known: %s)"
            % (", ".join(unknown), ", ".join(LABEL_KEYS)),
            recorded=None,
        )
    if p["install_path"] and not p["install_path"].startswith("/"):
        module.fail_json(
            msg="install_path must be absolute, got %r" % p["install_path"],
            recorded=None,
        )
    info = parse_info_file(read_text(p["install_info"]))
    recorded = recorded_settings(p["component"], info) if info is not None else None
    requested = {
        "install_path": p["install_path"],
        "install_username": p["install_username"],
        "install_usergroup": p["install_usergroup"],
        "install_for_all": p["install_for_all"],
    }
    labels = {k: str(v) for k, v in p["labels"].items()}
    try:
        options = install_options(
            p["component"], p["action"], requested, info, labels=labels
        )
    except InstallOptionsError as error:
        module.fail_json(msg=str(error), recorded=recorded)
    module.exit_json(changed=False, options=options, recorded=recorded)


if __name__ == "__main__":
    main()
