/* Usage: itest_func recurse REPEATS | longjmp | helpers
 * Function probes (uprobe/uretprobe) on plain C functions, with counts the
 * tests know exactly. Every probed function is noipa: at -O2 it stays a
 * real, separately called function (no inlining, cloning or sibling call).
 *
 *   recurse REPEATS  work(10) REPEATS times: work recurses to depth 10
 *                    (11 calls, n = 10..0) and each call returns.
 *   longjmp          leap(4) longjmps from its deepest call (n = 0) to
 *                    main: 5 entries, no return. Then bounce(6, 3): bounce
 *                    recurses n = 6..0, n = 0 longjmps back to the
 *                    setjmp of the n = 3 call, which returns normally:
 *                    7 entries, 4 returns (n = 3..6), 3 abandoned (2..0).
 *   helpers          call_a() 3 times, call_b() 5 times: each calls its own
 *                    static helper() (itest_func_a.c, itest_func_b.c).
 *   malloc COUNT     COUNT times malloc(64 + i % 64) then free: COUNT more
 *                    calls of each than "malloc 0" makes (libc's own).
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBED __attribute__((noipa))

int call_a(int x);
int call_b(int x);

volatile int sink;

PROBED int work(int n) {
  if (n == 0) return 0;
  int r = work(n - 1);
  sink += r; /* after the call: no tail call, no accumulator loop */
  return r + 1;
}

static jmp_buf to_main;

PROBED void leap(int n) {
  if (n < 0) return; /* never taken; a function that cannot return is an error to GCC */
  if (n == 0) longjmp(to_main, 1);
  leap(n - 1);
  sink += n;
}

PROBED int bounce(int n, int catch_at, jmp_buf* outer) {
  jmp_buf here;
  if (n == catch_at) {
    if (setjmp(here) != 0) return n; /* back from the deepest call */
    outer = &here;
  }
  if (n == 0) longjmp(*outer, 1);
  int r = bounce(n - 1, catch_at, outer);
  sink += r;
  return r;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (strcmp(argv[1], "recurse") == 0 && argc == 3) {
    long repeats = atol(argv[2]);
    for (long i = 0; i < repeats; ++i) sink += work(10);
    return 0;
  }
  if (strcmp(argv[1], "longjmp") == 0) {
    if (setjmp(to_main) == 0) leap(4);
    sink += bounce(6, 3, NULL);
    return 0;
  }
  if (strcmp(argv[1], "malloc") == 0 && argc == 3) {
    long count = atol(argv[2]);
    for (long i = 0; i < count; ++i) {
      void* volatile block = malloc(64 + (size_t)(i % 64)); /* volatile: not elided at -O2 */
      free(block);
    }
    return 0;
  }
  if (strcmp(argv[1], "helpers") == 0) {
    for (int i = 0; i < 3; ++i) sink += call_a(i);
    for (int i = 0; i < 5; ++i) sink += call_b(i);
    return 0;
  }
  fprintf(stderr, "itest_func: unknown mode\n");
  return 2;
}
