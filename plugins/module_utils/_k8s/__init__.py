# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What runs on Kubernetes: the MindCluster device plugin and exporter (their plans and alert rules),
the Kubernetes objects' records and the smoke test's verdict.
"""
