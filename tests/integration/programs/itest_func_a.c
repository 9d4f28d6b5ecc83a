/* One of two static functions named helper (see itest_func.c). */
__attribute__((noipa)) static int helper(int x) { return x + 1; }
__attribute__((noipa)) int call_a(int x) { return helper(x); }
