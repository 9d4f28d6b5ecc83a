/* Memory operands outside the stack: the kernel must read them at the hit.
 *
 * Usage: itest_memory [ITERATIONS [print]]  (ITERATIONS defaults to 1)
 * Each probe fires once per iteration i = 0 .. ITERATIONS-1, in the order
 * below. With "print", one line per hit gives the expected values:
 *   memory:NAME i=I argN=VALUE ...   (VALUE decimal, or null)
 * Exit status 3: the page at 0x20000000 could not be mapped (absolute probe).
 *
 * Probes, with the argument string as readelf -n shows it (GCC 12 -O2; PIE
 * and non-PIE alike except memory:global_off):
 *   memory:heap      -4@60(%rax) 8@8(%rax) 2@(%rax) 8@%rcx
 *     a heap block p (malloc) in %rax:
 *     arg0 int32  at p+60 = -3 * (i + 1)
 *     arg1 uint64 at p+8  = 0x100000000 + i
 *     arg2 uint16 at p+0  = 0xbeef ^ i (low 16 bits)
 *     arg3 = i
 *   memory:global    -8@static_global(%rip) 4@counter.0(%rip) 8@my.dotted.sym(%rip) 8@bss_value(%rip) 8@%rcx
 *     (GCC writes these operands from "m" constraints; "counter.0" is the
 *     name GCC 12 gives the function-static variable `counter`, a local
 *     symbol in .symtab only; "my.dotted.sym" is an asm label)
 *     arg0 int64  static_global (.data, static) = -1000000 - i
 *     arg1 uint32 counter.0 (.data, function-static) = 7 * i + 1
 *     arg2 uint64 my.dotted.sym (.data)          = 0xd0d0000000000000 + i
 *     arg3 uint64 bss_value (.bss, static)      = i * i
 *     arg4 = i
 *   memory:global_off  4@8+static_array(%rip) -4@12+static_array(%rip) 8@%rcx
 *     (so in the PIE build; itest_memory_nopie, built -fno-pie -no-pie, has
 *     4@static_array+8(%rip) -4@static_array+12(%rip) for the same probe)
 *     arg0 uint32 static_array[2] = 0x40000000 + i
 *     arg1 int32  static_array[3] = -40 - i
 *     arg2 = i
 *   memory:absolute  8@0x20000000 8@%rcx
 *     arg0 uint64 at the fixed address 0x20000000 = 0xabc0000 + i
 *     arg1 = i
 *   memory:unmapped  8@(%rdx) -4@16(%rdx) 8@%rdx 8@%rcx
 *     %rdx = 0x20001040, in the page after the absolute one, which was
 *     mapped, written and then unmapped (nothing else is mapped there):
 *     arg0 null, arg1 null (the read faults; never 0, never an old value)
 *     arg2 = 0x20001040 = 536875072, arg3 = i
 *   memory:after     8@(%rax) 8@%rcx
 *     right after memory:unmapped, a good heap read again:
 *     arg0 uint64 at p+0 = 0x5a5a000000000000 + i, arg1 = i
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "itest_note.h"

ITEST_BASE_ANCHOR(memory)

static volatile int64_t static_global = 1;
static volatile uint32_t static_array[4] = {1, 2, 3, 4};
static volatile uint64_t dotted_value __asm__("my.dotted.sym") = 1;
static volatile uint64_t bss_value;

#define ABSOLUTE_ADDRESS 0x20000000ul

static int print_values;

struct block {
  uint16_t tag;  /* offset 0 */
  uint64_t word; /* offset 8 */
  char pad[44];
  int32_t value; /* offset 60 */
};

static void __attribute__((noinline)) fire_heap(struct block* p, long i) {
  p->tag = (uint16_t)(0xbeef ^ i);
  p->word = 0x100000000ull + (uint64_t)i;
  p->value = (int32_t)(-3 * (i + 1));
  register struct block* rax __asm__("rax") = p;
  register long rcx __asm__("rcx") = i;
  __asm__ __volatile__(ITEST_NOTE(memory, heap, "-4@60(%%rax) 8@8(%%rax) 2@(%%rax) 8@%%rcx")
                       :
                       : "r"(rax), "r"(rcx)
                       : "memory");
  if (print_values) {
    printf("memory:heap i=%ld arg0=%d arg1=%llu arg2=%u arg3=%ld\n", i, p->value,
           (unsigned long long)p->word, (unsigned)p->tag, i);
  }
}

