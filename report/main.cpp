// usdt-report: offline analysis of usdt-record traces (docs/CLI.md).
#include <cstdio>
#include <exception>

#include "report/report_main.h"

int main(int argc, char** argv) {
  try {
    return usdt::report::report_main(argc, argv, stdout, stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "usdt-report: error: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "usdt-report: error: internal error\n");
  }
  return 1;
}
