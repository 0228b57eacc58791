/*
 * Copyright (c) 2026 cubestudio maintainers
 * GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Simulated libdcmi.so of the cubestudio.ascend test simulator (tests/simulator/README.md).
 *
 * The simulated driver package installs this library as <driver>/lib64/driver/libdcmi.so. It
 * answers the DCMI calls from the "device view" that `ascend-sim` (hardware.save_state) writes
 * next to it, ascend-sim-dcmi.view, so that what a program sees through the library is what
 * npu-smi shows: health, error codes, temperature, the -8005 of a device that did not start.
 * The view is read again on every call (the simulator may change it at any time). A chip is
 * visible only while its /dev/davinci<logic id> exists, as npu-smi does: inside a container
 * that is what the runtime passed in.
 *
 * View format, one item per line, '#' comments:
 *   init <rc>                 result of dcmi_init (0, or -8005 when the device did not start)
 *   driver <version>          driver version (dcmi_get_driver_version)
 *   dev <dir>                 where the /dev/davinci<N> nodes are looked up
 *   chip key=value ...        one chip; keys below (chip_from_token)
 * Values are single tokens: "-" means none (the call answers -8255, not supported, unless noted),
 * "%20" stands for a space and "%25" for a percent sign. Every decision (what a model supports,
 * the network health) is made in Python (ascend_sim/dcmi.py); the library only reports it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dcmi_interface_api.h"

#define VIEW_NAME "ascend-sim-dcmi.view"
#define MAX_CHIPS 64
#define MAX_ERRORS 16
#define LINE_MAX_LEN 4096
#define MAX_PROCS 32 /* MindCluster passes room for 32 (MaxProcNum) */
#define TEXT_LEN 64

struct chip {
    int card, dev, logic, phy, slot, power, temp, nerr;
    unsigned int aicores, health, board, aicore_pct, vendor, device, subvendor, subdevice;
    long long hbm_used, hbm_total, ddr_used, ddr_total, hp_used, hp_total;
    int has_pcie, domain;
    unsigned int bus, pdev, func;
    unsigned int vdie[DIE_ID_COUNT], ndie[DIE_ID_COUNT], errors[MAX_ERRORS];
    char name[MAX_CHIP_NAME_LEN], npu_name[MAX_CHIP_NAME_LEN], version[MAX_CHIP_NAME_LEN];
    char product[TEXT_LEN], eprod[TEXT_LEN], serial[TEXT_LEN], vendor_name[TEXT_LEN];
    long long voltage, mainboard;      /* -1: not supported */
    int ecc;                           /* enum dcmi_device_type with ECC, -1: none */
    int has_util, has_pciebw, has_hccs, nethealth; /* nethealth -1: not supported */
    unsigned int util[4];              /* aic, aiv, aicore, npu */
    int nproc, proc_pid[MAX_PROCS];
    long long proc_mb[MAX_PROCS];
    int has_ip, has_mask;
    unsigned char ip[4], mask[4];
};

struct view {
    int init;
    char driver[64];
    char dev[PATH_MAX];
    int count;
    struct chip chips[MAX_CHIPS];
};

static pthread_once_t path_once = PTHREAD_ONCE_INIT;
static char view_path[PATH_MAX];
static int initialized;

