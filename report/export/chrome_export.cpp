// usdt-report export --format chrome: a Chrome trace-event JSON file
// ({"traceEvents":[...],"displayTimeUnit":"ns"}) that Perfetto's UI and
// chrome://tracing load. Fields follow the Trace Event Format document:
//   matched latency pairs paired on tid or pid: complete events, "ph":"X",
//     "ts" and "dur" in microseconds (fractional, so nanoseconds survive),
//     on the start event's pid/tid. Pairing is last-in first-out per key,
//     and a thread has one tid and one pid, so these slices always nest on
//     their thread, as X events must;
//   pairs paired on an argument (--key argN, e.g. a request id): requests
//     overlap on one thread without nesting, which X events cannot show, so
//     each pair is an async slice: "ph":"b" at the start and "ph":"e" at the
//     end, with "cat":"latency", the start probe as name and "id" the key's
//     value in hex ("0x2a"; for a string key, its 64-bit FNV-1a hash),
//     both on the start event's pid/tid. Perfetto
//     gives each (pid, cat, id, name) its own track, where the LIFO pairing
//     of one key nests again;
//   every other selected event (also unmatched starts and ends): instant
//     events, "ph":"i", "s":"t" (thread scope), with args cpu and argN (a
//     string argument as a JSON string; "truncated_args":[N,...] lists the
//     ones the recorder cut);
//   process and thread names: metadata events, "ph":"M", "process_name" /
//     "thread_name" with args.name;
//   call stacks (format 1.3, usdt-record -g): a "stackFrames" dictionary
//     after traceEvents (report/export/chrome_stack_frames.h); instants and b/e
//     events with a stack have "sf", X slices "sf" (start) and "esf" (end).
// Events come in record order, pairs at their end, the starts never paired
// after the last event in the order they came. With -j N (default every
// CPU) the trace is cut into segments formatted on N threads
// (report/export/export_segments.h); stack ids, numbered in the order of first use
// over the whole output (start before end), are filled in as the segments'
// texts are written.
// ts is relative to the timeline start. When the files come from different
// hosts, pids are made distinct as file_index * 10000000 + pid (Linux pids
// stay below 2^22) and process names carry the host.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "report/export/chrome_stack_frames.h"
#include "report/export/chrome_writer.h"
#include "report/export/export_command.h"
#include "report/export/export_pass.h"
#include "report/export/export_setup.h"
#include "report/output/json_writer.h"
#include "report/output/output_buffer.h"

namespace usdt::report {

namespace {

// The call stacks of one read, each distinct one (StackStore) named once.
class ReadStacks {
 public:
  explicit ReadStacks(StackSymbolizer* symbols) : symbols_(symbols) {}
  // e's stack, named (null when e has none), and its number here (0: none).
  std::shared_ptr<const ChromeStack> of(uint32_t file, const format::Event& e, uint64_t* tag) {
    *tag = 0;
    if (e.stack_depth == 0 && !e.stack_truncated) return nullptr;
    *tag = store_.add(*symbols_, file, e);
    if (named_.size() <= *tag) named_.resize(*tag + 1);
    if (!named_[*tag])
      named_[*tag] = std::make_shared<ChromeStack>(name_stack(*symbols_, store_.get(*tag)));
    return named_[*tag];
  }

 private:
  StackSymbolizer* symbols_;
  StackStore store_;
  std::vector<std::shared_ptr<const ChromeStack>> named_;  // by number
};

class ChromeReader;

class ChromeExporter final : public SegmentExporter {
 public:
  ChromeExporter(const TraceInput& input, const KeySpec& key, ChromeStackFrames& frames)
      : catalog_(input.catalog()), key_(key), start_(input.timeline_start()), frames_(frames) {}

  bool wants_symbols() const override { return true; }

  std::unique_ptr<ExportReader> reader(const Segment& segment, ExportState& state, ExportPass& pass,
                                       OutputBuffer& out) override;

  void fill_hole(const ExportPass::Hole& hole, const LatencyPair* pair, ExportStart* start,
                 OutputBuffer& out, ExportPass* counts) override {
    if (hole.kind == ExportPass::Hole::Kind::stack_id) {
      out.append_int(id_of(hole.stack));
      return;
    }
    ChromeWriter w(out, start_, false);  // holes are never the output's first event
    if (pair != nullptr) {
      const StackRef start_sf{start != nullptr ? id_of(start->stack) : 0, nullptr};
      const StackRef end_sf{id_of(hole.stack), nullptr};
      write_pair(w, catalog_, *pair, key_, start_sf, end_sf, start != nullptr ? &start->copy.event() : nullptr,
                 hole.end ? &hole.end->event.event() : nullptr);
      ++counts->pairs;
      return;
    }
    ExportPass::Hole::End& end = *hole.end;
    write_instant(w, catalog_, end.site, end.domain, end.event.event(), end.time,
                  StackRef{id_of(hole.stack), nullptr});
    ++counts->events;
  }

