/* The host build's UART: a pty whose slave a stable symlink points at (standing in for
 * /dev/serial/by-id/...). Unplugging closes the pty (the host's pending read fails as on a
 * real unplug) and removes the link; plugging makes a new pty under the same name. */
#ifndef RF_HOST_PTY_H
#define RF_HOST_PTY_H

#include <stddef.h>
#include <stdint.h>

struct host_pty {
    int master, slave; /* -1 while unplugged */
    const char *link;
    char slave_name[128];
    uint32_t lost_bytes; /* written while nobody read (a full pty loses them, as a UART) */
};

int host_pty_plug(struct host_pty *p);
void host_pty_unplug(struct host_pty *p);
void host_pty_write(struct host_pty *p, const uint8_t *data, size_t len);

#endif
