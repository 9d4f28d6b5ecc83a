/* Operand forms written by hand, so each test knows the exact spec:
 *   itest:regs   -4@%eax (a negative int), 1@%al, 2@%ax, -1@%al,
 *                -2@%ax, 8@%rdx, 4@%ecx (upper bits set in %rcx), 1@%ah
 *   itest:stack  -4@8(%rsp) 8@16(%rsp) -2@24(%rsp) 1@25(%rsp)
 *   itest:redzone 8@-8(%rsp) (below the stack pointer, in the red zone:
 *                0x5eed0000 + i, read by the kernel at the hit)
 *   itest:global 4@itest_global(%rip) (memory outside the stack: 77, read by
 *                the kernel at the hit)
 * Each fires once per iteration i (ITERATIONS from argv[1], default 1),
 * with the values documented at each probe below. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/sdt.h>

#include "itest_note.h"

volatile int32_t itest_global = 77;

/* A probe with a hand-written argument string, as its own asm statement
 * (itest_note.h lays out the note). */
#define ITEST_PROBE(provider, name, args) \
  __asm__ __volatile__(ITEST_NOTE(provider, name, args)::: "memory")

/* Makes sure .stapsdt.base exists (sys/sdt.h defines it in every unit that
 * uses a probe). */
void itest_base_anchor(void) { DTRACE_PROBE(itest, anchor); }

static void __attribute__((noinline)) fire_regs(long i) {
  /* rax = 0xffffffff_fffffff6 - i  -> -4@%eax = -10 - i
   *   1@%al = low byte, 2@%ax = low 16 bits, -1@%al / -2@%ax signed,
   *   1@%ah = bits 8-15.
   * rdx = 0x1122334455667788 + i; rcx = 0xdeadbeef00000000 | (5 + i). */
  register uint64_t rax __asm__("rax") = (uint64_t)(-10 - i);
  register uint64_t rdx __asm__("rdx") = 0x1122334455667788ull + (uint64_t)i;
  register uint64_t rcx __asm__("rcx") = 0xdeadbeef00000000ull | (uint64_t)(5 + i);
  __asm__ __volatile__("" : "+r"(rax), "+r"(rdx), "+r"(rcx));
  __asm__ __volatile__("990: nop\n"
                       ".pushsection .note.stapsdt,\"?\",\"note\"\n"
                       ".balign 4\n"
                       ".4byte 992f-991f, 994f-993f, 3\n"
                       "991: .asciz \"stapsdt\"\n"
                       "992: .balign 4\n"
                       "993: .8byte 990b\n"
                       ".8byte _.stapsdt.base\n"
                       ".8byte 0\n"
                       ".asciz \"itest\"\n"
                       ".asciz \"regs\"\n"
                       ".asciz \"-4@%%eax 1@%%al 2@%%ax -1@%%al -2@%%ax 8@%%rdx 4@%%ecx 1@%%ah\"\n"
                       "994: .balign 4\n"
                       ".popsection\n"
                       :
                       : "r"(rax), "r"(rdx), "r"(rcx)
                       : "memory");
}

static void __attribute__((noinline)) fire_stack(long i) {
  /* At the probe: 8(%rsp) int32 = -1000 - i; 16(%rsp) uint64 =
   * 0xfedcba9876543210 + i; 24(%rsp) int16 = -2 (0xfffe), 25(%rsp) byte 0xff. */
  __asm__ __volatile__(
      "sub $32, %%rsp\n"
      "movl %k0, 8(%%rsp)\n"
      "movq %1, 16(%%rsp)\n"
      "movw $-2, 24(%%rsp)\n"
      "990: nop\n"
      ".pushsection .note.stapsdt,\"?\",\"note\"\n"
      ".balign 4\n"
      ".4byte 992f-991f, 994f-993f, 3\n"
      "991: .asciz \"stapsdt\"\n"
      "992: .balign 4\n"
      "993: .8byte 990b\n"
      ".8byte _.stapsdt.base\n"
      ".8byte 0\n"
      ".asciz \"itest\"\n"
      ".asciz \"stack\"\n"
      ".asciz \"-4@8(%%rsp) 8@16(%%rsp) -2@24(%%rsp) 1@25(%%rsp)\"\n"
      "994: .balign 4\n"
      ".popsection\n"
      "add $32, %%rsp\n"
      :
      : "r"((int32_t)(-1000 - i)), "r"(0xfedcba9876543210ull + (uint64_t)i)
      : "memory");
}

static void __attribute__((noinline)) fire_memory(long i) {
  /* A leaf function: the 128 bytes below %rsp are its own (the red zone). */
  __asm__ __volatile__("movq %0, -8(%%rsp)" : : "r"(0x5eed0000ull + (uint64_t)i) : "memory");
  ITEST_PROBE(itest, redzone, "8@-8(%%rsp)");
  ITEST_PROBE(itest, global, "4@itest_global(%%rip)");
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1;
  for (long i = 0; i < n; ++i) {
    fire_regs(i);
    fire_stack(i);
    fire_memory(i);
  }
  return 0;
}
