/* Definitions and writers for itest_operands (see itest_operands_data.h). */
#include "itest_operands_data.h"

#include <stdio.h>

struct rec ho_recs[ITEST_RECS];
int64_t gvals[ITEST_RECS];
int32_t g32;
double gd;
__thread int64_t tls_val;

void itest_operands_fill(long i, struct rec* heap, int32_t* harr) {
  for (long j = 0; j < ITEST_RECS; ++j) {
    ho_recs[j].a = (int32_t)(-100000 * j - i - 1);
    ho_recs[j].b = (int16_t)(-100 * j - i % 100 - 1);
    ho_recs[j].c = (int8_t)(-4 * j - i % 4 - 1);
    ho_recs[j].d = 0xd000000000000000ull + ((uint64_t)j << 32) + (uint64_t)i;
    itest_static_recs[j].a = (int32_t)(7000000 + 1000 * j + i);
    itest_static_recs[j].d = 0x5000000000000000ull + ((uint64_t)j << 24) + (uint64_t)i;
    gvals[j] = -((int64_t)j << 40) - i - 1;
    heap[j].a = (int32_t)(-3000 * j - i - 1);
    heap[j].b = (int16_t)(-50 * j - i % 50 - 1);
    heap[j].d = 0x4000000000000000ull + ((uint64_t)j << 32) + (uint64_t)i;
    harr[j] = (int32_t)(5000 * j + i);
  }
  g32 = (int32_t)(123456 + i);
  gd = (double)i + 0.5;
  tls_val = i;
}

void itest_operands_print_address(void) {
  printf("ho_recs+32=%p\n", (void*)((char*)ho_recs + 32));
  fflush(stdout);
}