/* The view file lives next to this library: <dir of libdcmi.so>/ascend-sim-dcmi.view. */
static void find_view_path(void)
{
    Dl_info info;
    if (dladdr((void *)find_view_path, &info) == 0 || info.dli_fname == NULL) {
        return;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir_len = slash == NULL ? 1 : (size_t)(slash - info.dli_fname);
    const char *dir = slash == NULL ? "." : info.dli_fname;
    snprintf(view_path, sizeof(view_path), "%.*s/%s", (int)dir_len, dir, VIEW_NAME);
}

/* Copies text into dst[size], cut to fit. */
static void copy_text(char *dst, size_t size, const char *text)
{
    size_t len = strlen(text);
    if (len >= size) {
        len = size - 1;
    }
    memcpy(dst, text, len);
    dst[len] = '\0';
}

/* Copies a view value into dst[size]: "-" is empty, %XX is the byte XX. */
static void copy_value(char *dst, size_t size, const char *text)
{
    size_t n = 0;
    if (strcmp(text, "-") == 0) {
        text = "";
    }
    while (*text != '\0' && n + 1 < size) {
        unsigned int byte;
        if (text[0] == '%' && sscanf(text + 1, "%2x", &byte) == 1 && text[1] != '\0' && text[2] != '\0') {
            dst[n++] = (char)byte;
            text += 3;
        } else {
            dst[n++] = *text++;
        }
    }
    dst[n] = '\0';
}

/* "a.b.c.d" into out[4]; 1 when it is one. */
static int parse_ipv4(const char *text, unsigned char *out)
{
    unsigned int a, b, c, d;
    char end;
    if (sscanf(text, "%u.%u.%u.%u%c", &a, &b, &c, &d, &end) != 4 || a > 255 || b > 255 || c > 255 ||
        d > 255) {
        return 0;
    }
    out[0] = (unsigned char)a;
    out[1] = (unsigned char)b;
    out[2] = (unsigned char)c;
    out[3] = (unsigned char)d;
    return 1;
}

/* "pid:MB,pid:MB" into the chip's process list. */
static void parse_procs(struct chip *c, const char *text)
{
    const char *p = text;
    c->nproc = 0;
    if (strcmp(text, "-") == 0) {
        return;
    }
    while (*p != '\0' && c->nproc < MAX_PROCS) {
        char *end = NULL;
        long pid = strtol(p, &end, 10);
        if (end == NULL || *end != ':') {
            break;
        }
        c->proc_pid[c->nproc] = (int)pid;
        c->proc_mb[c->nproc] = strtoll(end + 1, &end, 10);
        c->nproc++;
        if (end == NULL || *end != ',') {
            break;
        }
        p = end + 1;
    }
}

static long long parse_num(const char *text)
{
    if (strcmp(text, "-") == 0) {
        return -1;
    }
    return strtoll(text, NULL, 0);
}

/* "a/b" -> used a, total b; "-" -> -1, -1. */
static void parse_pair(const char *text, long long *used, long long *total)
{
    char *end = NULL;
    *used = -1;
    *total = -1;
    if (strcmp(text, "-") == 0) {
        return;
    }
    *used = strtoll(text, &end, 10);
    if (end != NULL && *end == '/') {
        *total = strtoll(end + 1, NULL, 10);
    }
}

/* "w1,w2,..." of numbers in base into out[max]; returns the count. */
static int parse_list(const char *text, unsigned int *out, int max, int base)
{
    int count = 0;
    const char *p = text;
    if (strcmp(text, "-") == 0) {
        return 0;
    }
    while (*p != '\0' && count < max) {
        char *end = NULL;
        out[count++] = (unsigned int)strtoul(p, &end, base);
        if (end == NULL || *end != ',') {
            break;
        }
        p = end + 1;
    }
    return count;
}

static void chip_from_token(struct chip *c, const char *key, const char *value)
{
    if (strcmp(key, "card") == 0) c->card = (int)parse_num(value);
    else if (strcmp(key, "dev") == 0) c->dev = (int)parse_num(value);
    else if (strcmp(key, "logic") == 0) c->logic = (int)parse_num(value);
    else if (strcmp(key, "phy") == 0) c->phy = (int)parse_num(value);
    else if (strcmp(key, "slot") == 0) c->slot = (int)parse_num(value);
    else if (strcmp(key, "name") == 0) copy_text(c->name, sizeof(c->name), value);
    else if (strcmp(key, "aicores") == 0) c->aicores = (unsigned int)parse_num(value);
    else if (strcmp(key, "health") == 0) c->health = (unsigned int)parse_num(value);
    else if (strcmp(key, "temp") == 0) c->temp = (int)parse_num(value);
    else if (strcmp(key, "power") == 0) c->power = (int)parse_num(value); /* 0.1 W, -1: none */
    else if (strcmp(key, "aicore") == 0) c->aicore_pct = (unsigned int)parse_num(value);
    else if (strcmp(key, "hbm") == 0) parse_pair(value, &c->hbm_used, &c->hbm_total);
    else if (strcmp(key, "ddr") == 0) parse_pair(value, &c->ddr_used, &c->ddr_total);
    else if (strcmp(key, "hugepages") == 0) parse_pair(value, &c->hp_used, &c->hp_total);
    else if (strcmp(key, "board") == 0) c->board = (unsigned int)parse_num(value);
    else if (strcmp(key, "vendor") == 0) c->vendor = (unsigned int)parse_num(value);
    else if (strcmp(key, "device") == 0) c->device = (unsigned int)parse_num(value);
    else if (strcmp(key, "subvendor") == 0) c->subvendor = (unsigned int)parse_num(value);
    else if (strcmp(key, "subdevice") == 0) c->subdevice = (unsigned int)parse_num(value);
    else if (strcmp(key, "vdie") == 0) parse_list(value, c->vdie, DIE_ID_COUNT, 16);
    else if (strcmp(key, "ndie") == 0) parse_list(value, c->ndie, DIE_ID_COUNT, 16);
    else if (strcmp(key, "errors") == 0) c->nerr = parse_list(value, c->errors, MAX_ERRORS, 16);
    else if (strcmp(key, "npuname") == 0) copy_value(c->npu_name, sizeof(c->npu_name), value);
    else if (strcmp(key, "ver") == 0) copy_value(c->version, sizeof(c->version), value);
    else if (strcmp(key, "product") == 0) copy_value(c->product, sizeof(c->product), value);
    else if (strcmp(key, "eprod") == 0) copy_value(c->eprod, sizeof(c->eprod), value);
    else if (strcmp(key, "serial") == 0) copy_value(c->serial, sizeof(c->serial), value);
    else if (strcmp(key, "maker") == 0) copy_value(c->vendor_name, sizeof(c->vendor_name), value);
    else if (strcmp(key, "voltage") == 0) c->voltage = parse_num(value); /* 0.01 V */
    else if (strcmp(key, "mainboard") == 0) c->mainboard = parse_num(value);
    else if (strcmp(key, "ecc") == 0) c->ecc = (int)parse_num(value);
    else if (strcmp(key, "util") == 0) c->has_util = parse_list(value, c->util, 4, 10) == 4;
    else if (strcmp(key, "pciebw") == 0) c->has_pciebw = parse_num(value) == 1;
    else if (strcmp(key, "hccs") == 0) c->has_hccs = parse_num(value) == 1;
    else if (strcmp(key, "procs") == 0) parse_procs(c, value);
    else if (strcmp(key, "ip") == 0) c->has_ip = parse_ipv4(value, c->ip);
    else if (strcmp(key, "mask") == 0) c->has_mask = parse_ipv4(value, c->mask);
    else if (strcmp(key, "nethealth") == 0) c->nethealth = (int)parse_num(value);
    else if (strcmp(key, "pcie") == 0 && strcmp(value, "-") != 0) {
        c->has_pcie = sscanf(value, "%x:%x:%x.%x", (unsigned int *)&c->domain, &c->bus, &c->pdev,
                             &c->func) == 4;
    }
}

static void parse_chip(struct chip *c, char *rest)
{
    char *save = NULL;
    memset(c, 0, sizeof(*c));
    c->power = -1;
    copy_text(c->version, sizeof(c->version), "V1"); /* a view without ver= (older writers) */
    c->voltage = c->mainboard = -1;
    c->ecc = c->nethealth = -1;
    c->hbm_used = c->hbm_total = c->ddr_used = c->ddr_total = c->hp_used = c->hp_total = -1;
    for (char *tok = strtok_r(rest, " \t\n", &save); tok != NULL; tok = strtok_r(NULL, " \t\n", &save)) {
        char *eq = strchr(tok, '=');
        if (eq != NULL) {
            *eq = '\0';
            chip_from_token(c, tok, eq + 1);
        }
    }
}

static int node_exists(const struct view *v, int logic)
{
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof(path), "%s/davinci%d", v->dev, logic);
    return lstat(path, &st) == 0;
}

