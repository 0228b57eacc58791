# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What the node is and what was done to it: npu-smi, PCI, IOMMU, the chip map, the host, the HCCN
network, the plan of the layers, the node and layer records, the reuse of facts.
"""
