/* Copyright (c) 2026 cubestudio maintainers
 * GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * securec.h of a stand-in for Huawei's libboundscheck (openeuler libboundscheck, not packaged by
 * Debian and not in MindCluster's source): only the functions that ascend-docker-runtime's cli and
 * destroy call, with libboundscheck's signatures and return conventions (EOK / errno value for the
 * copy functions, the length or -1 for the printf family). tests/mindcluster/build_docker_runtime.sh
 * puts it where Huawei's CMakeLists look for it (platform/libboundscheck/{include,src}) in a scratch
 * copy of the source; see tests/mindcluster/README.md.
 */
#ifndef SECUREC_SHIM_H
#define SECUREC_SHIM_H
/* libboundscheck's securec.h brings these in (through securectype.h); the cli relies on it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

typedef int errno_t;
#ifndef EOK
#define EOK 0
#endif

errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);
errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);
int sprintf_s(char *strDest, size_t destMax, const char *format, ...);
int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList);
char *strtok_s(char *strToken, const char *strDelimit, char **context);
/* libboundscheck's "performance" variant of strcat_s: same contract. */
#define strcat_sp(dest, destMax, src) strcat_s((dest), (destMax), (src))

#endif
