// What the recorder asks of an ELF file besides its USDT notes: the shared
// libraries it needs (DT_NEEDED, found like the dynamic loader would through
// DT_RUNPATH/DT_RPATH with $ORIGIN, LD_LIBRARY_PATH and ld.so.cache), and
// the file offset of a function symbol for uprobe:PATH:SYMBOL (the symbol's
// address mapped to a file offset through the PT_LOAD segment that holds it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/library_finder.h"
#include "common/result.h"

namespace usdt::record {

// The binary's libraries, transitively, in breadth-first order, without the
// binary itself. Libraries that cannot be found are skipped (the loader
// would fail on them anyway; probes cannot be in them).
std::vector<std::string> needed_libraries(const std::string& binary, const LibraryFinder& finder);

// The file offset of symbol + offset in the file (.symtab, else .dynsym).
// Fails naming the file when the symbol is absent, ambiguous with different
// addresses, or outside every loadable segment.
Result<uint64_t> symbol_file_offset(const std::string& path, const std::string& symbol,
                                    uint64_t offset);

// Whether the page of the file that holds a semaphore is mapped by more than
// one writable PT_LOAD segment, as lld's default RELRO layout does: the
// kernel then raises the counter in the first mapping (the RELRO copy) and
// the program never sees its semaphore set (FIELD-NOTES.md). False when the
// file cannot be read.
bool semaphore_page_mapped_twice(const std::string& path, uint64_t semaphore_offset);

}  // namespace usdt::record
