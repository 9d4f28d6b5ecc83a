/* The data that itest_operands' probes name, defined and written in
 * itest_operands_data.c (always position-independent code), so that the
 * probes' own unit may be built -fno-pic into a PIE or a shared object:
 * there its operands name these symbols only in the notes, which no
 * relocation touches. */
#ifndef ITEST_OPERANDS_DATA_H
#define ITEST_OPERANDS_DATA_H

#include <stdint.h>

#define ITEST_RECS 16

struct rec {
  int32_t a; /* offset 0 */
  int16_t b; /* offset 4 */
  int8_t c;  /* offset 6 */
  uint64_t d; /* offset 8; 16 bytes in all */
};

extern struct rec ho_recs[ITEST_RECS];
extern int64_t gvals[ITEST_RECS];
extern int32_t g32;
extern double gd;
extern __thread int64_t tls_val;
/* A static array of itest_operands.c, written through this pointer. */
extern struct rec* itest_static_recs;

/* Writes iteration i's values (see itest_operands.c) into every element. */
void itest_operands_fill(long i, struct rec* heap, int32_t* harr);
/* Prints "ho_recs+32=0xADDRESS" for the probe that takes it as a constant. */
void itest_operands_print_address(void);

#endif
