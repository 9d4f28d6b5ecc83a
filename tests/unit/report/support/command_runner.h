// Runs usdt-report's commands on in-memory traces (tests/unit/support/memory_trace.h) as
// the command line would, and the small traces the command tests share: the demo of two
// nested requests and the one with string arguments.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "formats/trace_types.h"
#include "tests/unit/support/memory_trace.h"

namespace usdt::report::test {

// What a command printed and returned.
struct Output {
  std::string out;
  std::string err;
  int code = 0;
};

// Parses `usdt-report WORDS... memory.trace` and runs it on input; a parse that does not
// run (misuse, --help) gives its text in err and its exit code.
Output run(const std::vector<std::string>& words, TraceInput& input);

// The rest of f from its start, and f closed.
std::string read_all(std::FILE* f);
std::string read_file(const std::string& path);

format::ProbeSite site(uint32_t id, std::string provider, std::string name, int args,
                       bool is_signed = false);
format::Event ev(uint32_t site_id, uint64_t time, uint32_t pid, uint32_t tid,
                 std::vector<int64_t> args, uint16_t missing = 0);
format::TraceMetadata meta(std::string host, uint64_t mono, uint64_t real);

// Starts at 1 s monotonic; two requests on tid 11, one nested: demo:req_start(2 args),
// demo:req_done(1), demo:tick(0), 7 events, 4 lost.
void fill_demo(MemoryTrace& t);

// A trace with string arguments: db:query(text, n) and db:done(text); the StringArgs live
// as long as the test's Strings.
struct Strings {
  std::string ascii = "SELECT 1";
  std::string odd = "a,\"b\"\n\xff";
  std::string cut = "SELECT * FROM t";
  format::StringArg s_ascii{ascii, false};
  format::StringArg s_odd{odd, false};
  format::StringArg s_cut{cut, true};
  format::StringArg s_null_text{std::string_view("null"), false};
};
void fill_strings(MemoryTrace& t, const Strings& s);

}  // namespace usdt::report::test
