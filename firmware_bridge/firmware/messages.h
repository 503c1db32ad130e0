/* Generated from firmware_bridge/messages.toml by firmware_bridge/gen_header.py.
 * Do not edit: change the table and run `python -m firmware_bridge.gen_header`. */
#ifndef BRIDGE_MESSAGES_H
#define BRIDGE_MESSAGES_H

#define PROTOCOL_VERSION 1
#define FRAME_SYNC 0xA5
#define FRAME_MAX_PAYLOAD 32
#define MAX_READERS 4

/* board -> host: Sent once after every reset: versions, why it reset, how many readers answered, each one's chip. */
#define MSG_BOOT 0x01
#define MSG_BOOT_PROTOCOL 0 /* u8 */
#define MSG_BOOT_FW_MAJOR 1 /* u8 */
#define MSG_BOOT_FW_MINOR 2 /* u8 */
#define MSG_BOOT_RESET_CAUSE 3 /* u8 */
#define MSG_BOOT_READERS 4 /* u8 */
#define MSG_BOOT_UPTIME_MS 5 /* u32 */
#define MSG_BOOT_CHIPS 9 /* bytes, to the end */
#define MSG_BOOT_FIXED_LEN 9

/* board -> host: The answer to get_info: the same fields as boot, without a reset. */
#define MSG_INFO 0x02
#define MSG_INFO_PROTOCOL 0 /* u8 */
#define MSG_INFO_FW_MAJOR 1 /* u8 */
#define MSG_INFO_FW_MINOR 2 /* u8 */
#define MSG_INFO_RESET_CAUSE 3 /* u8 */
#define MSG_INFO_READERS 4 /* u8 */
#define MSG_INFO_UPTIME_MS 5 /* u32 */
#define MSG_INFO_CHIPS 9 /* bytes, to the end */
#define MSG_INFO_FIXED_LEN 9

/* board -> host: Every heartbeat period: uptime, poll settings, the last full poll's duration, tags present. */
#define MSG_HEARTBEAT 0x03
#define MSG_HEARTBEAT_UPTIME_MS 0 /* u32 */
#define MSG_HEARTBEAT_POLL_MS 4 /* u16 */
#define MSG_HEARTBEAT_POLL_US 6 /* u16 */
#define MSG_HEARTBEAT_PRESENT 8 /* u8 */
#define MSG_HEARTBEAT_RX_ERRORS 9 /* u8 */
#define MSG_HEARTBEAT_FIXED_LEN 10

/* board -> host: A tag on a reader: sent when placed, then again after every heartbeat while it stays. */
#define MSG_TAG 0x04
#define MSG_TAG_READER 0 /* u8 */
#define MSG_TAG_PLACEMENT 1 /* u8 */
#define MSG_TAG_UID 2 /* bytes, to the end */
#define MSG_TAG_FIXED_LEN 2

/* board -> host: The tag of that placement has left the reader (its UID again, in case its tag frame was lost). */
#define MSG_REMOVED 0x05
#define MSG_REMOVED_READER 0 /* u8 */
#define MSG_REMOVED_PLACEMENT 1 /* u8 */
#define MSG_REMOVED_UID 2 /* bytes, to the end */
#define MSG_REMOVED_FIXED_LEN 2

/* board -> host: The answer to ping, echoing its token. */
#define MSG_PONG 0x06
#define MSG_PONG_TOKEN 0 /* bytes, to the end */
#define MSG_PONG_FIXED_LEN 0

/* board -> host: The answer to a setting command: the command's id and a status. */
#define MSG_ACK 0x07
#define MSG_ACK_COMMAND 0 /* u8 */
#define MSG_ACK_STATUS 1 /* u8 */
#define MSG_ACK_FIXED_LEN 2

/* host -> board: Answered by pong with the same token. */
#define MSG_PING 0x40
#define MSG_PING_TOKEN 0 /* bytes, to the end */
#define MSG_PING_FIXED_LEN 0

/* host -> board: Set the poll interval in milliseconds (10 to 1000); answered by ack. */
#define MSG_SET_POLL 0x41
#define MSG_SET_POLL_INTERVAL_MS 0 /* u16 */
#define MSG_SET_POLL_FIXED_LEN 2

/* host -> board: Answered by info. */
#define MSG_GET_INFO 0x42
#define MSG_GET_INFO_FIXED_LEN 0

/* host -> board: Set one reader's receiver gain in dB (18 23 33 38 43 48) and removal count (1 to 20 empty polls); answered by ack. */
#define MSG_SET_RADIO 0x43
#define MSG_SET_RADIO_READER 0 /* u8 */
#define MSG_SET_RADIO_GAIN_DB 1 /* u8 */
#define MSG_SET_RADIO_MISSES 2 /* u8 */
#define MSG_SET_RADIO_FIXED_LEN 3

#define ACK_STATUS_OK 0x00
#define ACK_STATUS_BAD_VALUE 0x01
#define ACK_STATUS_BAD_LENGTH 0x02
#define ACK_STATUS_UNKNOWN_COMMAND 0x03

#define RESET_CAUSE_POWER_ON 0x01
#define RESET_CAUSE_EXTERNAL 0x02
#define RESET_CAUSE_BROWN_OUT 0x04
#define RESET_CAUSE_WATCHDOG 0x08

#endif
