/*
 * Copyright (c) 2026 cubestudio maintainers
 * GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The part of Huawei's DCMI API (dcmi_interface_api.h of the Ascend driver) that the simulated
 * libdcmi.so implements: function names, argument lists, structure layouts and error codes as
 * the public DCMI API reference documents them. Written for the cubestudio.ascend simulator;
 * the stand-ins of tests/simulator/k8s declare the same prototypes and dlopen() the library.
 */
#ifndef ASCEND_SIM_DCMI_INTERFACE_API_H
#define ASCEND_SIM_DCMI_INTERFACE_API_H

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_CHIP_NAME_LEN 32
#define DIE_ID_COUNT 5

#define DCMI_OK 0
#define DCMI_ERROR_CODE_BASE (-8000)
#define DCMI_ERR_CODE_INVALID_PARAMETER (DCMI_ERROR_CODE_BASE - 1)
#define DCMI_ERR_CODE_INNER_ERR (DCMI_ERROR_CODE_BASE - 5) /* -8005: "device not started" */
#define DCMI_ERR_CODE_INVALID_DEVICE_ID (DCMI_ERROR_CODE_BASE - 7)
#define DCMI_ERR_CODE_DEVICE_NOT_EXIST (DCMI_ERROR_CODE_BASE - 8)
#define DCMI_ERR_CODE_NOT_REDAY (DCMI_ERROR_CODE_BASE - 12) /* sic, as in the API */
#define DCMI_ERR_CODE_NOT_SUPPORT (DCMI_ERROR_CODE_BASE - 255)

enum dcmi_unit_type { NPU_TYPE = 0, MCU_TYPE = 1, CPU_TYPE = 2, INVALID_TYPE = 0xFF };
enum dcmi_die_type { NDIE = 0, VDIE = 1, DDIE = 2, INVALID_DIE = 3 };
enum dcmi_freq_type {
    DCMI_FREQ_DDR = 1,
    DCMI_FREQ_CTRLCPU = 2,
    DCMI_FREQ_HBM = 6,
    DCMI_FREQ_AICORE_CURRENT_ = 7,
    DCMI_FREQ_AICORE_MAX = 9,
    DCMI_FREQ_VECTORCORE_CURRENT = 12
};

struct dcmi_chip_info {
    unsigned char chip_type[MAX_CHIP_NAME_LEN];
    unsigned char chip_name[MAX_CHIP_NAME_LEN];
    unsigned char chip_ver[MAX_CHIP_NAME_LEN];
    unsigned int aicore_cnt;
};

struct dcmi_pcie_info_all {
    unsigned int venderid;
    unsigned int subvenderid;
    unsigned int deviceid;
    unsigned int subdeviceid;
    int domain;
    unsigned int bdf_busid;
    unsigned int bdf_deviceid;
    unsigned int bdf_funcid;
    unsigned char reserve[32];
};

struct dcmi_board_info {
    unsigned int board_id;
    unsigned int pcb_id;
    unsigned int bom_id;
    unsigned int slot_id;
};

struct dcmi_hbm_info {
    unsigned long long memory_size;  /* MB */
    unsigned int freq;               /* MHz */
    unsigned long long memory_usage; /* MB */
    int temp;
    unsigned int bandwith_util_rate;
};

struct dcmi_get_memory_info_stru {
    unsigned long long memory_size;      /* MB */
    unsigned long long memory_available; /* MB */
    unsigned int freq;
    unsigned long hugepagesize; /* KB */
    unsigned long hugepages_total;
    unsigned long hugepages_free;
    unsigned int utiliza;
    unsigned char reserve[60];
};

struct dcmi_die_id {
    unsigned int soc_die[DIE_ID_COUNT];
};

int dcmi_init(void);
int dcmi_get_dcmi_version(char *dcmi_ver, unsigned int len);
int dcmi_get_driver_version(char *driver_ver, unsigned int len);
int dcmi_get_card_num_list(int *card_num, int *card_list, int list_len);
int dcmi_get_card_list(int *card_num, int *card_list, int list_len);
int dcmi_get_device_num_in_card(int card_id, int *device_num);
int dcmi_get_device_id_in_card(int card_id, int *device_id_max, int *mcu_id, int *cpu_id);
int dcmi_get_device_type(int card_id, int device_id, enum dcmi_unit_type *device_type);
int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info);
int dcmi_get_device_pcie_info_v2(int card_id, int device_id, struct dcmi_pcie_info_all *pcie_info);
int dcmi_get_device_board_info(int card_id, int device_id, struct dcmi_board_info *board_info);
int dcmi_get_device_health(int card_id, int device_id, unsigned int *health);
int dcmi_get_device_errorcode_v2(int card_id, int device_id, int *error_count,
                                 unsigned int *error_code_list, unsigned int list_len);
int dcmi_get_device_errorcode(int card_id, int device_id, int *error_count, unsigned int *error_code,
                              int *error_width);
int dcmi_get_device_temperature(int card_id, int device_id, int *temperature);
int dcmi_get_device_power_info(int card_id, int device_id, int *power);
int dcmi_get_device_frequency(int card_id, int device_id, enum dcmi_freq_type input_type,
                              unsigned int *frequency);
int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type,
                                     unsigned int *utilization_rate);
int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info);
int dcmi_get_device_memory_info_v3(int card_id, int device_id,
                                   struct dcmi_get_memory_info_stru *memory_info);
int dcmi_get_device_die_v2(int card_id, int device_id, enum dcmi_die_type input_type,
                           struct dcmi_die_id *die_id);
int dcmi_get_device_logic_id(int *device_logic_id, int card_id, int device_id);
int dcmi_get_device_phyid_from_logicid(unsigned int logicid, unsigned int *phyid);
int dcmi_get_device_logicid_from_phyid(unsigned int phyid, unsigned int *logicid);
int dcmi_get_card_id_device_id_from_logicid(int *card_id, int *device_id, unsigned int device_logic_id);
int dcmi_get_card_id_device_id_from_phyid(int *card_id, int *device_id, unsigned int device_phy_id);

#ifdef __cplusplus
}
#endif
#endif
