// The symbol table of one file that appears in recorded stacks (format 1.3,
// object block kind 6), built by the recorder at the end of a recording so
// that usdt-report names frames without the traced binaries.
//
// Symbols are function symbols (STT_FUNC, STT_GNU_IFUNC) placed by FILE
// OFFSET (their address through the file's PT_LOAD segments), names as in
// the table (C++ names mangled: the report demangles). They come from the
// table perf would read: the file's .symtab; for a stripped file the
// .symtab of its separate debug file (record/dwarf/debuginfo_finder.h: by
// build-id or .gnu_debuglink); else .dynsym. Several names at one offset
// keep one, the one perf would show (a sized one, not weak, global, fewer
// leading underscores, the longer name). Only the symbols that hold a
// recorded frame are written (a stripped libc's debug file has 10,000
// functions, a stack touches a handful), with explicit sizes. The [vdso] is read from the
// recorder's own memory: one kernel maps the same vdso in every process.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/trace_types.h"
#include "record/dwarf/debuginfo_finder.h"
#include "record/stacks/stack_collector.h"

namespace usdt::record {

// The recorder's own vdso: its bytes and build-id.
struct VdsoImage {
  std::vector<unsigned char> bytes;
  std::string build_id;  // hex, "" when it has none
};
// Fails when the process has no vdso (AT_SYSINFO_EHDR) or it is not ELF.
Result<VdsoImage> own_vdso();

// Whether the file of status st changed (its ctime) after since_ns
// (CLOCK_REALTIME); always true for since_ns 0 (not known).
bool changed_after(const struct stat& st, int64_t since_ns);

// The symbols of object. Fails when the file cannot be read, when its
// build-id is not the one recorded (the file changed since it was mapped),
// or when only its plain path is left, it has no build-id and it changed
// since the recording began (StackObject::unchanged_since_ns): then nothing
// tells that it is the file the process mapped.
// A file without any function symbol gives a table without symbols (its
// frames then print as file+0xOFFSET).
Result<format::ObjectTable> build_object_table(const StackObject& object,
                                               const DebugSearch& search = {});

}  // namespace usdt::record
