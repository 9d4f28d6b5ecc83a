/* The other static function named helper (see itest_func.c). */
__attribute__((noipa)) static int helper(int x) { return x * 2; }
__attribute__((noipa)) int call_b(int x) { return helper(x) + 1; }