static void __attribute__((noinline)) fire_global(long i) {
  static volatile uint32_t counter = 1;
  static_global = -1000000 - i;
  counter = (uint32_t)(7 * i + 1);
  dotted_value = 0xd0d0000000000000ull + (uint64_t)i;
  bss_value = (uint64_t)(i * i);
  register long rcx __asm__("rcx") = i;
  __asm__ __volatile__(ITEST_NOTE(memory, global, "-8@%0 4@%1 8@%2 8@%3 8@%%rcx")
                       :
                       : "m"(static_global), "m"(counter), "m"(dotted_value), "m"(bss_value),
                         "r"(rcx)
                       : "memory");
  if (print_values) {
    printf("memory:global i=%ld arg0=%lld arg1=%u arg2=%llu arg3=%llu arg4=%ld\n", i,
           (long long)static_global, (unsigned)counter, (unsigned long long)dotted_value,
           (unsigned long long)bss_value, i);
  }
}

static void __attribute__((noinline)) fire_global_offset(long i) {
  static_array[2] = (uint32_t)(0x40000000 + i);
  static_array[3] = (uint32_t)(-40 - i);
  register long rcx __asm__("rcx") = i;
  __asm__ __volatile__(ITEST_NOTE(memory, global_off, "4@%0 -4@%1 8@%%rcx")
                       :
                       : "m"(static_array[2]), "m"(static_array[3]), "r"(rcx)
                       : "memory");
  if (print_values) {
    printf("memory:global_off i=%ld arg0=%u arg1=%d arg2=%ld\n", i, (unsigned)static_array[2],
           (int32_t)static_array[3], i);
  }
}

static void __attribute__((noinline)) fire_absolute(volatile uint64_t* fixed, long i) {
  *fixed = 0xabc0000ull + (uint64_t)i;
  register long rcx __asm__("rcx") = i;
  __asm__ __volatile__(ITEST_NOTE(memory, absolute, "8@0x20000000 8@%%rcx")
                       :
                       : "r"(rcx)
                       : "memory");
  if (print_values) {
    printf("memory:absolute i=%ld arg0=%llu arg1=%ld\n", i, (unsigned long long)*fixed, i);
  }
}

static void __attribute__((noinline)) fire_unmapped(char* gone, struct block* p, long i) {
  register char* rdx __asm__("rdx") = gone;
  register long rcx __asm__("rcx") = i;
  __asm__ __volatile__(ITEST_NOTE(memory, unmapped, "8@(%%rdx) -4@16(%%rdx) 8@%%rdx 8@%%rcx")
                       :
                       : "r"(rdx), "r"(rcx)
                       : "memory");
  if (print_values) {
    printf("memory:unmapped i=%ld arg0=null arg1=null arg2=%llu arg3=%ld\n", i,
           (unsigned long long)(uintptr_t)gone, i);
  }
  uint64_t* words = (uint64_t*)p;
  words[0] = 0x5a5a000000000000ull + (uint64_t)i;
  register uint64_t* rax __asm__("rax") = words;
  /* A register variable of its own: printf above may have clobbered %rcx,
   * and GCC does not keep a register variable's register across a call. */
  register long rcx_after __asm__("rcx") = i;
  __asm__ __volatile__(ITEST_NOTE(memory, after, "8@(%%rax) 8@%%rcx")
                       :
                       : "r"(rax), "r"(rcx_after)
                       : "memory");
  if (print_values) {
    printf("memory:after i=%ld arg0=%llu arg1=%ld\n", i, (unsigned long long)words[0], i);
  }
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1;
  print_values = argc > 2 && strcmp(argv[2], "print") == 0;
  long page = sysconf(_SC_PAGESIZE);

  /* Two pages at a fixed low address; the second is unmapped again. Later
   * mappings without a hint go top-down near the mmap base and the brk heap
   * stays far below, so the hole stays unmapped. */
  char* fixed = mmap((void*)ABSOLUTE_ADDRESS, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (fixed != (char*)ABSOLUTE_ADDRESS || page != 4096) {
    fprintf(stderr, "itest_memory: cannot map two pages at %#lx\n", ABSOLUTE_ADDRESS);
    return 3;
  }
  char* gone = fixed + page + 0x40;
  gone[0] = 1; /* written once, so that a stale mapping would be visible */
  munmap(fixed + page, (size_t)page);

  struct block* heap = calloc(1, sizeof *heap);
  if (heap == NULL) return 1;
  for (long i = 0; i < n; ++i) {
    fire_heap(heap, i);
    fire_global(i);
    fire_global_offset(i);
    fire_absolute((volatile uint64_t*)fixed, i);
    fire_unmapped(gone, heap, i);
  }
  free(heap);
  return 0;
}
