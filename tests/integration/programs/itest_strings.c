/* char * arguments, for --string: each probe passes a string pointer as arg0
 * and the iteration i as arg1, through <sys/sdt.h> (GCC chooses the
 * operands; at -O2 both are registers, see readelf -n).
 *
 * Usage: itest_strings [ITERATIONS [print]]  (ITERATIONS defaults to 1)
 * Each probe fires once per iteration i = 0 .. ITERATIONS-1, in the order
 * below. With "print", one line per hit: strings:NAME i=I len=L text="..."
 * (text C-escaped: \\ \" and \xHH for bytes outside 0x20-0x7e; len=null and
 * text=null for NULL and unmapped pointers).
 *
 * Probes (arg0 = the string, arg1 = i):
 *   strings:ascii      "ascii-" followed by i in decimal ("ascii-0", "ascii-1", ...)
 *   strings:empty      "" (a valid pointer to a NUL byte)
 *   strings:long300    300 bytes, byte k = 'a' + (i + k) % 26, then NUL
 *   strings:long1000   1000 bytes, byte k = 'A' + (i + k) % 26, then NUL
 *   strings:invalid    the 8 bytes ff fe 20 61 62 63 c3 28 ("\xff\xfe abc" then a
 *                      truncated two-byte sequence "\xc3("), then NUL: not UTF-8
 *   strings:null       NULL: the string is null
 *   strings:unmapped   0x20000040, in a page that was mapped, written and then
 *                      unmapped: the string is null (the read faults)
 *   strings:two        arg0 "left-" + i, arg1 NULL, arg2 "" , arg3 i
 * Exit status 3: the page at 0x20000000 could not be mapped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <unistd.h>

#define UNMAPPED_PAGE 0x20000000ul

static int print_values;

static void print_string(const char* probe, long i, const char* s) {
  if (!print_values) return;
  if (s == NULL || (uintptr_t)s - UNMAPPED_PAGE < 4096) {
    printf("strings:%s i=%ld len=null text=null\n", probe, i);
    return;
  }
  printf("strings:%s i=%ld len=%zu text=\"", probe, i, strlen(s));
  for (const unsigned char* p = (const unsigned char*)s; *p != 0; ++p) {
    if (*p == '\\' || *p == '"') printf("\\%c", *p);
    else if (*p >= 0x20 && *p <= 0x7e) putchar(*p);
    else printf("\\x%02x", *p);
  }
  printf("\"\n");
}

/* noinline and an escaping buffer keep one probe site per name. */
static void __attribute__((noinline)) fire(long i, char* buf300, char* buf1000, const char* gone) {
  char ascii[32];
  snprintf(ascii, sizeof ascii, "ascii-%ld", i);
  STAP_PROBE2(strings, ascii, ascii, i);
  print_string("ascii", i, ascii);

  static const char empty[] = "";
  STAP_PROBE2(strings, empty, empty, i);
  print_string("empty", i, empty);

  for (int k = 0; k < 300; ++k) buf300[k] = (char)('a' + (i + k) % 26);
  buf300[300] = 0;
  STAP_PROBE2(strings, long300, buf300, i);
  print_string("long300", i, buf300);

  for (int k = 0; k < 1000; ++k) buf1000[k] = (char)('A' + (i + k) % 26);
  buf1000[1000] = 0;
  STAP_PROBE2(strings, long1000, buf1000, i);
  print_string("long1000", i, buf1000);

  static const char invalid[] = "\xff\xfe abc\xc3(";
  STAP_PROBE2(strings, invalid, invalid, i);
  print_string("invalid", i, invalid);

  const char* volatile null_pointer = NULL;
  const char* np = null_pointer;
  STAP_PROBE2(strings, null, np, i);
  print_string("null", i, np);

  STAP_PROBE2(strings, unmapped, gone, i);
  print_string("unmapped", i, gone);

  char left[32];
  snprintf(left, sizeof left, "left-%ld", i);
  STAP_PROBE4(strings, two, left, np, empty, i);
  if (print_values) {
    printf("strings:two i=%ld arg0=\"%s\" arg1=null arg2=\"\" arg3=%ld\n", i, left, i);
  }
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1;
  print_values = argc > 2 && strcmp(argv[2], "print") == 0;
  char* page = mmap((void*)UNMAPPED_PAGE, 4096, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (page != (char*)UNMAPPED_PAGE) {
    fprintf(stderr, "itest_strings: cannot map a page at %#lx\n", UNMAPPED_PAGE);
    return 3;
  }
  memcpy(page + 0x40, "stale text", 11); /* would show if the page stayed mapped */
  munmap(page, 4096);
  /* Through a volatile, so that GCC passes a register, not "$0x20000040". */
  const char* volatile gone_address = (const char*)(UNMAPPED_PAGE + 0x40);
  const char* gone = gone_address;

  char* buf300 = malloc(301);
  char* buf1000 = malloc(1001);
  if (buf300 == NULL || buf1000 == NULL) return 1;
  for (long i = 0; i < n; ++i) fire(i, buf300, buf1000, gone);
  free(buf300);
  free(buf1000);
  return 0;
}
