# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What installs Huawei's packages: the .run installers' options and output, the installed files, the
driver and CANN steps, signatures, disk space, whether the NPUs are in use.
"""
