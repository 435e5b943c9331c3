/* Where a device's link stands, and the one table of how it moves (the device's half of
 * firmware_bridge/transitions.py; CONNECTING and the host's triggers have no use here). */
#ifndef RF_LINK_STATE_H
#define RF_LINK_STATE_H

enum link_state { LS_IDLE = 0, LS_UP, LS_DEAD, LS_FAILED, LS_COUNT };

enum link_trigger {
    TR_ANNOUNCE = 0, /* the boot was announced: unsolicited HELLO_ACK */
    TR_HELLO_OK,     /* a HELLO of our major version */
    TR_HELLO_BAD,    /* a HELLO of another major version */
    TR_RESUMED,      /* a valid frame while dead: the host is back within its session */
    TR_SILENT,       /* nothing valid heard for dead_ms */
    TR_LOST,         /* the transport went away */
    TR_COUNT
};

/* The next state, or -1 when the trigger is not a move from this state (it is ignored). */
int link_next_state(enum link_state from, enum link_trigger trigger);

const char *link_state_name(enum link_state s);

#endif
