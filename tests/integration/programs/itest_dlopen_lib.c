/* The library itest_dlopen loads (built twice, as libitest_dynlib1.so with
 * TAG 1 and libitest_dynlib2.so with TAG 2): dynlib_call(value) fires
 * dynlib:call(value, TAG). */
#include <sys/sdt.h>

long dynlib_call(long value) {
  DTRACE_PROBE2(dynlib, call, value, TAG);
  return value + TAG;
}
