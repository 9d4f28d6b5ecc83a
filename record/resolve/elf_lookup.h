// What the recorder asks of an ELF file besides its USDT notes: the shared
// libraries it needs (DT_NEEDED, found like the dynamic loader would through
// DT_RUNPATH/DT_RPATH with $ORIGIN, LD_LIBRARY_PATH and ld.so.cache), and
// whether a semaphore's page is mapped twice. Function symbols are in
// record/resolve/function_symbols.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/library_finder.h"
#include "common/result.h"

namespace usdt::record {

// The binary's libraries, transitively, in breadth-first order, without the
// binary itself, by their canonical paths (common/library_finder.h). Libraries that cannot be found
// are skipped (the loader would fail on them anyway; probes cannot be in them).
std::vector<std::string> needed_libraries(const std::string& binary, const LibraryFinder& finder);

// Whether the file is a dynamically linked program (it has a PT_INTERP, the
// loader that maps its libraries); false when it cannot be read.
bool is_dynamic_executable(const std::string& path);

// Whether the page of the file that holds a semaphore is mapped by more than
// one writable PT_LOAD segment, as lld's default RELRO layout does: the
// kernel then raises the counter in the first mapping (the RELRO copy) and
// the program never sees its semaphore set, and its probes never fire. False when the
// file cannot be read.
bool semaphore_page_mapped_twice(const std::string& path, uint64_t semaphore_offset);

}  // namespace usdt::record
