// Arguments as tracefs fetch-args (Documentation/trace/uprobetracer.rst):
// the kernel reads them when the probe fires, into the event's raw record.
//
// Argument i of a site becomes these fields of the raw record:
//   a<i>   its value (u8..u64 / s8..s64 by the spec's size and sign), or,
//          for a string, "+0(POINTER):string";
//   a<i>f, a<i>l   for a value in memory: the bytes at its first and last
//          address read as strings. A fetch that faults (an unmapped page)
//          stores 0 in a<i> (copy_from_user zero-fills what it could not read),
//          which is also a real value; a string fetch that faults has length
//          0, while the first byte of a real 0 reads as "" (length 1). So a
//          value of 0 is present only when both detectors have a length.
//          A symbol of the probed file (sym(%rip)) has no detectors: it lies
//          in the file's loaded data, where a read cannot fault.
// A string that faults, or a NULL pointer, has length 0: missing.
#pragma once

#include <cstddef>
#include <string>

#include "common/arg_spec.h"
#include "common/result.h"

namespace usdt::record {

std::string value_field(size_t arg);
std::string first_byte_field(size_t arg);
std::string last_byte_field(size_t arg);

// The fetch-args that read argument `arg` (x86-64), as "a0=... a0f=...";
// an Error says why the kernel cannot read it (%xmm, a base plus a scaled
// index, an unresolved symbol, a constant taken as a string).
// file_base: the probe's link-time address minus its file offset (0 for a
// PIE's text; 0x400000 for a classic non-PIE executable): @+ offsets are
// relative to where the kernel maps that, so they take the symbol's
// link-time address, not its file offset (kernel/trace/trace_uprobe.c,
// translate_user_vaddr()).
Result<std::string> kernel_read_fetch_args(const ArgSpec& spec, size_t arg, bool as_string,
                                           uint64_t file_base = 0);

// The tracefs name of a perf x86 register number ("di", "r8"); "" if none.
std::string tracefs_register(int16_t reg);

}  // namespace usdt::record