  void end_of_pass() override { pass_ids_.clear(); }

  std::string_view separator() const override { return ChromeWriter::kChromeSeparator; }

  // The starts never paired, as instants in the order they came, then the
  // names of processes and threads; w continues the events written so far.
  void write_tail(ChromeWriter& w, const TraceInput& input, ExportPass& whole,
                  const ProcessNames& names) {
    if (whole.analyzer) {
      std::vector<uint64_t> open;
      whole.analyzer->for_each_open_start(
          [&](uint32_t, uint32_t, uint64_t, uint64_t tag) { open.push_back(tag); });
      std::sort(open.begin(), open.end());
      for (uint64_t tag : open) {
        std::optional<ExportStart> s = whole.book.take(tag);
        if (!s) continue;  // not reached: every open start was filed
        write_instant(w, catalog_, s->site, s->domain, s->copy.event(), s->time,
                      StackRef{id_of(s->stack), nullptr});
      }
    }
    // Names: one process_name per named process, one thread_name per
    // named thread, sorted so that the file does not depend on hash order.
    struct Named {
      uint32_t domain, pid, tid;
      std::string name;
      bool operator<(const Named& o) const {
        return std::tie(domain, pid, tid) < std::tie(o.domain, o.pid, o.tid);
      }
    };
    std::vector<Named> processes, threads;
    names.for_each_process([&](uint32_t domain, uint32_t pid, const std::string& name) {
      std::string shown = input.hosts_differ() ? name + " (" + input.files()[domain].metadata.hostname + ")" : name;
      processes.push_back(Named{domain, pid, pid, shown});
    });
    names.for_each_thread([&](uint32_t domain, uint32_t tid, const std::string& name) {
      threads.push_back(Named{domain, names.pid_of_thread(domain, tid), tid, name});
    });
    std::sort(processes.begin(), processes.end());
    std::sort(threads.begin(), threads.end());
    for (const auto& [list, kind] : {std::pair{&processes, "process_name"}, std::pair{&threads, "thread_name"}}) {
      for (const Named& n : *list) {
        JsonWriter& j = w.begin_event();
        j.begin_object().key("ph").string("M").key("name").string(kind);
        write_ids(j, chrome_id(n.domain, n.pid), chrome_id(n.domain, n.tid));
        j.key("args").begin_object().key("name").string(n.name).end_object();
        j.end_object();
        w.end_event();
      }
    }
  }

 private:
  // The id of a named stack (0: none), while holes are filled: each
  // distinct stack of a segment is looked up once.
  uint64_t id_of(const std::shared_ptr<const ChromeStack>& stack) {
    if (!stack) return 0;
    auto [it, added] = pass_ids_.try_emplace(stack.get(), stack, 0);
    if (added) it->second.second = frames_.id_of(*stack);
    return it->second.second;
  }

  friend class ChromeReader;

  const ProbeCatalog& catalog_;
  const KeySpec& key_;
  const uint64_t start_;
  ChromeStackFrames& frames_;
  // The ids of the stacks of the pass being written, by address: each entry
  // keeps its ChromeStack alive, so that no other stack can come to have the
  // address of one looked up before (a start's, freed once written).
  std::unordered_map<const ChromeStack*, std::pair<std::shared_ptr<const ChromeStack>, uint64_t>>
      pass_ids_;
};

// One segment's instants and pairs, or the whole input's (alone: stack
// ids numbered as they come, else holes that the writer numbers).
class ChromeReader final : public ExportReader {
 public:
  ChromeReader(ChromeExporter& exporter, bool in_segments, StackSymbolizer* symbols, ExportPass& pass,
               OutputBuffer& out)
      : x_(exporter),
        in_segments_(in_segments),
        pass_(pass),
        out_(out),
        // In segments every event has its separator; export_records drops
        // the output's first. A serial read is the output's only part.
        w_(out, exporter.start_, !in_segments, &pass.holes),
        stacks_(symbols) {}

  void on_event(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e, uint64_t time) override {
    uint64_t tag = 0;
    std::shared_ptr<const ChromeStack> stack = stacks_.of(file, e, &tag);
    if (pass_.analyzer && paired_or_kept(site, file, domain, e, time, tag, stack)) return;
    write_instant(w_, x_.catalog_, site, domain, e, time, ref(tag, stack));
    ++pass_.events;
  }

