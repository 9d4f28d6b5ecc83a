// usdt-report: offline analysis of usdt-record traces (docs/CLI.md).
#include <malloc.h>

#include <cstdio>
#include <exception>

#include "report/report_main.h"

int main(int argc, char** argv) {
  // Each chunk is read into buffers of a megabyte or so, per reader, and a
  // parallel report makes a reader per segment on each thread. By default
  // glibc hands freed blocks that large back to the kernel (mmap, trimming),
  // and the next reader faults every page in again, which costs more than
  // decoding them. Kept, they are reused; the reader's memory budget
  // (--max-memory) bounds what is held at once.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  try {
    return usdt::report::report_main(argc, argv, stdout, stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "usdt-report: error: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "usdt-report: error: internal error\n");
  }
  return 1;
}
