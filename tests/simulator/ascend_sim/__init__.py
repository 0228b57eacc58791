# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Simulated Huawei Ascend node: hardware, installers, npu-smi and the container runtime.

Test fixture of cubestudio.ascend (never shipped in the collection). Standard library only:
the same code runs on the test host and inside the Debian 12 node container.

Modules marked "standalone" (npusmi, lspci, runtime_wrapper, engine_config, makeself_boot)
import nothing from this package: they are copied as single-file programs onto the node
(``/usr/local/sbin/npu-smi``, the ``lspci`` shim, ``ascend-docker-runtime``, ...).
"""

__version__ = "1.0.0"
