# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ansible-playbook against the test bed's node, and readers of its output (role tests)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from bed import WORKLOAD_IMAGE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAYBOOK = os.path.join(ROOT, "tests", "testbed", "playbooks", "device_plugin.yml")
ARCHIVE = os.path.join(
    ROOT, ".build", "images", "mindcluster", "ascend-k8sdeviceplugin_v7.3.0_x86_64.tar"
)
IMAGE = "docker.io/library/ascend-k8sdeviceplugin:v7.3.0"
SITE = os.path.join(ROOT, "playbooks", "site.yml")
DOCTOR = os.path.join(ROOT, "playbooks", "doctor.yml")
IMAGES = os.path.join(ROOT, ".build", "images", "mindcluster")
# The MindCluster release of each release set the bed has image tarballs of (make mindcluster).
MINDCLUSTER = {"25.5.0": "7.3.0", "26.1.0": "26.1.0"}


def inventory(containers, variables=None):
    """An inventory of the controller and the simulated nodes `containers` (group ascend_nodes)."""
    return {
        "all": {
            "hosts": {
                "localhost": {
                    "ansible_connection": "local",
                    "ansible_python_interpreter": sys.executable,
                }
            },
            "children": {
                "ascend_nodes": {
                    "hosts": {
                        container: {
                            "ansible_connection": "community.docker.docker",
                            "ansible_python_interpreter": "/usr/bin/python3",
                        }
                        for container in containers
                    },
                    "vars": dict(variables or {}),
                }
            },
        }
    }


def image_archives(release):
    """The device plugin's and the exporter's image tarballs of a release set, as variables."""
    version = MINDCLUSTER[release]
    return {
        "device_plugin_image_archive": os.path.join(
            IMAGES, "ascend-k8sdeviceplugin_v%s_x86_64.tar" % version
        ),
        "exporter_image_archive": os.path.join(
            IMAGES, "npu-exporter_v%s_x86_64.tar" % version
        ),
    }


def site_variables(kubeconfig, artifacts, **extra):
    """The group variables of site.yml on the bed's nodes, as an operator writes them
    (tools/demo.sh): the packages in `artifacts` with their sha256 (artifacts.json), the
    Kubernetes layer with the bed's admin kubeconfig, no registry."""
    with open(os.path.join(artifacts, "artifacts.json"), encoding="utf-8") as handle:
        checksums = {item["file"]: item["sha256"] for item in json.load(handle)}
    variables = {
        # The simulator's PCI devices (the collection's one test hook).
        "ascend_sysfs_root": "/var/lib/ascend-sim/sys",
        "ascend_artifact_local_dir": artifacts,
        "ascend_artifact_checksums": checksums,
        # Debian 12 is no OS Huawei lists.
        "ascend_compat_policy": "tolerant",
        "ascend_runtime_verify_image": WORKLOAD_IMAGE,
        "ascend_kubernetes": True,
        "ascend_kubeconfig": kubeconfig,
        "device_plugin_smoke_image": WORKLOAD_IMAGE,
        "device_plugin_node_labels": {"accelerate": "ascend"},
        "device_plugin_wait_timeout": 180,
        "exporter_wait_timeout": 180,
    }
    variables.update(extra)
    return variables


def recaps(output):
    """{host: {ok, changed, ...}} of every host in the PLAY RECAP."""
    block = output.rsplit("PLAY RECAP", 1)[-1]
    return {
        host: {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", stats)}
        for host, stats in re.findall(r"^(\S+)\s*:\s*(ok=.*)$", block, re.M)
    }


def run_playbook(inventory_file, book, extra_vars, *args, timeout=900):
    """ansible-playbook `book` with the checkout's ansible.cfg and collections; (rc, output)."""
    env = dict(
        os.environ,
        ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"),
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_NOCOLOR="1",
    )
    proc = subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), "ansible-playbook"),
            "-i",
            str(inventory_file),
            "-e",
            extra_vars,
            book,
        ]
        + list(args),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=timeout,
        check=False,
    )
    return proc.returncode, proc.stdout.decode(errors="replace")


def playbook(cluster, tmp_path, *args, book=PLAYBOOK, host=None, **extra_vars):
    """ansible-playbook `book` against the bed's node (or the container `host`); (rc, output)."""
    variables = {
        "ascend_kubeconfig": cluster.bed.kubeconfig,
        "device_plugin_image_archive": ARCHIVE,
        "device_plugin_smoke_image": WORKLOAD_IMAGE,
        "device_plugin_node_labels": {"accelerate": "ascend"},
        "device_plugin_wait_timeout": 120,
        "exporter_image_archive": ARCHIVE.replace(
            "ascend-k8sdeviceplugin_", "npu-exporter_"
        ),
        "exporter_wait_timeout": 120,
        # The simulator's PCI devices (the collection's one test hook).
        "ascend_sysfs_root": "/var/lib/ascend-sim/sys",
    }
    variables.update(extra_vars)
    (tmp_path / "inventory.json").write_text(
        json.dumps(inventory([host or cluster.container]))
    )
    (tmp_path / "vars.json").write_text(json.dumps(variables))
    return run_playbook(
        tmp_path / "inventory.json", book, "@" + str(tmp_path / "vars.json"), *args
    )


def recap(output, host):
    match = re.search(r"^%s\s*:\s*(.*)$" % re.escape(host), output, re.M)
    assert match, output
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", match.group(1))}


def task_status(output, name, role="device_plugin"):
    """ok, changed, failed or skipping: the first result line after the task's header.

    `name` is the task's whole name."""
    match = re.search(
        r"^TASK \[cubestudio\.ascend\.%s : %s\] \**\n(\w+)" % (role, re.escape(name)),
        output,
        re.M,
    )
    assert match, "task %r not in the output:\n%s" % (name, output)
    return match.group(1)


# The Kubernetes releases MindCluster supports that kubernetes-validate has schemas of.
SCHEMA_VERSIONS = ["1.%d.0" % minor for minor in range(26, 35)]


def validate_schemas(path):
    """Every object of a rendered file against the published schemas of 1.26 to 1.34 (strict:
    an unknown field fails); returns the kinds checked."""
    import kubernetes_validate
    import yaml

    with open(path, encoding="utf-8") as handle:
        docs = [doc for doc in yaml.safe_load_all(handle) if doc]
    for version in SCHEMA_VERSIONS:
        for doc in docs:
            kubernetes_validate.validate(doc, version, strict=True)
    return [doc["kind"] for doc in docs]
