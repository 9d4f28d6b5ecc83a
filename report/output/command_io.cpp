#include "report/output/command_io.h"

namespace usdt::report {

void print_error(std::FILE* err, const std::string& message) {
  std::fprintf(err, "usdt-report: error: %s\n", message.c_str());
}

void print_warning(std::FILE* err, const std::string& message) {
  std::fprintf(err, "usdt-report: warning: %s\n", message.c_str());
}

void print_warnings(std::FILE* err, const std::vector<std::string>& messages) {
  for (const std::string& m : messages) print_warning(err, m);
}

int command_failed(CommandIo io, const Error& error) {
  print_error(io.err, error.message());
  return 1;
}

}  // namespace usdt::report
