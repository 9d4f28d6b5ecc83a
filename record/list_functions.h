// usdt-record -l 'uprobe:PATH:PATTERN': the functions a function probe
// pattern selects in its file, as a recording would attach them.
#pragma once

#include <cstddef>
#include <ostream>
#include <vector>

#include "common/library_finder.h"
#include "common/probe_spec.h"
#include "record/record_options.h"

namespace usdt::record {

// Lists the functions a uprobe/uretprobe spec selects in its file, one per
// line as uprobe:PATH:SYMBOL (-v: address, size, file offset, binding, each
// parameter and how it is read, the call frame); adds their number to
// *printed. False, after printing the error, when the file cannot be found
// or read.
bool list_functions(const ProbeSpec& spec, bool verbose, const std::vector<StringArgs>& strings,
                    CaptureMode capture, const LibraryFinder& finder, std::ostream& out, std::ostream& err,
                    size_t* printed);

}  // namespace usdt::record
