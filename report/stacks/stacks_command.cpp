// usdt-report stacks: the call stacks of the selected events (format 1.3,
// usdt-record -g), aggregated with counts, hottest first.
//
// Events are first counted per raw stack (probe, the mapping set current at
// the event, the addresses): big traces have millions of events but few
// distinct stacks, and naming frames costs far more than a hash lookup.
// The raw stacks are then named and merged by probe and function names
// (without offsets: two return addresses in one function are one frame, as
// in flame graphs). A frame without a symbol is `object+0xOFFSET`, without
// a mapping `[unknown]`.
//
// --folded: one line per stack, `probe;outermost;...;innermost COUNT`, the
// input of flamegraph.pl, speedscope and Perfetto. The probe is the root, so
// that a flame graph of several probes keeps each probe's stacks apart; a
// cut stack has `[truncated]` right below the probe, where its missing
// outer frames would be. ';' in names becomes ':' and line breaks spaces,
// so that every line splits back into the same frames.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "report/commands.h"
#include "report/output/json_writer.h"
#include "report/input/process_history.h"
#include "report/input/segments.h"
#include "report/symbols/stack_store.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

namespace {

struct NamedFrame {
  std::string function;
  std::string object;
};

struct NamedStack {
  std::string probe;
  std::vector<NamedFrame> frames;  // innermost first
  bool truncated = false;
  uint64_t count = 0;
};

// What one reader (of everything, or of one segment) found: its events'
// stacks, named and merged. Segments merge by adding counts per name; the
// map's order does not depend on how the trace was cut.
struct StacksPass {
  std::map<std::string, NamedStack> merged;  // ordered: ties print in a fixed order
  uint64_t with_stack = 0, without_stack = 0;

