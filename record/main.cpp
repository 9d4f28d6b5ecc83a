// usdt-record: parses the command line, then lists probes or records.
#include <cstdio>
#include <exception>
#include <iostream>

#include "common/build_info.h"
#include "record/list_command.h"
#include "record/session/record_command.h"
#include "record/session/stop_signals.h"
#include "record/record_options.h"

int main(int argc, char** argv) {
  // Before anything is written: a closed pipe is a write error, not death
  // by SIGPIPE (stop_signals.h).
  usdt::record::ignore_broken_pipes();
  try {
    std::ios::sync_with_stdio(false);
    auto options = usdt::record::parse_record_options(argc, argv);
    if (!options) {
      std::cerr << "usdt-record: error: " << options.error().message() << '\n'
                << "hint: see usdt-record --help\n";
      return 2;
    }
    if (options->help) {
      std::cout << usdt::record::record_help_text();
      return 0;
    }
    if (options->version) {
      std::cout << "usdt-record " << usdt::kVersion << " (git " << usdt::kGitRevision << ")\n";
      return 0;
    }
    if (options->list) return usdt::record::run_list_command(*options, std::cout, std::cerr);
    return usdt::record::run_record_command(*options);
  } catch (const std::exception& e) {
    std::cerr << "usdt-record: error: internal error: " << e.what() << '\n';
  } catch (...) {
    std::cerr << "usdt-record: error: internal error\n";
  }
  return 1;
}
