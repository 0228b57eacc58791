/*
 * Copyright (c) 2026 cubestudio maintainers
 * GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The part of Huawei's DCMI API (dcmi_interface_api.h of the Ascend driver) that the simulated
 * libdcmi.so implements: function names, argument lists, structure layouts and error codes as
 * the public DCMI API reference documents them. Written for the cubestudio.ascend simulator;
 * Huawei's device plugin and npu-exporter (tests/mindcluster) dlopen() the library built from it.
 */
#ifndef ASCEND_SIM_DCMI_INTERFACE_API_H
#define ASCEND_SIM_DCMI_INTERFACE_API_H

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_CHIP_NAME_LEN 32
#define DIE_ID_COUNT 5
#define AGENTDRV_PROF_DATA_NUM 3
#define MAX_LENGTH 256 /* elabel fields */
#define DCMI_UTIL_RESERVED_LEN 8
#define DCMI_VDEV_FOR_RESERVE 32
#define DCMI_VDEV_SIZE 20
#define DCMI_SOC_SPLIT_MAX 32
#define DCMI_MAX_EVENT_NAME_LENGTH 256
#define DCMI_MAX_EVENT_DATA_LENGTH 32
#define DCMI_MAX_EVENT_RESV_LENGTH 32
#define HCCS_MAX_PCS_NUM 16
#define HCCS_RES_PCS_NUM 64

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
enum dcmi_device_type {
    DCMI_DEVICE_TYPE_DDR = 0,
    DCMI_DEVICE_TYPE_SRAM = 1,
    DCMI_DEVICE_TYPE_HBM = 2,
    DCMI_DEVICE_TYPE_NPU = 3,
    DCMI_DEVICE_TYPE_NONE = 0xff
};
enum dcmi_ip_addr_type { DCMI_IPADDR_TYPE_V4 = 0, DCMI_IPADDR_TYPE_V6 = 1, DCMI_IPADDR_TYPE_ANY = 2 };
enum dcmi_port_type { DCMI_VNIC_PORT = 0, DCMI_ROCE_PORT = 1, DCMI_INVALID_PORT };
/* Result of the NPU port's detection (ping of the netdetect address); hccn_tool -net_health -g
 * prints the same numbers as Success, Socket fail, ..., Detect ip set. */
enum dcmi_rdfx_detect_result {
    DCMI_RDFX_DETECT_OK = 0,
    DCMI_RDFX_DETECT_SOCK_FAIL = 1,
    DCMI_RDFX_DETECT_RECV_TIMEOUT = 2,
    DCMI_RDFX_DETECT_UNREACH = 3,
    DCMI_RDFX_DETECT_TIME_EXCEEDED = 4,
    DCMI_RDFX_DETECT_FAULT = 5,
    DCMI_RDFX_DETECT_INIT = 6,
    DCMI_RDFX_DETECT_THREAD_ERR = 7,
    DCMI_RDFX_DETECT_IP_SET = 8,
    DCMI_RDFX_DETECT_MAX = 0xFF
};
enum dcmi_main_cmd {
    DCMI_MAIN_CMD_DVPP = 0,
    DCMI_MAIN_CMD_CHIP_INF = 12,
    DCMI_MAIN_CMD_HCCS = 16,
    DCMI_MAIN_CMD_TEMP = 50,
    DCMI_MAIN_CMD_SVM = 51,
    DCMI_MAIN_CMD_VDEV_MNG = 52,
    DCMI_MAIN_CMD_SIO = 56,
    DCMI_MAIN_CMD_DEVICE_SHARE = 0x8001,
    DCMI_MAIN_CMD_MAX
};
/* Sub-commands of DCMI_MAIN_CMD_VDEV_MNG and DCMI_MAIN_CMD_HCCS. */
#define DCMI_VMNG_SUB_CMD_GET_VDEV_RESOURCE 0
#define DCMI_VMNG_SUB_CMD_GET_TOTAL_RESOURCE 1
#define DCMI_VMNG_SUB_CMD_GET_FREE_RESOURCE 2
#define DCMI_VMNG_SUB_CMD_GET_VDEV_ACTIVITY 5
#define DCMI_HCCS_SUB_CMD_GET_STATISTIC_INFO 3
#define DCMI_HCCS_SUB_CMD_GET_STATISTIC_INFO_U64 5
enum dcmi_event_type { DCMI_DMS_FAULT_EVENT = 0 };

struct dcmi_chip_info {
    unsigned char chip_type[MAX_CHIP_NAME_LEN];
    unsigned char chip_name[MAX_CHIP_NAME_LEN];
    unsigned char chip_ver[MAX_CHIP_NAME_LEN];
    unsigned int aicore_cnt;
};

