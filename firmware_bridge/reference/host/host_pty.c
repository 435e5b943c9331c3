#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include "host_pty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int host_pty_plug(struct host_pty *p) {
    char tmp[512];
    struct termios tio;
    if (p->master >= 0) {
        return 0;
    }
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
        if (m >= 0) {
            close(m);
        }
        return -1;
    }
    snprintf(p->slave_name, sizeof p->slave_name, "%s", ptsname(m));
    /* held open, so the host may close and reopen the port without EIO on our side */
    int s = open(p->slave_name, O_RDWR | O_NOCTTY);
    if (s < 0 || tcgetattr(s, &tio) != 0) {
        close(m);
        if (s >= 0) {
            close(s);
        }
        return -1;
    }
    cfmakeraw(&tio); /* no echo, no CR translation, before the host opens it */
    tcsetattr(s, TCSANOW, &tio);
    fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK);
    snprintf(tmp, sizeof tmp, "%s.new", p->link);
    unlink(tmp);
    if (symlink(p->slave_name, tmp) != 0 || rename(tmp, p->link) != 0) {
        close(m);
        close(s);
        return -1;
    }
    p->master = m;
    p->slave = s;
    return 0;
}

void host_pty_unplug(struct host_pty *p) {
    unlink(p->link);
    if (p->master >= 0) {
        close(p->master);
        close(p->slave);
    }
    p->master = p->slave = -1;
}

void host_pty_write(struct host_pty *p, const uint8_t *data, size_t len) {
    while (len > 0 && p->master >= 0) {
        ssize_t n = write(p->master, data, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            p->lost_bytes += (uint32_t)len;
            return;
        }
        data += n;
        len -= (size_t)n;
    }
    if (p->master < 0) {
        p->lost_bytes += (uint32_t)len;
    }
}