/* Reads the view; keeps the visible chips and numbers them per card (dev = 0..n-1). */
static int load_view(struct view *v)
{
    char line[LINE_MAX_LEN];
    FILE *file;
    pthread_once(&path_once, find_view_path);
    memset(v, 0, sizeof(*v));
    v->init = DCMI_ERR_CODE_INNER_ERR;
    snprintf(v->dev, sizeof(v->dev), "/dev");
    file = view_path[0] == '\0' ? NULL : fopen(view_path, "re");
    if (file == NULL) {
        return DCMI_ERR_CODE_INNER_ERR; /* no driver state: the device did not start */
    }
    while (fgets(line, sizeof(line), file) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "init ", 5) == 0) {
            v->init = (int)strtol(line + 5, NULL, 10);
        } else if (strncmp(line, "driver ", 7) == 0) {
            copy_text(v->driver, sizeof(v->driver), line + 7);
        } else if (strncmp(line, "dev ", 4) == 0) {
            copy_text(v->dev, sizeof(v->dev), line + 4);
        } else if (strncmp(line, "chip ", 5) == 0 && v->count < MAX_CHIPS) {
            parse_chip(&v->chips[v->count], line + 5);
            v->count++;
        }
    }
    fclose(file);
    int kept = 0;
    for (int i = 0; i < v->count; i++) {
        if (node_exists(v, v->chips[i].logic)) {
            v->chips[kept++] = v->chips[i];
        }
    }
    v->count = kept;
    for (int i = 0; i < v->count; i++) {
        int index = 0;
        for (int j = 0; j < i; j++) {
            index += v->chips[j].card == v->chips[i].card;
        }
        v->chips[i].dev = index;
    }
    return v->init;
}

/* Loads the view for a call: DCMI_OK, or the error every call returns right now. */
static int ready(struct view *v)
{
    int rc = load_view(v);
    if (rc != DCMI_OK) {
        return rc;
    }
    return initialized ? DCMI_OK : DCMI_ERR_CODE_NOT_REDAY;
}

static const struct chip *find_chip(const struct view *v, int card, int dev)
{
    for (int i = 0; i < v->count; i++) {
        if (v->chips[i].card == card && v->chips[i].dev == dev) {
            return &v->chips[i];
        }
    }
    return NULL;
}

