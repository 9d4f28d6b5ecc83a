// The layout of a kernel tracepoint's raw record, parsed from its tracefs
// format file (events/SUBSYS/EVENT/format). Source of truth: the kernel's
// kernel/trace/trace_events.c (f_show, print_event_fields) and libtraceevent's
// event-parse.c, which read the same text. Each field line reads
//
//   field:TYPE NAME[LEN];<TAB>offset:N;<TAB>size:N;<TAB>signed:0|1;
//
// where TYPE may be "__data_loc ELEM[]" (a u32 in the record: the payload's
// offset from the start of the raw data | its length << 16) or "__rel_loc
// ELEM[]" (the same, the offset counted from the end of the u32 itself).
// The recorder keeps what the trace needs: how to decode each field
// (formats/FORMAT.md section 3.4.1). Lines it does not understand are
// skipped; a field line without a valid offset or size is an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace usdt::record {

// How a field's value is taken from the raw record.
enum class FieldForm : uint8_t {
  integer,          // size 1, 2, 4 or 8
  char_array,       // char NAME[N]: a string, up to its first NUL
  byte_array,       // any other fixed array, or a field of another size: hex bytes
  data_loc_string,  // __data_loc char[] (or __rel_loc)
  data_loc_bytes,   // __data_loc of another element type: hex bytes
};

struct TracepointField {
  std::string name;  // without [LEN]
  std::string type;  // as declared, e.g. "pid_t", "__data_loc char[]", "char"
  std::string line;  // the field's line, tabs as single spaces: "field:pid_t prev_pid; ..."
  uint32_t offset = 0;
  uint32_t size = 0;
  bool is_signed = false;
  bool rel_loc = false;  // __rel_loc: offset counted from the end of the u32
  FieldForm form = FieldForm::integer;
  bool common() const { return name.rfind("common_", 0) == 0; }
};

struct TracepointFormat {
  std::string name;                     // "sched_switch"
  uint32_t id = 0;                      // the "ID:" line: perf_event_attr::config
  std::vector<TracepointField> fields;  // in file order, common_* included
};

// Parses the text of a format file; fails naming the line that is malformed.
Result<TracepointFormat> parse_tracepoint_format(const std::string& text);

}  // namespace usdt::record
