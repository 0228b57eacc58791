# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PRIVATE to the cubestudio.ascend collection: where its data files are, and reading one.

load_data reads one of the collection's YAML data files (data/version_matrix.yml,
data/mindcluster.yml, or a site copy) and validates it. Kept apart from the action base classes
of plugin_utils._data, which import ansible.plugins.action: a filter that reads a data file
imports only this, and Ansible imports every filter file of the collection in each task's
worker that uses one of its filters (about 0.1 s per task when one of them pulled in the
action machinery).
"""

from __future__ import annotations

import os

import yaml
from ansible.errors import AnsibleActionFail

DATA_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data"
)


def load_data(path: str, what: str, validate, errors) -> dict:
    """Read and validate a data file; AnsibleActionFail with a clear reason otherwise."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except OSError as error:
        raise AnsibleActionFail(
            f"cannot read the {what} {path}: {error.strerror}"
        ) from None
    except yaml.YAMLError as error:
        raise AnsibleActionFail(
            f"the {what} {path} is not valid YAML: {error}"
        ) from None
    try:
        return validate(data)
    except errors as error:
        raise AnsibleActionFail(f"the {what} {path} is malformed: {error}") from None
