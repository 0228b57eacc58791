# Copyright (c) 2026 cubestudio maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The version compatibility of cubestudio.ascend.ascend_compat: the matrix (validation and lookup),
the evaluation of versions into findings, and which findings refuse an install.
"""