struct dcmi_chip_info_v2 {
    unsigned char chip_type[MAX_CHIP_NAME_LEN];
    unsigned char chip_name[MAX_CHIP_NAME_LEN];
    unsigned char chip_ver[MAX_CHIP_NAME_LEN];
    unsigned int aicore_cnt;
    unsigned char npu_name[MAX_CHIP_NAME_LEN];
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

/* The V1 memory call (dcmi_get_memory_info). */
struct dcmi_memory_info_stru {
    unsigned long long memory_size; /* MB */
    unsigned int freq;
    unsigned int utiliza;
};

struct dcmi_die_id {
    unsigned int soc_die[DIE_ID_COUNT];
};

struct dcmi_ecc_info {
    int enable_flag;
    unsigned int single_bit_error_cnt;
    unsigned int double_bit_error_cnt;
    unsigned int total_single_bit_error_cnt;
    unsigned int total_double_bit_error_cnt;
    unsigned int single_bit_isolated_pages_cnt;
    unsigned int double_bit_isolated_pages_cnt;
    unsigned int single_bit_next_isolated_pages_cnt;
    unsigned int double_bit_next_isolated_pages_cnt;
};

struct dcmi_ip_addr {
    union {
        unsigned char ip6[16];
        unsigned char ip4[4];
    } u_addr;
    enum dcmi_ip_addr_type ip_type;
};

struct dcmi_multi_utilization_info {
    unsigned int aic_util;
    unsigned int aiv_util;
    unsigned int aicore_util;
    unsigned int npu_util;
    unsigned int reserved[DCMI_UTIL_RESERVED_LEN];
};

struct dcmi_proc_mem_info {
    int proc_id;
    unsigned long proc_mem_usage; /* bytes */
};

struct dcmi_pcie_link_bandwidth_info {
    int profiling_time; /* in: ms */
    unsigned int tx_p_bw[AGENTDRV_PROF_DATA_NUM]; /* min, max, average */
    unsigned int tx_np_bw[AGENTDRV_PROF_DATA_NUM];
    unsigned int tx_cpl_bw[AGENTDRV_PROF_DATA_NUM];
    unsigned int tx_np_lantency[AGENTDRV_PROF_DATA_NUM];
    unsigned int rx_p_bw[AGENTDRV_PROF_DATA_NUM];
    unsigned int rx_np_bw[AGENTDRV_PROF_DATA_NUM];
    unsigned int rx_cpl_bw[AGENTDRV_PROF_DATA_NUM];
};

struct dcmi_hccs_bandwidth_info {
    int profiling_time; /* in: ms */
    double total_txbw;
    double total_rxbw;
    double tx_bandwidth[HCCS_MAX_PCS_NUM];
    double rx_bandwidth[HCCS_MAX_PCS_NUM];
};

struct dcmi_hccs_statistic_info {
    unsigned int tx_cnt[HCCS_MAX_PCS_NUM];
    unsigned int rx_cnt[HCCS_MAX_PCS_NUM];
    unsigned int crc_err_cnt[HCCS_MAX_PCS_NUM];
    unsigned int retry_cnt[HCCS_MAX_PCS_NUM];
    unsigned int reserved_field_cnt[HCCS_RES_PCS_NUM];
};

struct dcmi_hccs_statistic_info_u64 {
    unsigned long long tx_cnt[HCCS_MAX_PCS_NUM];
    unsigned long long rx_cnt[HCCS_MAX_PCS_NUM];
    unsigned long long crc_err_cnt[HCCS_MAX_PCS_NUM];
    unsigned long long retry_cnt[HCCS_MAX_PCS_NUM];
    unsigned long long reserved[HCCS_RES_PCS_NUM];
};

struct dcmi_elabel_info {
    char product_name[MAX_LENGTH];
    char model[MAX_LENGTH];
    char manufacturer[MAX_LENGTH];
    char manufacturer_date[MAX_LENGTH];
    char serial_number[MAX_LENGTH];
};

/* Resources of a chip for computing-power splitting (vNPU), DCMI_MAIN_CMD_VDEV_MNG. */
struct dcmi_base_resource {
    unsigned long long token;
    unsigned long long token_max;
    unsigned long long task_timeout;
    unsigned int vfg_id;
    unsigned char vip_mode;
    unsigned char reserved[DCMI_VDEV_FOR_RESERVE - 1];
};

struct dcmi_computing_resource {
    float aic;
    float aiv;
    unsigned short dsa;
    unsigned short rtsq;
    unsigned short acsq;
    unsigned short cdqm;
    unsigned short c_core;
    unsigned short ffts;
    unsigned short sdma;
    unsigned short pcie_dma;
    unsigned long long memory_size; /* MB */
    unsigned int event_id;
    unsigned int notify_id;
    unsigned int stream_id;
    unsigned int model_id;
    unsigned short topic_schedule_aicpu;
    unsigned short host_ctrl_cpu;
    unsigned short host_aicpu;
    unsigned short device_aicpu;
    unsigned short topic_ctrl_cpu_slot;
    unsigned int vdev_aicore_utilization;
    unsigned long long vdev_memory_total;
    unsigned long long vdev_memory_free;
    unsigned char reserved[DCMI_VDEV_FOR_RESERVE - DCMI_VDEV_SIZE];
};

struct dcmi_media_resource {
    float jpegd;
    float jpege;
    float vpc;
    float vdec;
    float pngd;
    float venc;
    unsigned char reserved[DCMI_VDEV_FOR_RESERVE];
};

struct dcmi_soc_total_resource {
    unsigned int vdev_num;
    unsigned int vdev_id[DCMI_SOC_SPLIT_MAX];
    unsigned int vfg_num;
    unsigned int vfg_bitmap;
    struct dcmi_base_resource base;
    struct dcmi_computing_resource computing;
    struct dcmi_media_resource media;
};

struct dcmi_soc_free_resource {
    unsigned int vfg_num;
    unsigned int vfg_bitmap;
    struct dcmi_base_resource base;
    struct dcmi_computing_resource computing;
    struct dcmi_media_resource media;
};

/* Fault events (dcmi_subscribe_fault_event). */
struct dcmi_dms_fault_event {
    unsigned int event_id;
    unsigned short deviceid;
    unsigned char node_type;
    unsigned char node_id;
    unsigned char sub_node_type;
    unsigned char sub_node_id;
    unsigned char severity;
    unsigned char assertion;
    int event_serial_num;
    int notify_serial_num;
    unsigned long long alarm_raised_time;
    char event_name[DCMI_MAX_EVENT_NAME_LENGTH];
    char additional_info[DCMI_MAX_EVENT_DATA_LENGTH];
    unsigned char resv[DCMI_MAX_EVENT_RESV_LENGTH];
};

struct dcmi_event {
    enum dcmi_event_type type;
    union {
        struct dcmi_dms_fault_event dms_event;
    } event_t;
};

struct dcmi_event_filter {
    unsigned long long filter_flag;
    unsigned int event_id;
    unsigned char severity;
    unsigned char node_type;
    unsigned char resv[DCMI_MAX_EVENT_RESV_LENGTH];
};

typedef void (*dcmi_fault_event_callback)(struct dcmi_event *fault_event);

int dcmi_init(void);
int dcmi_get_dcmi_version(char *dcmi_ver, int buf_size);
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

int dcmi_get_device_chip_info_v2(int card_id, int device_id, struct dcmi_chip_info_v2 *chip_info);
int dcmi_get_device_info(int card_id, int device_id, enum dcmi_main_cmd main_cmd, unsigned int sub_cmd,
                         void *buf, unsigned int *size);
int dcmi_get_product_type(int card_id, int device_id, char *product_type_str, int buf_size);
int dcmi_get_mainboard_id(int card_id, int device_id, unsigned int *mainboard_id);
int dcmi_get_card_elabel_v2(int card_id, struct dcmi_elabel_info *elabel_info);
int dcmi_get_device_voltage(int card_id, int device_id, unsigned int *voltage);
int dcmi_mcu_get_power_info(int card_id, int *power);
int dcmi_get_device_multi_utilization_rate(int card_id, int device_id,
                                           struct dcmi_multi_utilization_info *util_info);
int dcmi_get_device_ecc_info(int card_id, int device_id, enum dcmi_device_type input_type,
                             struct dcmi_ecc_info *device_ecc_info);
int dcmi_get_memory_info(int card_id, int device_id, struct dcmi_memory_info_stru *device_memory_info);
int dcmi_get_device_resource_info(int card_id, int device_id, struct dcmi_proc_mem_info *proc_info,
                                  int *proc_num);
int dcmi_get_pcie_link_bandwidth_info(int card_id, int device_id,
                                      struct dcmi_pcie_link_bandwidth_info *pcie_link_bandwidth_info);
int dcmi_get_hccs_link_bandwidth_info(int card_id, int device_id,
                                      struct dcmi_hccs_bandwidth_info *hccs_bandwidth_info);
int dcmi_get_device_ip(int card_id, int device_id, enum dcmi_port_type input_type, int port_id,
                       struct dcmi_ip_addr *ip, struct dcmi_ip_addr *mask);
int dcmi_get_device_network_health(int card_id, int device_id, enum dcmi_rdfx_detect_result *result);
/* The header Huawei publishes lists three arguments; the library takes a fourth, the callback
 * (MindCluster's cgo preamble passes one). */
int dcmi_subscribe_fault_event(int card_id, int device_id, struct dcmi_event_filter filter,
                               dcmi_fault_event_callback handler);

#ifdef __cplusplus
}
#endif
#endif
