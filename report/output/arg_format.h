// Printing argument values by their type: signed decimal, unsigned decimal,
// or the shortest round-trip form of a float. In JSON a non-finite float
// (which JSON cannot hold) is null. A string argument (Event::is_string) is
// not a number: event_arg_text prints it as a string (report/output/string_text.h,
// report/output/json_text.h); the number printers never see one.
#pragma once

#include <cstdint>
#include <string>

#include "formats/trace_types.h"
#include "report/output/json_writer.h"
#include "report/output/output_buffer.h"
#include "report/input/probe_catalog.h"

namespace usdt::report {

void append_arg(OutputBuffer& out, uint64_t raw, ArgType type, bool json);

// The same into begin() space (at most kMaxArgChars bytes).
constexpr size_t kMaxArgChars = 40;
char* put_float_arg(char* p, uint64_t raw, ArgType type, bool json);
inline char* put_arg(char* p, uint64_t raw, ArgType type, bool json) {
  if (type == ArgType::unsigned_int) return put_u64(p, raw);
  if (type == ArgType::signed_int) return put_i64(p, static_cast<int64_t>(raw));
  if (type == ArgType::string) return put_u64(p, raw);  // not reached: strings print apart
  return put_float_arg(p, raw, type, json);
}
std::string arg_text(uint64_t raw, ArgType type, bool json);

// Argument i of e, whatever it holds: null when missing, a string argument
// quoted (text: escaped, `...` after it when cut; JSON: a JSON string), a
// number by type.
std::string event_arg_text(const format::Event& e, int i, ArgType type, bool json);

// Whether a string argument of e was cut by the recorder; and, when one was,
// `"truncated_args":[i,...]` (the indexes of the cut ones) into the object w
// has open. Nothing when none was: the usual case costs one test.
bool any_truncated_string(const format::Event& e);
void write_truncated_args(JsonWriter& w, const format::Event& e);

}  // namespace usdt::report