/* The common head of the per-chip calls: view loaded, chip found, output pointer given. */
#define CHIP_CALL(card, dev, out)                       \
    struct view view_;                                  \
    const struct chip *c;                               \
    int rc_ = ready(&view_);                            \
    if (rc_ != DCMI_OK) return rc_;                     \
    if ((out) == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER; \
    c = find_chip(&view_, (card), (dev));               \
    if (c == NULL) return DCMI_ERR_CODE_DEVICE_NOT_EXIST

static unsigned int percent(long long used, long long total)
{
    return total > 0 ? (unsigned int)((used * 100 + total / 2) / total) : 0;
}

int dcmi_init(void)
{
    struct view v;
    int rc = load_view(&v);
    initialized = rc == DCMI_OK;
    return rc;
}

int dcmi_get_driver_version(char *driver_ver, unsigned int len)
{
    struct view v;
    int rc = ready(&v);
    if (rc != DCMI_OK) return rc;
    if (driver_ver == NULL || len == 0) return DCMI_ERR_CODE_INVALID_PARAMETER;
    snprintf(driver_ver, len, "%s", v.driver);
    return DCMI_OK;
}

/* The DCMI version is the driver's version (MindCluster 26.1.0 labels the node with it as
 * huawei.com/driver.version); MindCluster passes a 33-byte buffer. */
int dcmi_get_dcmi_version(char *dcmi_ver, int buf_size)
{
    if (buf_size <= 0) return DCMI_ERR_CODE_INVALID_PARAMETER;
    return dcmi_get_driver_version(dcmi_ver, (unsigned int)buf_size);
}

int dcmi_get_card_list(int *card_num, int *card_list, int list_len)
{
    struct view v;
    int rc = ready(&v), count = 0;
    if (rc != DCMI_OK) return rc;
    if (card_num == NULL || card_list == NULL || list_len <= 0) return DCMI_ERR_CODE_INVALID_PARAMETER;
    for (int i = 0; i < v.count; i++) {
        if (v.chips[i].dev != 0) continue; /* one entry per card */
        if (count >= list_len) return DCMI_ERR_CODE_INVALID_PARAMETER;
        card_list[count++] = v.chips[i].card;
    }
    *card_num = count;
    return DCMI_OK;
}

int dcmi_get_card_num_list(int *card_num, int *card_list, int list_len)
{
    return dcmi_get_card_list(card_num, card_list, list_len);
}

int dcmi_get_device_num_in_card(int card_id, int *device_num)
{
    struct view v;
    int rc = ready(&v), count = 0;
    if (rc != DCMI_OK) return rc;
    if (device_num == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    for (int i = 0; i < v.count; i++) count += v.chips[i].card == card_id;
    if (count == 0) return DCMI_ERR_CODE_INVALID_DEVICE_ID;
    *device_num = count;
    return DCMI_OK;
}

int dcmi_get_device_id_in_card(int card_id, int *device_id_max, int *mcu_id, int *cpu_id)
{
    int rc = dcmi_get_device_num_in_card(card_id, device_id_max);
    if (rc != DCMI_OK) return rc;
    if (mcu_id == NULL || cpu_id == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    *mcu_id = -1;
    *cpu_id = -1;
    return DCMI_OK;
}

int dcmi_get_device_type(int card_id, int device_id, enum dcmi_unit_type *device_type)
{
    CHIP_CALL(card_id, device_id, device_type);
    (void)c;
    *device_type = NPU_TYPE;
    return DCMI_OK;
}

int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info)
{
    CHIP_CALL(card_id, device_id, chip_info);
    memset(chip_info, 0, sizeof(*chip_info));
    snprintf((char *)chip_info->chip_type, MAX_CHIP_NAME_LEN, "Ascend");
    snprintf((char *)chip_info->chip_name, MAX_CHIP_NAME_LEN, "%s", c->name);
    snprintf((char *)chip_info->chip_ver, MAX_CHIP_NAME_LEN, "%s", c->version);
    chip_info->aicore_cnt = c->aicores;
    return DCMI_OK;
}

/* MindCluster asks this one first (the v1 call is its fallback). */
int dcmi_get_device_chip_info_v2(int card_id, int device_id, struct dcmi_chip_info_v2 *chip_info)
{
    CHIP_CALL(card_id, device_id, chip_info);
    memset(chip_info, 0, sizeof(*chip_info));
    snprintf((char *)chip_info->chip_type, MAX_CHIP_NAME_LEN, "Ascend");
    snprintf((char *)chip_info->chip_name, MAX_CHIP_NAME_LEN, "%s", c->name);
    snprintf((char *)chip_info->chip_ver, MAX_CHIP_NAME_LEN, "%s", c->version);
    chip_info->aicore_cnt = c->aicores;
    snprintf((char *)chip_info->npu_name, MAX_CHIP_NAME_LEN, "%s", c->npu_name);
    return DCMI_OK;
}

int dcmi_get_device_pcie_info_v2(int card_id, int device_id, struct dcmi_pcie_info_all *pcie_info)
{
    CHIP_CALL(card_id, device_id, pcie_info);
    if (!c->has_pcie) return DCMI_ERR_CODE_NOT_SUPPORT;
    memset(pcie_info, 0, sizeof(*pcie_info));
    pcie_info->venderid = c->vendor;
    pcie_info->subvenderid = c->subvendor;
    pcie_info->deviceid = c->device;
    pcie_info->subdeviceid = c->subdevice;
    pcie_info->domain = c->domain;
    pcie_info->bdf_busid = c->bus;
    pcie_info->bdf_deviceid = c->pdev;
    pcie_info->bdf_funcid = c->func;
    return DCMI_OK;
}

int dcmi_get_device_board_info(int card_id, int device_id, struct dcmi_board_info *board_info)
{
    CHIP_CALL(card_id, device_id, board_info);
    board_info->board_id = c->board;
    board_info->pcb_id = 0;
    board_info->bom_id = 1;
    board_info->slot_id = (unsigned int)c->slot;
    return DCMI_OK;
}

int dcmi_get_device_health(int card_id, int device_id, unsigned int *health)
{
    CHIP_CALL(card_id, device_id, health);
    *health = c->health;
    return DCMI_OK;
}

int dcmi_get_device_errorcode_v2(int card_id, int device_id, int *error_count,
                                 unsigned int *error_code_list, unsigned int list_len)
{
    CHIP_CALL(card_id, device_id, error_count);
    if (error_code_list == NULL && c->nerr > 0) return DCMI_ERR_CODE_INVALID_PARAMETER;
    int count = c->nerr < (int)list_len ? c->nerr : (int)list_len;
    for (int i = 0; i < count; i++) error_code_list[i] = c->errors[i];
    *error_count = c->nerr;
    return DCMI_OK;
}

/* V1 call: the caller's buffer size is not passed, so only the first code is written. */
int dcmi_get_device_errorcode(int card_id, int device_id, int *error_count, unsigned int *error_code,
                              int *error_width)
{
    CHIP_CALL(card_id, device_id, error_count);
    if (error_code == NULL || error_width == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    *error_count = c->nerr;
    *error_code = c->nerr > 0 ? c->errors[0] : 0;
    *error_width = (int)sizeof(unsigned int);
    return DCMI_OK;
}

int dcmi_get_device_temperature(int card_id, int device_id, int *temperature)
{
    CHIP_CALL(card_id, device_id, temperature);
    *temperature = c->temp;
    return DCMI_OK;
}

int dcmi_get_device_power_info(int card_id, int device_id, int *power)
{
    CHIP_CALL(card_id, device_id, power);
    if (c->power < 0) return DCMI_ERR_CODE_NOT_SUPPORT; /* npu-smi shows NA or "-" */
    *power = c->power;
    return DCMI_OK;
}

int dcmi_get_device_frequency(int card_id, int device_id, enum dcmi_freq_type input_type,
                              unsigned int *frequency)
{
    CHIP_CALL(card_id, device_id, frequency);
    switch (input_type) {
    case DCMI_FREQ_AICORE_CURRENT_:
    case DCMI_FREQ_AICORE_MAX:
        *frequency = 1800;
        return DCMI_OK;
    case DCMI_FREQ_HBM:
        if (c->hbm_total < 0) return DCMI_ERR_CODE_NOT_SUPPORT;
        *frequency = 1600;
        return DCMI_OK;
    case DCMI_FREQ_DDR:
        if (c->ddr_total <= 0) return DCMI_ERR_CODE_NOT_SUPPORT;
        *frequency = 3200;
        return DCMI_OK;
    default:
        return DCMI_ERR_CODE_NOT_SUPPORT;
    }
}

/* input_type: 1 DDR memory, 2 AI core, 3 AI CPU, 4 control CPU, 5 DDR bandwidth, 6 HBM,
 * 10 HBM bandwidth, 12 vector core, 13 NPU (overall). */
int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type,
                                     unsigned int *utilization_rate)
{
    CHIP_CALL(card_id, device_id, utilization_rate);
    switch (input_type) {
    case 1:
    case 5:
        if (c->ddr_total <= 0) return DCMI_ERR_CODE_NOT_SUPPORT;
        *utilization_rate = input_type == 1 ? percent(c->ddr_used, c->ddr_total) : 0;
        return DCMI_OK;
    case 6:
    case 10:
        if (c->hbm_total < 0) return DCMI_ERR_CODE_NOT_SUPPORT;
        *utilization_rate = input_type == 6 ? percent(c->hbm_used, c->hbm_total) : 0;
        return DCMI_OK;
    case 2:
    case 12:
    case 13:
        *utilization_rate = c->aicore_pct;
        return DCMI_OK;
    case 3:
    case 4:
        *utilization_rate = 0;
        return DCMI_OK;
    default:
        return DCMI_ERR_CODE_NOT_SUPPORT;
    }
}

int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info)
{
    CHIP_CALL(card_id, device_id, hbm_info);
    if (c->hbm_total < 0) return DCMI_ERR_CODE_NOT_SUPPORT;
    memset(hbm_info, 0, sizeof(*hbm_info));
    hbm_info->memory_size = (unsigned long long)c->hbm_total;
    hbm_info->memory_usage = (unsigned long long)c->hbm_used;
    hbm_info->freq = 1600;
    hbm_info->temp = c->temp;
    hbm_info->bandwith_util_rate = 0;
    return DCMI_OK;
}

int dcmi_get_device_memory_info_v3(int card_id, int device_id,
                                   struct dcmi_get_memory_info_stru *memory_info)
{
    CHIP_CALL(card_id, device_id, memory_info);
    if (c->ddr_total <= 0) return DCMI_ERR_CODE_NOT_SUPPORT;
    memset(memory_info, 0, sizeof(*memory_info));
    memory_info->memory_size = (unsigned long long)c->ddr_total;
    memory_info->memory_available = (unsigned long long)(c->ddr_total - c->ddr_used);
    memory_info->freq = 3200;
    memory_info->hugepagesize = 2048;
    memory_info->hugepages_total = c->hp_total > 0 ? (unsigned long)c->hp_total : 0;
    memory_info->hugepages_free = c->hp_total > 0 ? (unsigned long)(c->hp_total - c->hp_used) : 0;
    memory_info->utiliza = percent(c->ddr_used, c->ddr_total);
    return DCMI_OK;
}

int dcmi_get_device_die_v2(int card_id, int device_id, enum dcmi_die_type input_type,
                           struct dcmi_die_id *die_id)
{
    CHIP_CALL(card_id, device_id, die_id);
    if (input_type != VDIE && input_type != NDIE) return DCMI_ERR_CODE_INVALID_PARAMETER;
    memcpy(die_id->soc_die, input_type == VDIE ? c->vdie : c->ndie, sizeof(die_id->soc_die));
    return DCMI_OK;
}

int dcmi_get_device_logic_id(int *device_logic_id, int card_id, int device_id)
{
    CHIP_CALL(card_id, device_id, device_logic_id);
    *device_logic_id = c->logic;
    return DCMI_OK;
}

/* Looks a chip up by logic id (by_phy == 0) or physical id. */
static int by_id(unsigned int id, int by_phy, struct view *v, const struct chip **out)
{
    int rc = ready(v);
    if (rc != DCMI_OK) return rc;
    for (int i = 0; i < v->count; i++) {
        if ((unsigned int)(by_phy ? v->chips[i].phy : v->chips[i].logic) == id) {
            *out = &v->chips[i];
            return DCMI_OK;
        }
    }
    return DCMI_ERR_CODE_DEVICE_NOT_EXIST;
}

int dcmi_get_device_phyid_from_logicid(unsigned int logicid, unsigned int *phyid)
{
    struct view v;
    const struct chip *c = NULL;
    if (phyid == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    int rc = by_id(logicid, 0, &v, &c);
    if (rc == DCMI_OK) *phyid = (unsigned int)c->phy;
    return rc;
}

int dcmi_get_device_logicid_from_phyid(unsigned int phyid, unsigned int *logicid)
{
    struct view v;
    const struct chip *c = NULL;
    if (logicid == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    int rc = by_id(phyid, 1, &v, &c);
    if (rc == DCMI_OK) *logicid = (unsigned int)c->logic;
    return rc;
}

int dcmi_get_card_id_device_id_from_logicid(int *card_id, int *device_id, unsigned int device_logic_id)
{
    struct view v;
    const struct chip *c = NULL;
    if (card_id == NULL || device_id == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    int rc = by_id(device_logic_id, 0, &v, &c);
    if (rc == DCMI_OK) {
        *card_id = c->card;
        *device_id = c->dev;
    }
    return rc;
}

int dcmi_get_card_id_device_id_from_phyid(int *card_id, int *device_id, unsigned int device_phy_id)
{
    struct view v;
    const struct chip *c = NULL;
    if (card_id == NULL || device_id == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    int rc = by_id(device_phy_id, 1, &v, &c);
    if (rc == DCMI_OK) {
        *card_id = c->card;
        *device_id = c->dev;
    }
    return rc;
}


/* ------------------------------------------------------------------ what Huawei's device plugin
 * and npu-exporter call besides the above (tests/simulator/README.md, "Simulated libdcmi.so"). */

/* The computing resources of a chip without virtual NPUs: total = free = the whole chip. */
static void fill_computing(const struct chip *c, struct dcmi_computing_resource *computing)
{
    computing->aic = (float)c->aicores;
    computing->memory_size = (unsigned long long)(c->hbm_total > 0 ? c->hbm_total
                                                  : (c->ddr_total > 0 ? c->ddr_total : 0));
}

/* main_cmd VDEV_MNG, sub 1 (total) and 2 (free): the chip's AI cores and memory, no vNPU
 * (vdev_num 0); HCCS sub 3 and 5: zero counters where the chip has HCCS. Everything else:
 * -8255. The caller passes the size of its structure in *size. */
int dcmi_get_device_info(int card_id, int device_id, enum dcmi_main_cmd main_cmd, unsigned int sub_cmd,
                         void *buf, unsigned int *size)
{
    CHIP_CALL(card_id, device_id, buf);
    if (size == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    if (main_cmd == DCMI_MAIN_CMD_VDEV_MNG && sub_cmd == DCMI_VMNG_SUB_CMD_GET_TOTAL_RESOURCE) {
        struct dcmi_soc_total_resource *total = buf;
        if (*size < sizeof(*total)) return DCMI_ERR_CODE_INVALID_PARAMETER;
        memset(total, 0, sizeof(*total));
        fill_computing(c, &total->computing);
        *size = sizeof(*total);
        return DCMI_OK;
    }
    if (main_cmd == DCMI_MAIN_CMD_VDEV_MNG && sub_cmd == DCMI_VMNG_SUB_CMD_GET_FREE_RESOURCE) {
        struct dcmi_soc_free_resource *free_res = buf;
        if (*size < sizeof(*free_res)) return DCMI_ERR_CODE_INVALID_PARAMETER;
        memset(free_res, 0, sizeof(*free_res));
        fill_computing(c, &free_res->computing);
        *size = sizeof(*free_res);
        return DCMI_OK;
    }
    if (main_cmd == DCMI_MAIN_CMD_HCCS && c->has_hccs &&
        (sub_cmd == DCMI_HCCS_SUB_CMD_GET_STATISTIC_INFO || sub_cmd == DCMI_HCCS_SUB_CMD_GET_STATISTIC_INFO_U64)) {
        size_t need = sub_cmd == DCMI_HCCS_SUB_CMD_GET_STATISTIC_INFO ? sizeof(struct dcmi_hccs_statistic_info)
                                                                       : sizeof(struct dcmi_hccs_statistic_info_u64);
        if (*size < need) return DCMI_ERR_CODE_INVALID_PARAMETER;
        memset(buf, 0, need);
        *size = (unsigned int)need;
        return DCMI_OK;
    }
    return DCMI_ERR_CODE_NOT_SUPPORT;
}

/* "Atlas 300I Duo" and the like on 310P cards; -8255 where the view has none (910B, A3). */
int dcmi_get_product_type(int card_id, int device_id, char *product_type_str, int buf_size)
{
    CHIP_CALL(card_id, device_id, product_type_str);
    if (buf_size <= 0) return DCMI_ERR_CODE_INVALID_PARAMETER;
    if (c->product[0] == '\0') return DCMI_ERR_CODE_NOT_SUPPORT;
    snprintf(product_type_str, (size_t)buf_size, "%s", c->product);
    return DCMI_OK;
}

int dcmi_get_mainboard_id(int card_id, int device_id, unsigned int *mainboard_id)
{
    CHIP_CALL(card_id, device_id, mainboard_id);
    if (c->mainboard < 0) return DCMI_ERR_CODE_NOT_SUPPORT;
    *mainboard_id = (unsigned int)c->mainboard;
    return DCMI_OK;
}

/* The card's electronic label (npu-smi info -t board -i N: Product Name, Model, Manufacturer,
 * Serial Number). */
int dcmi_get_card_elabel_v2(int card_id, struct dcmi_elabel_info *elabel_info)
{
    struct view view_;
    int rc = ready(&view_);
    if (rc != DCMI_OK) return rc;
    if (elabel_info == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    const struct chip *c = find_chip(&view_, card_id, 0);
    if (c == NULL) return DCMI_ERR_CODE_DEVICE_NOT_EXIST;
    memset(elabel_info, 0, sizeof(*elabel_info));
    snprintf(elabel_info->product_name, MAX_LENGTH, "%s", c->eprod);
    snprintf(elabel_info->manufacturer, MAX_LENGTH, "%s", c->vendor_name);
    snprintf(elabel_info->serial_number, MAX_LENGTH, "%s", c->serial);
    return DCMI_OK;
}

/* The card's power as its MCU measures it (0.1 W): the power of its first chip; -8255 where
 * npu-smi shows NA (310P cards; the exporter then reports no power). */
int dcmi_mcu_get_power_info(int card_id, int *power)
{
    struct view view_;
    int rc = ready(&view_);
    if (rc != DCMI_OK) return rc;
    if (power == NULL) return DCMI_ERR_CODE_INVALID_PARAMETER;
    const struct chip *c = find_chip(&view_, card_id, 0);
    if (c == NULL) return DCMI_ERR_CODE_DEVICE_NOT_EXIST;
    if (c->power < 0) return DCMI_ERR_CODE_NOT_SUPPORT;
    *power = c->power;
    return DCMI_OK;
}

/* 0.01 V (MindCluster multiplies by 0.01). */
int dcmi_get_device_voltage(int card_id, int device_id, unsigned int *voltage)
{
    CHIP_CALL(card_id, device_id, voltage);
    if (c->voltage < 0) return DCMI_ERR_CODE_NOT_SUPPORT;
    *voltage = (unsigned int)c->voltage;
    return DCMI_OK;
}

int dcmi_get_device_multi_utilization_rate(int card_id, int device_id,
                                           struct dcmi_multi_utilization_info *util_info)
{
    CHIP_CALL(card_id, device_id, util_info);
    if (!c->has_util) return DCMI_ERR_CODE_NOT_SUPPORT;
    memset(util_info, 0, sizeof(*util_info));
    util_info->aic_util = c->util[0];
    util_info->aiv_util = c->util[1];
    util_info->aicore_util = c->util[2];
    util_info->npu_util = c->util[3];
    return DCMI_OK;
}

/* ECC of the chip's memory (HBM on 910B/A3, DDR on 310P): enabled, no errors. */
int dcmi_get_device_ecc_info(int card_id, int device_id, enum dcmi_device_type input_type,
                             struct dcmi_ecc_info *device_ecc_info)
{
    CHIP_CALL(card_id, device_id, device_ecc_info);
    if (c->ecc < 0 || (int)input_type != c->ecc) return DCMI_ERR_CODE_NOT_SUPPORT;
    memset(device_ecc_info, 0, sizeof(*device_ecc_info));
    device_ecc_info->enable_flag = 1;
    return DCMI_OK;
}

/* V1 memory call: the DDR of the chip (as dcmi_get_device_memory_info_v3). */
int dcmi_get_memory_info(int card_id, int device_id, struct dcmi_memory_info_stru *device_memory_info)
{
    CHIP_CALL(card_id, device_id, device_memory_info);
    if (c->ddr_total <= 0) return DCMI_ERR_CODE_NOT_SUPPORT;
    memset(device_memory_info, 0, sizeof(*device_memory_info));
    device_memory_info->memory_size = (unsigned long long)c->ddr_total;
    device_memory_info->freq = 3200;
    device_memory_info->utiliza = percent(c->ddr_used, c->ddr_total);
    return DCMI_OK;
}

/* The processes on the chip, as npu-smi's process table shows them (memory in bytes here). The
 * caller's array has room for MAX_PROCS entries (the API passes no length). */
int dcmi_get_device_resource_info(int card_id, int device_id, struct dcmi_proc_mem_info *proc_info,
                                  int *proc_num)
{
    CHIP_CALL(card_id, device_id, proc_num);
    if (proc_info == NULL && c->nproc > 0) return DCMI_ERR_CODE_INVALID_PARAMETER;
    for (int i = 0; i < c->nproc; i++) {
        proc_info[i].proc_id = c->proc_pid[i];
        proc_info[i].proc_mem_usage = (unsigned long)c->proc_mb[i] * 1024UL * 1024UL;
    }
    *proc_num = c->nproc;
    return DCMI_OK;
}

/* An idle link: all bandwidths 0 over the profiling time the caller asked for. */
int dcmi_get_pcie_link_bandwidth_info(int card_id, int device_id,
                                      struct dcmi_pcie_link_bandwidth_info *pcie_link_bandwidth_info)
{
    CHIP_CALL(card_id, device_id, pcie_link_bandwidth_info);
    if (!c->has_pciebw) return DCMI_ERR_CODE_NOT_SUPPORT;
    int time = pcie_link_bandwidth_info->profiling_time;
    memset(pcie_link_bandwidth_info, 0, sizeof(*pcie_link_bandwidth_info));
    pcie_link_bandwidth_info->profiling_time = time;
    return DCMI_OK;
}

int dcmi_get_hccs_link_bandwidth_info(int card_id, int device_id,
                                      struct dcmi_hccs_bandwidth_info *hccs_bandwidth_info)
{
    CHIP_CALL(card_id, device_id, hccs_bandwidth_info);
    if (!c->has_hccs) return DCMI_ERR_CODE_NOT_SUPPORT;
    int time = hccs_bandwidth_info->profiling_time;
    memset(hccs_bandwidth_info, 0, sizeof(*hccs_bandwidth_info));
    hccs_bandwidth_info->profiling_time = time;
    return DCMI_OK;
}

/* The RoCE port's IPv4 address and netmask (set with hccn_tool -ip -s, or ascend-sim net set).
 * Not configured: -8008, INFERRED: hccn_tool -ip -g reports "no ip was preset" from the
 * driver's DRV_ERROR_NO_DEVICE, which DCMI returns as "device does not exist"; MindCluster then
 * tries IPv6 and leaves the IP empty. IPv6 is never configured here; the vNIC port: -8255. */
int dcmi_get_device_ip(int card_id, int device_id, enum dcmi_port_type input_type, int port_id,
                       struct dcmi_ip_addr *ip, struct dcmi_ip_addr *mask)
{
    CHIP_CALL(card_id, device_id, ip);
    if (mask == NULL || port_id != 0) return DCMI_ERR_CODE_INVALID_PARAMETER;
    if (input_type != DCMI_ROCE_PORT) return DCMI_ERR_CODE_NOT_SUPPORT;
    if (ip->ip_type != DCMI_IPADDR_TYPE_V4 || !c->has_ip) return DCMI_ERR_CODE_DEVICE_NOT_EXIST;
    memset(ip, 0, sizeof(*ip));
    memset(mask, 0, sizeof(*mask));
    memcpy(ip->u_addr.ip4, c->ip, 4);
    if (c->has_mask) memcpy(mask->u_addr.ip4, c->mask, 4);
    ip->ip_type = mask->ip_type = DCMI_IPADDR_TYPE_V4;
    return DCMI_OK;
}

/* The detection result the view carries (computed in ascend_sim/dcmi.py). */
int dcmi_get_device_network_health(int card_id, int device_id, enum dcmi_rdfx_detect_result *result)
{
    CHIP_CALL(card_id, device_id, result);
    if (c->nethealth < 0) return DCMI_ERR_CODE_NOT_SUPPORT;
    *result = (enum dcmi_rdfx_detect_result)c->nethealth;
    return DCMI_OK;
}

/* Fault events are not delivered: the subscription fails with -8255, as the call of a driver
 * without event support does, and Huawei's device plugin then polls dcmi_get_device_errorcode_v2
 * every -listWatchPeriod (tests/simulator/README.md says why). */
int dcmi_subscribe_fault_event(int card_id, int device_id, struct dcmi_event_filter filter,
                               dcmi_fault_event_callback handler)
{
    struct view view_;
    int rc = ready(&view_);
    (void)card_id;
    (void)device_id;
    (void)filter;
    (void)handler;
    return rc != DCMI_OK ? rc : DCMI_ERR_CODE_NOT_SUPPORT;
}
