// Placeholder until the recording session lands record_command.cpp.
#include <cstdio>

#include "record/record_command.h"

namespace usdt::record {

int run_record_command(const RecordOptions&) {
  std::fputs("usdt-record: error: recording is not implemented yet\n", stderr);
  return 1;
}

}  // namespace usdt::record
