// usdt-report dump: one line per event in time order, as text, JSONL or CSV.
// The hot loop formats with std::to_chars into a large buffer; the per-site
// parts of a line (names, quoting) are built once per site, not per event.
//
// jsonl: the parts of a line that hold strings (provider, name, host) are
// built once per site and file with JsonWriter; the per-event loop adds only
// numbers and null, with put_* into the output buffer, for speed.
// csv: an argument that was not recorded is `null`, an argument the probe
// does not have (another probe has more) is an empty field. A path column
// follows name when two selected probes share a name in different files.
//
// String arguments (report/output/string_text.h): text "quoted, escaped", with `...`
// after the closing quote when the recorder cut the string; jsonl a JSON
// string, and the line gets "truncated_args":[i,...] when one was cut; csv
// an RFC 4180 quoted field, and the header gets a last column truncated_args
// (the indexes of the cut ones, space-separated) when a selected probe has
// string arguments. Events without strings (string_mask 0) take the loops
// below unchanged: one test per event.
//
// Call stacks (format 1.3, report/output/stack_text.h): text prints the frames
// under their event, jsonl adds "stack":[...] (and "stack_truncated":true),
// csv a last stack column when the trace holds object blocks (the header is
// fixed before the first event, and a trace without them keeps its columns).
// Each frame is named once per mapping set and address and printed from
// its cached text; events without a stack take the loops unchanged.
//
// Times: text shows seconds since the timeline start ("12.000345678");
// jsonl and csv give time_ns, the event's CLOCK_MONOTONIC value exactly as
// recorded (comparable with the recording host's clock, not shifted).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "formats/trace_types.h"
#include "report/input/event_filter.h"
#include "report/input/probe_catalog.h"
#include "report/input/process_names.h"
#include "report/input/query.h"
#include "report/input/trace_input.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

enum class DumpFormat { text, jsonl, csv };

// An RFC 4180 field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);

// What a line needs about a site, precomputed.
struct SitePrefix {
  std::string text;  // text: "provider:name"; jsonl: ,"provider":..,"name":..,"args":[ ; csv: provider,name
  const SiteInfo* info = nullptr;
  // text only: ": provider:name" in 16-byte-padded storage (see put_chunked)
  // and the argument types, so the hot loop does no lookups per argument.
  std::vector<char> padded;
  size_t padded_len = 0;
  ArgType types[format::kMaxArgs] = {};
  uint16_t pointers = 0;  // text only: bit i, argument i prints in hex (an address)
  // text only, for a site whose arguments have names: " name=" or " argN="
  // per argument (else the fixed kTextArgLabels), and their total length.
  std::vector<std::string> labels;
  size_t labels_len = 0;
  // text only: what follows the last argument; ")" for a function's entry
  // shown as a call, "work(n=3, m=10)".
  std::string closing;
};

// What every reader of one dump shares, fixed before the first event.
struct DumpSetup {
  DumpFormat format = DumpFormat::text;
  const EventFilter* filter = nullptr;
  const ProbeCatalog* catalog = nullptr;
  std::vector<uint32_t> domains;  // per file (ProcessNames)
  bool hosts = false;             // events carry their host
  std::vector<SitePrefix> prefixes;
  std::vector<std::string> host_labels;  // per file, escaped for the format
  size_t max_args = 0;                   // csv: argument columns
  bool strings = false;                  // csv: a truncated_args column
  bool stacks = false;                   // csv: a stack column
  std::string unknown_name;              // a thread the trace never named
  bool paths = false;                    // csv: a path column (two probes share a name)
};

// The setup of a dump in format of the input's selected sites.
DumpSetup make_dump_setup(DumpFormat format, const TraceInput& input, const EventFilter& filter,
                          const std::vector<uint32_t>& domains);

// csv's header line (its columns are fixed before the first event).
std::string csv_header(const DumpSetup& setup);

// What a reader of the dump learns from the process records as it goes:
// thread names and the mappings stacks are named against. A segment's
// reader starts from every process record before it (the pass carries it).
class DumpState {
 public:
  DumpState(const DumpSetup& setup, const std::vector<TraceFileInfo>& files)
      : symbols(files), setup_(setup) {}
  void on_process(uint32_t file, const format::ProcessEvent& p) {
    names.on_process(setup_.domains[file], p);
    symbols.on_process(file, p);
  }
  // A name as printed (text: right-aligned in 16; csv: quoted).
  const std::string& shown(uint32_t n) {
    if (n == ProcessNames::kNoName) return setup_.unknown_name;
    while (shown_names_.size() <= n) {
      const std::string& raw = names.name(static_cast<uint32_t>(shown_names_.size()));
      if (setup_.format == DumpFormat::text) {
        shown_names_.push_back(raw.size() < 16 ? std::string(16 - raw.size(), ' ') + raw : raw);
      } else {
        shown_names_.push_back(csv_field(raw));
      }
    }
    return shown_names_[n];
  }

  ProcessNames names;
  StackSymbolizer symbols;

 private:
  const DumpSetup& setup_;
  // A deque: callers keep pointers to its strings across growth.
  std::deque<std::string> shown_names_;
};

}  // namespace usdt::report