  void merge(StacksPass& later) {
    with_stack += later.with_stack;
    without_stack += later.without_stack;
    for (auto& [key, n] : later.merged) {
      auto [it, added] = merged.try_emplace(key, n);
      if (!added) it->second.count += n.count;
    }
  }
};

StacksPass read_stacks(TraceInput& input, const EventFilter& filter, StackSymbolizer& symbols) {
  const ProbeCatalog& catalog = input.catalog();
  StackStore stacks;
  StacksPass pass;
  // Events per (stack number, site): stack * site_count + site.
  const uint64_t site_count = std::max<uint64_t>(catalog.site_count(), 1);
  std::unordered_map<uint64_t, uint64_t> raw;
  Record r;
  while (input.next(r)) {
    if (r.kind == format::RecordKind::process) {
      symbols.on_process(r.file, *r.process);
      continue;
    }
    if (r.kind != format::RecordKind::event) continue;
    const format::Event& e = *r.event;
    uint32_t site = catalog.global_site(r.file, e.site_id);
    if (!filter.accepts(site, e, r.time)) continue;
    const uint64_t stack = stacks.add(symbols, r.file, e);
    if (stack == 0) {
      ++pass.without_stack;
      continue;
    }
    ++pass.with_stack;
    ++raw[stack * site_count + site];
  }
  // Name the distinct raw stacks and merge those with the same names.
  for (const auto& [raw_key, count] : raw) {
    const StackStore::Stack& s = stacks.get(raw_key / site_count);
    const uint32_t site = static_cast<uint32_t>(raw_key % site_count);
    NamedStack n;
    n.probe = catalog.probe_of_site(site).shown_name;
    n.truncated = s.truncated;
    std::string k = n.probe;
    k += '\0';
    k += s.truncated ? '1' : '0';
    for (size_t i = 0; i < s.frames.size(); ++i) {
      const FrameSymbol& f = symbols.resolve_frame(s.mappings.get(), s.frames.data(), i);
      n.frames.push_back(NamedFrame{f.function, f.object});
      k += '\0';
      k += f.function;
      k += '\0';
      k += f.object;
    }
    auto [it, added] = pass.merged.try_emplace(std::move(k), std::move(n));
    it->second.count += count;
  }
  return pass;
}

std::string folded_name(std::string s) {
  for (char& c : s) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

int run_stacks(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "stacks cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  // Stacks and probes only: no argument is decoded.
  Result<EventFilter> filter = make_filter(options, input, /*reads_arguments=*/false);
  if (!filter) {
    print_error(io.err, filter.error().message());
    return 1;
  }
  // On several threads, each segment's symbols start from the process
  // records before it (its mappings), carried by each thread from its last
  // segment; else in one pass.
  std::optional<StacksPass> whole;
  const unsigned threads = report_threads(options.jobs);
  if (threads > 1) {
    if (std::optional<ProcessHistory> history = ProcessHistory::open(input, *filter)) {
      CarriedStates<StackSymbolizer> carried(
          *history, [&] { return std::make_unique<StackSymbolizer>(input.files()); });
      whole = read_in_segments<StacksPass>(
          input, threads,
          [&](size_t, TraceInput& segment, const std::atomic<bool>&) {
            StacksPass pass = read_stacks(segment, *filter, carried.take(segment.segment_begin()));
            carried.finished(segment.segment_end());
            return pass;
          },
          [](StacksPass& earlier, StacksPass& later) {
            earlier.merge(later);
            return true;
          });
    }
  }
  if (!whole) {
    StackSymbolizer symbols(input.files());
    whole = read_stacks(input, *filter, symbols);
  }
  const uint64_t with_stack = whole->with_stack, without_stack = whole->without_stack;
  const std::map<std::string, NamedStack>& merged = whole->merged;
  report_read_problems(input, io.err);
  if (with_stack == 0) {
    print_error(io.err,
                without_stack == 0
                    ? "no events selected, so no call stacks to show"
                    : "the selected events have no call stacks (record them with usdt-record -g)");
    return 1;
  }

  std::vector<const NamedStack*> order;
  for (const auto& [unused, n] : merged) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(),
                   [](const NamedStack* a, const NamedStack* b) { return a->count > b->count; });

  std::string out;
  if (options.folded) {
    // Folded lines carry function names only, so stacks that differ only in
    // the objects of their frames (a function of one name in two files) are
    // one line: a flame graph tool would add them up anyway.
    std::map<std::string, uint64_t> lines;
    for (const NamedStack* n : order) {
      std::string line = folded_name(n->probe);
      if (n->truncated) line += ";[truncated]";
      for (size_t i = n->frames.size(); i-- > 0;) {
        line += ';';
        line += folded_name(n->frames[i].function);
      }
      lines[line] += n->count;
    }
    std::vector<std::pair<const std::string*, uint64_t>> hottest;
    for (const auto& [line, count] : lines) hottest.emplace_back(&line, count);
    std::stable_sort(hottest.begin(), hottest.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [line, count] : hottest) {
      out += *line;
      out += ' ';
      out += std::to_string(count);
      out += '\n';
    }
  } else if (options.format == "json") {
    JsonWriter w(out);
    w.begin_object().key("events").uint(with_stack).key("events_without_stack").uint(without_stack);
    w.key("stacks").begin_array();
    for (const NamedStack* n : order) {
      w.begin_object().key("count").uint(n->count).key("probe").string(n->probe);
      w.key("frames").begin_array();
      for (const NamedFrame& f : n->frames) {
        w.begin_object()
            .key("function")
            .string(f.function)
            .key("object")
            .string(f.object)
            .end_object();
      }
      w.end_array();
      if (n->truncated) w.key("truncated").boolean(true);
      w.end_object();
    }
    w.end_array().end_object();
    out += '\n';
  } else {
    out += std::to_string(with_stack) + " events with a call stack, " +
           std::to_string(order.size()) + " distinct stacks";
    if (without_stack > 0)
      out += " (" + std::to_string(without_stack) + " selected events without one)";
    out += "\n";
    char head[64];
    for (const NamedStack* n : order) {
      std::snprintf(head, sizeof head, "\n%10llu %6.2f%%  ",
                    static_cast<unsigned long long>(n->count),
                    100.0 * static_cast<double>(n->count) / static_cast<double>(with_stack));
      out += head;
      out += n->probe;
      out += '\n';
      for (const NamedFrame& f : n->frames)
        out += "        " + f.function + " (" + f.object + ")\n";
      if (n->truncated) out += "        (truncated)\n";
    }
  }
  std::fputs(out.c_str(), io.out);
  if (std::fflush(io.out) != 0 || std::ferror(io.out)) {
    print_error(io.err, "cannot write the output (disk full or closed pipe?)");
    return 1;
  }
  return 0;
}

}  // namespace usdt::report