 private:
  // The pairing's part: true when the event was filed as a start, written
  // as the end of a pair, or kept for the merge; false when it stays an
  // instant.
  bool paired_or_kept(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e, uint64_t time,
                      uint64_t tag, std::shared_ptr<const ChromeStack>& stack) {
    LatencyPair p;
    const uint64_t number = pass_.book.next_number();
    switch (pass_.analyzer->on_event(site, domain, e, time, &p, number)) {
      case LatencyAnalyzer::Outcome::started:  // written when paired or at the end
        pass_.book.add(ExportStart{file, domain, site, time, std::nullopt, std::move(stack), tag, EventCopy(e)});
        return true;
      case LatencyAnalyzer::Outcome::paired: {
        std::optional<ExportStart> s = pass_.book.take(p.start_tag);
        // The start's stack is numbered before the end's.
        const StackRef start_sf = s ? ref(s->stack_tag, s->stack) : StackRef{};
        const StackRef end_sf = ref(tag, stack);
        write_pair(w_, x_.catalog_, p, x_.key_, start_sf, end_sf, s ? &s->copy.event() : nullptr, &e);
        ++pass_.pairs;
        return true;
      }
      case LatencyAnalyzer::Outcome::kept_end: {  // its start may be in an earlier segment
        ExportPass::Hole hole;
        hole.offset = out_.size();
        hole.end = std::make_unique<ExportPass::Hole::End>();
        hole.end->domain = domain;
        hole.end->site = site;
        hole.end->time = time;
        hole.end->event.assign(e);
        hole.stack = std::move(stack);
        pass_.holes.push_back(std::move(hole));
        return true;
      }
      default:
        return false;
    }
  }

  // A stack's "sf": numbered now in a serial read, else a hole.
  StackRef ref(uint64_t tag, const std::shared_ptr<const ChromeStack>& named) {
    if (in_segments_ || tag == 0) return StackRef{0, named};
    if (ids_.size() <= tag) ids_.resize(tag + 1, 0);
    if (ids_[tag] == 0) ids_[tag] = x_.frames_.id_of(*named);
    return StackRef{ids_[tag], nullptr};
  }

  ChromeExporter& x_;
  const bool in_segments_;
  ExportPass& pass_;
  OutputBuffer& out_;
  ChromeWriter w_;
  ReadStacks stacks_;
  std::vector<uint64_t> ids_;  // serial: stack ids by number in stacks_
};

std::unique_ptr<ExportReader> ChromeExporter::reader(const Segment& segment, ExportState& state, ExportPass& pass,
                                                     OutputBuffer& out) {
  return std::make_unique<ChromeReader>(*this, !segment.alone(), state.symbols.get(), pass, out);
}

}  // namespace

int run_chrome_export(const ReportOptions& options, TraceInput& input, CommandIo io) {
  const bool pairs = !options.start.empty() || !options.end.empty();
  int exit_code = 0;
  std::optional<ExportSetup> setup = prepare_export(options, input, pairs, io, &exit_code);
  if (!setup) return exit_code;
  std::FILE* out = setup->file.get();
  ChromeStackFrames frames;
  ProcessNames names;
  ExportPass whole;
  std::fputs(kChromeHeader.data(), out);
  ChromeExporter exporter(input, options.key, frames);
  const EventPass::Written written = export_records(setup->pass, setup->pairing, exporter, out, &whole, &names);
  bool failed = !written.ok;
  {
    OutputBuffer buffer(out);
    const bool first = written.in_segments ? !whole.wrote_text : whole.pairs + whole.events == 0;
    ChromeWriter w(buffer, input.timeline_start(), first);
    exporter.write_tail(w, input, whole, names);
    std::string stack_frames;
    if (!frames.empty()) {
      JsonWriter sf(stack_frames);
      sf.begin_object();
      frames.write(sf);
      sf.end_object();
    }
    write_chrome_end(buffer, stack_frames);
    failed = failed || buffer.failed();
  }
  if (int code = finish_export(*setup, failed, options, io); code != 0) return code;
  if (whole.analyzer) {
    std::fprintf(io.err,
                 "usdt-report: wrote '%s': %llu pairs as slices, %llu unmatched starts, %llu "
                 "unmatched ends\n",
                 options.output.c_str(), static_cast<unsigned long long>(whole.pairs),
                 static_cast<unsigned long long>(whole.analyzer->unmatched_starts()),
                 static_cast<unsigned long long>(whole.analyzer->unmatched_ends()));
  }
  return 0;
}

}  // namespace usdt::report
