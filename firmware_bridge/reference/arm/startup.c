/* Cortex-M3 start-up for the emulated board: the vector table, copying .data, zeroing .bss,
 * then main(). */
#include <stdint.h>

extern uint32_t _etext, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);
void reset_handler(void);
void systick_handler(void);

static void hang(void) {
    for (;;) {
    }
}

union vector {
    void (*handler)(void);
    uint32_t *stack;
};

__attribute__((section(".vectors"), used)) static const union vector VECTORS[16] = {
    {.stack = &_estack}, {reset_handler}, {hang} /* NMI */, {hang} /* HardFault */,
    {hang}, {hang}, {hang}, {0}, {0}, {0}, {0}, {hang} /* SVC */, {hang}, {0},
    {hang} /* PendSV */, {systick_handler},
};

void reset_handler(void) {
    uint32_t *src = &_etext, *dst = &_sdata;
    while (dst < &_edata) {
        *dst++ = *src++;
    }
    for (dst = &_sbss; dst < &_ebss; dst++) {
        *dst = 0;
    }
    main();
    hang();
}
