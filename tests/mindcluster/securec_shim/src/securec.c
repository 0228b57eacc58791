/* Copyright (c) 2026 cubestudio maintainers
 * GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stand-in libboundscheck functions (see securec.h). On an error the destination is left
 * an empty string, as libboundscheck does.
 */
#include <stdio.h>
#include <string.h>
#include "securec.h"

errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
    if (dest == NULL || destMax == 0) {
        return EINVAL;
    }
    if (count > destMax) {
        memset(dest, c, destMax);
        return ERANGE;
    }
    memset(dest, c, count);
    return EOK;
}

errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc)
{
    size_t len;
    if (strDest == NULL || destMax == 0) {
        return EINVAL;
    }
    if (strSrc == NULL) {
        strDest[0] = '\0';
        return EINVAL;
    }
    len = strlen(strSrc);
    if (len >= destMax) {
        strDest[0] = '\0';
        return ERANGE;
    }
    memmove(strDest, strSrc, len + 1);
    return EOK;
}

errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    size_t len;
    if (strDest == NULL || destMax == 0) {
        return EINVAL;
    }
    if (strSrc == NULL) {
        strDest[0] = '\0';
        return EINVAL;
    }
    len = strnlen(strSrc, count);
    if (len >= destMax) {
        strDest[0] = '\0';
        return ERANGE;
    }
    memmove(strDest, strSrc, len);
    strDest[len] = '\0';
    return EOK;
}

errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc)
{
    size_t destLen;
    size_t srcLen;
    if (strDest == NULL || destMax == 0) {
        return EINVAL;
    }
    if (strSrc == NULL) {
        strDest[0] = '\0';
        return EINVAL;
    }
    destLen = strnlen(strDest, destMax);
    srcLen = strlen(strSrc);
    if (destLen == destMax || destLen + srcLen >= destMax) {
        strDest[0] = '\0';
        return ERANGE;
    }
    memmove(strDest + destLen, strSrc, srcLen + 1);
    return EOK;
}

int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList)
{
    size_t limit;
    int ret;
    if (strDest == NULL || destMax == 0 || format == NULL) {
        return -1;
    }
    limit = count < destMax ? count + 1 : destMax;
    ret = vsnprintf(strDest, limit, format, argList);
    if (ret < 0 || (size_t)ret >= limit) {
        /* truncated: libboundscheck keeps the truncated text and answers -1 */
        return -1;
    }
    return ret;
}

int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
{
    va_list args;
    int ret;
    if (strDest == NULL || destMax == 0 || format == NULL) {
        return -1;
    }
    va_start(args, format);
    ret = vsnprintf(strDest, destMax, format, args);
    va_end(args);
    if (ret < 0 || (size_t)ret >= destMax) {
        strDest[0] = '\0';
        return -1;
    }
    return ret;
}

char *strtok_s(char *strToken, const char *strDelimit, char **context)
{
    if (context == NULL || strDelimit == NULL) {
        return NULL;
    }
    return strtok_r(strToken, strDelimit, context);
}
