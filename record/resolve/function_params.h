// The arguments a uprobe or uretprobe on a function records: its
// parameters (or return value) named and typed from DWARF where the file
// has debug information (record/dwarf/), else the ABI argument registers
// (%rdi %rsi %rdx %rcx %r8 %r9, or %rax at the return), unnamed, with a
// warning saying why and what to install. Where DWARF is there but the
// machine code may not follow it (GCC's .isra/.constprop/.part clones,
// DW_CC_nocall), the registers are used too: never a guess by name.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/arg_spec.h"
#include "record/dwarf/debuginfo_finder.h"

namespace usdt::record {

struct FunctionParams {
  std::vector<ArgSpec> args;
  std::vector<std::string> names;  // one per arg, empty without DWARF
  std::vector<std::string> types;  // C types, one per arg, empty without DWARF
  std::vector<bool> pointers;      // per arg: a pointer type; empty without DWARF
  // Set when the ABI registers stand in for the parameters: why, and what
  // would give the real ones.
  std::string fallback;
  std::string hint;
};

// Reads each file's debug information once.
class FunctionParamReader {
 public:
  explicit FunctionParamReader(DebugSearch search = {});
  ~FunctionParamReader();
  FunctionParamReader(FunctionParamReader&&) noexcept;
  FunctionParamReader& operator=(FunctionParamReader&&) noexcept;

  // The arguments of a probe on the function entered at file_offset of
  // path (a uretprobe: ret). `offset` is the +OFFSET of the probe within
  // the function: past the entry the ABI no longer says where anything is,
  // and the registers are recorded as they are.
  FunctionParams read(const std::string& path, uint64_t file_offset, uint64_t offset, bool ret);

 private:
  struct File;
  File& file(const std::string& path);

  DebugSearch search_;
  std::map<std::string, std::unique_ptr<File>> files_;
};

}  // namespace usdt::record
