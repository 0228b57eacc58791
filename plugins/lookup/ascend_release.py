# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ascend_release lookup: one release name -> the matched versions of every layer."""

from __future__ import annotations

DOCUMENTATION = r"""
name: ascend_release
short_description: The driver, firmware, CANN, runtime and MindCluster versions of one Huawei release
version_added: 0.1.0
author: cubestudio maintainers (@cubestudio)
description:
  - Reads the release trains of the collection's version matrix (C(data/version_matrix.yml),
    rendered in C(docs/version-matrix.md)) and returns the versions that one release name
    selects, so that a single variable, C(ascend_release), picks a matched set for every role.
  - The roles use it as the default of their version variables
    (C(npu_driver_version), C(npu_driver_firmware_version), C(cann_toolkit_version),
    C(ascend_runtime_version), C(device_plugin_version), C(exporter_version)); each of them can
    still be set on its own.
  - The driver is the release itself (its newest build where Huawei's packages carry one,
    C(23.0.rc2.2)); the CANN and MindCluster releases are the ones Huawei bundles with it; the
    Ascend Docker Runtime is the MindCluster release; the firmware is the one the matrix lists
    for the release and, where it lists one per NPU family, for O(family).
options:
  _terms:
    description:
      - The release name (an HDK release of the matrix, C(25.5.0), C(24.1.RC3)). Empty or
        omitted - the matrix's C(default_release).
    required: false
    type: list
    elements: str
  component:
    description:
      - The version to return. C(all) returns the whole set as a dictionary.
    type: str
    default: all
    choices: [all, driver, firmware, cann, runtime, mindcluster]
  family:
    description:
      - NPU family (C(910B), C(310P), ...) for a release whose firmware the matrix lists per family.
    type: str
  matrix_file:
    description: A site copy of C(data/version_matrix.yml) (same structure).
    type: path
notes:
  - Fails, naming the known releases, when the name is not a release of the matrix.
  - Returns an empty string for a O(component) the matrix does not name for the release (a
    firmware it lists only for other NPU families, no MindCluster before 23.0); the roles
    refuse an empty version, naming the variable to set. Roles template their argument specs,
    defaults included, even when the variable is set, so the lookup must not fail there.
"""

EXAMPLES = r"""
- name: Show what ascend_release 24.1.0 installs
  ansible.builtin.debug:
    msg: "{{ lookup('cubestudio.ascend.ascend_release', '24.1.0') }}"

# A role default: the driver of the release set, unless npu_driver_version is set.
- name: The driver version of the chosen release
  ansible.builtin.set_fact:
    wanted_driver: "{{ lookup('cubestudio.ascend.ascend_release', ascend_release | default(''), component='driver') }}"
"""

RETURN = r"""
_raw:
  description:
    - One element - the version string of O(component), or for C(all) a dictionary with the
      keys C(release), C(driver), C(firmware), C(cann), C(runtime), C(mindcluster) (a version
      or null) and C(guess) (true when the matrix marks a part of the set as not substantiated).
  type: list
  elements: raw
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.cubestudio.ascend.plugins.module_utils._compat._matrix import (
    MatrixError,
    release_set,
    validate_matrix,
)
from ansible_collections.cubestudio.ascend.plugins.plugin_utils._data_files import (
    DATA_DIR,
    load_data,
)

# Role defaults are templated at every use: read each matrix file once per (path, mtime).
_CACHE: dict = {}


def _matrix(path: str) -> dict:
    try:
        key = (path, os.stat(path).st_mtime_ns)
    except OSError as error:
        raise AnsibleLookupError(
            f"cannot read the version matrix {path}: {error.strerror}"
        ) from None
    if key not in _CACHE:
        try:
            _CACHE[key] = load_data(
                path, "version matrix", validate_matrix, MatrixError
            )
        except Exception as error:  # AnsibleActionFail of load_data, as a lookup error
            raise AnsibleLookupError(str(error)) from None
    return _CACHE[key]


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        component = self.get_option("component")
        path = self.get_option("matrix_file") or os.path.join(
            DATA_DIR, "version_matrix.yml"
        )
        names = [str(term) for term in terms or [] if term not in (None, "")]
        if len(names) > 1:
            raise AnsibleLookupError(
                f"ascend_release takes one release name, got {len(names)}: {names}"
            )
        try:
            chosen = release_set(
                _matrix(path), names[0] if names else None, self.get_option("family")
            )
        except MatrixError as error:
            raise AnsibleLookupError(str(error)) from None
        if component == "all":
            return [chosen]
        # Roles template their argument specs, defaults included, even when the variable is
        # set: a missing part is an empty string, which the role using it refuses by name.
        return [chosen[component] or ""]
