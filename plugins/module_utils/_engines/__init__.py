# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The container engines the Ascend runtime goes into: docker's daemon.json, containerd's TOML
configuration, the kubelet's engine, the original configuration kept for uninstall, image loads
and the runtime role's steps.
"""
