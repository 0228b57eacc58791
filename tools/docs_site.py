# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSES or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Build the collection's docs site with antsibull-docs and Sphinx into .build/docs, offline.

    python tools/docs_site.py     (run by `make docs-site`, with .build/venv-galaxy first on PATH)

1. `antsibull-docs sphinx-init --use-current` writes the Sphinx project Ansible's own collection
   sites use (conf.py, build.sh) into .build/docs;
2. the links to Ansible's documentation (common return values, ansible.builtin modules, ...)
   resolve through a small intersphinx inventory written here (ANSIBLE_LABELS), instead of
   docs.ansible.com's objects.inv, which this machine cannot download: the links still point at
   docs.ansible.com;
3. build.sh renders every plugin and role page (antsibull-docs collection --fail-on-error) and
   runs sphinx-build -W: any warning (an option reference that does not resolve, bad markup)
   fails the build. A new reference to Ansible's documentation needs its line below.

The site is .build/docs/build/html/index.html.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEST = ROOT / ".build" / "docs"
COLLECTIONS = ROOT / ".build" / "collections"
ANSIBLE_DOCS = "https://docs.ansible.com/projects/ansible/devel/"

# label -> page of Ansible's documentation (under ANSIBLE_DOCS) that the generated pages link to.
ANSIBLE_LABELS = {
    "common_return_values": "reference_appendices/common_return_values.html",
    "action_plugins": "plugins/action.html",
    "ansible_configuration_settings": "reference_appendices/config.html",
    "ansible_collections.ansible.builtin.reboot_module": "collections/ansible/builtin/reboot_module.html",
    "ansible_collections.kubernetes.core.k8s_info_module": "collections/kubernetes/core/k8s_info_module.html",
}


def write_inventory(path: Path) -> None:
    """An intersphinx inventory (format version 2) of ANSIBLE_LABELS."""
    head = (
        "# Sphinx inventory version 2\n"
        "# Project: Ansible\n"
        "# Version: devel\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(
        "%s std:label -1 %s %s\n" % (label, page, label)
        for label, page in sorted(ANSIBLE_LABELS.items())
    )
    path.write_bytes(head.encode() + zlib.compress(body.encode()))


def main() -> int:
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(COLLECTIONS))
    shutil.rmtree(DEST, ignore_errors=True)
    DEST.mkdir(parents=True)
    subprocess.run(
        [
            "antsibull-docs",
            "sphinx-init",
            "--use-current",
            "--fail-on-error",
            "--dest-dir",
            str(DEST),
            "cubestudio.ascend",
        ],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    conf = DEST / "conf.py"
    text = conf.read_text()
    start = text.index("intersphinx_mapping = {")
    end = text.index("\n}\n", start) + 3
    text = (
        text[:start]
        + "intersphinx_mapping = {\n    'ansible_devel': (%r, '../ansible_devel.inv'),\n}\n"
        % ANSIBLE_DOCS
        + text[end:]
    )
    text = text.replace(
        "project = 'Ansible collections'", "project = 'cubestudio.ascend'"
    )
    conf.write_text(text)
    write_inventory(DEST / "ansible_devel.inv")
    done = subprocess.run(["bash", str(DEST / "build.sh")], env=env, check=False)
    if done.returncode == 0:
        print("docs site: %s" % (DEST / "build" / "html" / "index.html"))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
