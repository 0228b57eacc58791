# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Connection plugin of `make bench` only (tools/bench.py; not part of the collection).

community.docker.docker, unchanged, except that it counts what it sends to the node: every
put_file (the size of the local file, and its name, so that Huawei's installers can be told
from Ansible's own module payloads) and every exec_command (the command line and the data
piped to it), and what comes back (stdout and stderr). One JSON line per operation is appended
to the file named by BENCH_BYTES_LOG (no file, no counting). tools/bench.py points
ANSIBLE_CONNECTION_PLUGINS here and sets `ansible_connection: bench_docker` in its inventory.

Its options are community.docker.docker's own (the same documentation, under this name), so
the same variables (ansible_host, ansible_docker_*) and settings apply.
"""

from __future__ import annotations

import json
import os

from ansible_collections.community.docker.plugins.connection import docker

# The plugin loader reads the options from the module's DOCUMENTATION attribute.
DOCUMENTATION = docker.DOCUMENTATION.replace(
    "name: docker\n", "name: bench_docker\n", 1
)


def _log(record):
    path = os.environ.get("BENCH_BYTES_LOG")
    if not path:
        return
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    # One write of one short line with O_APPEND: lines of parallel forks do not interleave.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def _size(data):
    if data is None:
        return 0
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    return len(data)


class Connection(docker.Connection):
    """community.docker.docker that counts the bytes it sends and receives."""

    def _host(self):
        try:
            return self.get_option("remote_addr")
        except Exception:  # only a label for the log
            return None

    def exec_command(self, cmd, in_data=None, sudoable=False):
        result = super().exec_command(cmd, in_data=in_data, sudoable=sudoable)
        _log(
            {
                "op": "exec",
                "host": self._host(),
                "sent": _size(cmd) + _size(in_data),
                "received": _size(result[1]) + _size(result[2]),
            }
        )
        return result

    def put_file(self, in_path, out_path):
        super().put_file(in_path, out_path)
        _log(
            {
                "op": "put",
                "host": self._host(),
                "file": os.path.basename(in_path),
                "sent": os.path.getsize(in_path),
                "received": 0,
            }
        )

    def fetch_file(self, in_path, out_path):
        super().fetch_file(in_path, out_path)
        _log(
            {
                "op": "fetch",
                "host": self._host(),
                "file": os.path.basename(in_path),
                "sent": 0,
                "received": os.path.getsize(out_path),
            }
        )
