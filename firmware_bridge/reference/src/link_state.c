#include "link_state.h"

#define X (-1)

/* TABLE[state][trigger]: the whole state machine of a device's link. */
static const signed char TABLE[LS_COUNT][TR_COUNT] = {
    /*             ANNOUNCE  HELLO_OK HELLO_BAD  RESUMED  SILENT   LOST */
    /* IDLE   */ {LS_IDLE,   LS_UP,   LS_FAILED, X,       X,       X},
    /* UP     */ {LS_UP,     LS_UP,   LS_FAILED, X,       LS_DEAD, LS_DEAD},
    /* DEAD   */ {LS_DEAD,   LS_UP,   LS_FAILED, LS_UP,   X,       X},
    /* FAILED */ {X,         LS_UP,   LS_FAILED, X,       X,       X},
};

int link_next_state(enum link_state from, enum link_trigger trigger) {
    if ((unsigned)from >= LS_COUNT || (unsigned)trigger >= TR_COUNT) {
        return X;
    }
    return TABLE[from][trigger];
}

const char *link_state_name(enum link_state s) {
    static const char *const NAMES[LS_COUNT] = {"idle", "up", "dead", "failed"};
    return (unsigned)s < LS_COUNT ? NAMES[s] : "?";
}
