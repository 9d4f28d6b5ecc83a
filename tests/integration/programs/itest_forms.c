/* Operand forms GCC does not emit through <sys/sdt.h>, in hand-written notes
 * (itest_note.h): scaled-index stack operands, displacement expressions and
 * size-less operands.
 *
 * Usage: itest_forms [ITERATIONS [print]]  (ITERATIONS defaults to 1)
 * Each probe fires once per iteration i = 0 .. ITERATIONS-1, in the order
 * below. With "print", one line per hit: forms:NAME i=I argN=VALUE ...
 *
 * At every probe the asm has built, below the red zone, a table of eight
 * uint64 slots at 0(%rsp) .. 56(%rsp), with %rbp = %rsp:
 *   slot[k] = (uint64_t)-(1000 * k + i + 1)
 * so that the low 32 bits of slot[k], as int32, are -(1000 * k + i + 1).
 * Registers: %rcx = i % 4, %rax = 2 * (i % 4), %rdx = i,
 *   %rdi = 0x8000000000000000 | i, %rsi = 0xffffffff00000000 | (0xfffffff0 - i).
 * Let j = i % 4. Probes, with the argument strings exactly as in the note:
 *   forms:scaled    8@16(%rsp,%rcx,8) -4@(%rsp,%rcx,8) -4@(%rbp,%rax,4) 8@-8+16(%rbp,%rcx,8) 8@%rdx
 *     arg0 uint64 slot[2 + j]
 *     arg1 int32  -(1000 * j + i + 1)            (low half of slot[j])
 *     arg2 int32  -(1000 * j + i + 1)            (%rbp + 4 * 2j = slot[j])
 *     arg3 uint64 slot[1 + j]
 *     arg4 = i
 *   forms:dispexpr  8@-8+8(%rsp) -4@16-8(%rsp) 8@24+-8(%rbp) -8@0x10+0x18(%rsp) 8@%rdx
 *     arg0 uint64 slot[0]
 *     arg1 int32  -(1000 + i + 1)                (low half of slot[1])
 *     arg2 uint64 slot[2]
 *     arg3 int64  -(5000 + i + 1)                (slot[5], signed)
 *     arg4 = i
 *   forms:sizeless  %rdi %esi 16(%rsp) $-5 -8+32(%rbp) %rdx
 *     No "N@": SystemTap reads each as 8 bytes unsigned, a sub-register
 *     zero-extended from its width (tapsets.cxx, parse_out_arg_precision):
 *     arg0 uint64 0x8000000000000000 | i
 *     arg1 uint64 0xfffffff0 - i                 (not sign-extended)
 *     arg2 uint64 slot[2]
 *     arg3 uint64 18446744073709551611           (2^64 - 5)
 *     arg4 uint64 slot[3]
 *     arg5 = i
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest_note.h"

ITEST_BASE_ANCHOR(forms)

static uint64_t slot(long k, long i) { return (uint64_t)-(1000 * k + i + 1); }

static void __attribute__((noinline)) fire(long i) {
  /* The table is written from registers after %rsp has moved 128 bytes down,
   * past the red zone that this function may use. %rbp is saved first, as
   * it may hold one of the inputs. */
  __asm__ __volatile__(
      "lea -128(%%rsp), %%rsp\n"
      "push %%rbp\n"
      "sub $64, %%rsp\n"
      "mov %[s0], 0(%%rsp)\n"
      "mov %[s1], 8(%%rsp)\n"
      "mov %[s2], 16(%%rsp)\n"
      "mov %[s3], 24(%%rsp)\n"
      "mov %[s4], 32(%%rsp)\n"
      "mov %[s5], 40(%%rsp)\n"
      "mov %[s6], 48(%%rsp)\n"
      "mov %[s7], 56(%%rsp)\n"
      "mov %%rsp, %%rbp\n"
      ITEST_NOTE(forms, scaled,
                 "8@16(%%rsp,%%rcx,8) -4@(%%rsp,%%rcx,8) -4@(%%rbp,%%rax,4) 8@-8+16(%%rbp,%%rcx,8) 8@%%rdx")
      ITEST_NOTE(forms, dispexpr,
                 "8@-8+8(%%rsp) -4@16-8(%%rsp) 8@24+-8(%%rbp) -8@0x10+0x18(%%rsp) 8@%%rdx")
      ITEST_NOTE(forms, sizeless, "%%rdi %%esi 16(%%rsp) $-5 -8+32(%%rbp) %%rdx")
      "add $64, %%rsp\n"
      "pop %%rbp\n"
      "lea 128(%%rsp), %%rsp\n"
      :
      : [s0] "r"(slot(0, i)), [s1] "r"(slot(1, i)), [s2] "r"(slot(2, i)), [s3] "r"(slot(3, i)),
        [s4] "r"(slot(4, i)), [s5] "r"(slot(5, i)), [s6] "r"(slot(6, i)), [s7] "r"(slot(7, i)),
        "c"(i % 4), "a"(2 * (i % 4)), "d"(i), "D"(0x8000000000000000ull | (uint64_t)i),
        "S"(0xffffffff00000000ull | (uint64_t)(0xfffffff0u - (uint32_t)i))
      : "memory");
}

static void print_hit(long i) {
  long j = i % 4;
  printf("forms:scaled i=%ld arg0=%llu arg1=%d arg2=%d arg3=%llu arg4=%ld\n", i,
         (unsigned long long)slot(2 + j, i), (int32_t)slot(j, i), (int32_t)slot(j, i),
         (unsigned long long)slot(1 + j, i), i);
  printf("forms:dispexpr i=%ld arg0=%llu arg1=%d arg2=%llu arg3=%lld arg4=%ld\n", i,
         (unsigned long long)slot(0, i), (int32_t)slot(1, i), (unsigned long long)slot(2, i),
         (long long)slot(5, i), i);
  printf("forms:sizeless i=%ld arg0=%llu arg1=%llu arg2=%llu arg3=%llu arg4=%llu arg5=%ld\n", i,
         0x8000000000000000ull | (unsigned long long)i,
         (unsigned long long)(0xfffffff0u - (uint32_t)i), (unsigned long long)slot(2, i),
         (unsigned long long)(uint64_t)-5, (unsigned long long)slot(3, i), i);
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1;
  int print_values = argc > 2 && strcmp(argv[2], "print") == 0;
  for (long i = 0; i < n; ++i) {
    fire(i);
    if (print_values) print_hit(i);
  }
  return 0;
}
