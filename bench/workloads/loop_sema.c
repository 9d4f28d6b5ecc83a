/* The semaphore-gated variant of the loop workload, in its own file because
 * _SDT_HAS_SEMAPHORES gives every probe of a translation unit a semaphore.
 * The probe only fires while a tracer has raised bench_sema_hit_semaphore
 * (uprobe ref_ctr_offset); untraced, the loop costs a load and a branch. */
#define _SDT_HAS_SEMAPHORES 1
#include <stdint.h>
#include <sys/sdt.h>

__extension__ unsigned short bench_sema_hit_semaphore __attribute__((unused))
__attribute__((section(".probes")));

void fire_sema(uint64_t hits, uint64_t tag);

void fire_sema(uint64_t hits, uint64_t tag) {
  for (uint64_t i = 0; i < hits; i++) {
    if (__builtin_expect(*(volatile unsigned short*)&bench_sema_hit_semaphore != 0, 0)) {
      DTRACE_PROBE2(bench_sema, hit, i, tag);
    }
  }
}
