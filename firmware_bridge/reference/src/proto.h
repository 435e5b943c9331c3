/* Protocol v1 constants (docs/protocol.md: "Frame", "Messages"). Values only, no code. */
#ifndef RF_PROTO_H
#define RF_PROTO_H

#define PROTO_MAJOR 1u
#define PROTO_MINOR 0u

#define FRAME_VERSION 1u
#define FRAME_ACK_REQ 0x01u
#define FRAME_RETX 0x02u
#define FRAME_HEADER 4u
#define FRAME_CRC 4u
#define FRAME_MAX_PAYLOAD 240u
#define FRAME_MIN (FRAME_HEADER + FRAME_CRC)
#define FRAME_MAX (FRAME_HEADER + FRAME_MAX_PAYLOAD + FRAME_CRC)
#define WIRE_MAX_RUN 256u /* longest run without a delimiter the decoder keeps */
#define WIRE_MAX (FRAME_MAX + 2u) /* COBS overhead byte + delimiter */

enum msg_type {
    MSG_HELLO = 0x01,
    MSG_HELLO_ACK = 0x02,
    MSG_HEARTBEAT = 0x03,
    MSG_ACK = 0x04,
    MSG_NAK = 0x05,
    MSG_TAG_SEEN = 0x10,
    MSG_TAG_GONE = 0x11,
    MSG_ANTENNA_STATE = 0x12,
    MSG_SNAPSHOT_DONE = 0x13,
    MSG_MISREAD = 0x14,
    MSG_BUTTON = 0x20,
    MSG_STATUS = 0x30,
    MSG_SET_CONFIG = 0x40,
    MSG_SNAPSHOT_REQ = 0x41,
    MSG_INDICATE = 0x42,
    MSG_SHOE_RESET = 0x43,
    MSG_REBOOT = 0x44
};

enum device_kind { KIND_SHOE = 1, KIND_TABLE = 2, KIND_KEYPAD = 3, KIND_COMBO = 4 };

enum caps_bits {
    CAP_TAG_GONE = 0x01,
    CAP_RSSI = 0x02,
    CAP_KEYPAD = 0x04,
    CAP_PASSAGE_SENSOR = 0x08,
    CAP_POLLED = 0x10
};

enum tech { TECH_UNKNOWN = 0, TECH_ISO14443A = 1, TECH_ISO15693 = 2, TECH_ISO14443B = 3,
            TECH_FELICA = 4, TECH_EM4100 = 5 };

enum hb_status { HB_READER_FAULT = 0x01, HB_TX_OVERFLOW = 0x02, HB_ANTENNA_FAULT = 0x04 };

enum misread_reason { MISREAD_NO_TAG = 1, MISREAD_COLLISION = 2, MISREAD_RF_CRC = 3 };

enum severity { SEV_INFO = 0, SEV_WARN = 1, SEV_ERROR = 2, SEV_FATAL = 3 };

enum status_code {
    ST_READER_INIT_FAILED = 1,
    ST_ANTENNA_FAULT = 2,
    ST_LINK_CRC_ERRORS = 3,
    ST_TX_QUEUE_OVERFLOW = 4,
    ST_UNKNOWN_TYPE = 5,
    ST_BAD_PAYLOAD = 6,
    ST_WATCHDOG_RESET = 7,
    ST_BROWNOUT_RESET = 8,
    ST_CONFIG_REJECTED = 9
};

enum config_key { CFG_POLL_INTERVAL_MS = 1, CFG_GONE_DEBOUNCE_MS = 2, CFG_HEARTBEAT_MS = 3,
                  CFG_RETRANSMIT_MS = 4, CFG_RSSI_MIN = 5 };

#define REBOOT_MAGIC 0x544F4F42u /* "BOOT" little-endian */
#define UID_MAX 16u
#define ANTENNA_NONE 0xFFu

#endif
