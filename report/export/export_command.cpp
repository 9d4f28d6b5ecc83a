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

#include "report/output/arg_format.h"
#include "report/export/chrome_stack_frames.h"
#include "report/export/clickhouse_export.h"
#include "report/commands.h"
#include "report/export/export_segments.h"
#include "report/export/export_setup.h"
#include "report/output/json_writer.h"
#include "report/pairing/latency_analyzer.h"
#include "report/pairing/latency_setup.h"
#include "report/output/output_buffer.h"
#include "report/output/output_file.h"
#include "report/input/process_names.h"
#include "report/input/segments.h"

namespace usdt::report {

namespace {

// A call stack's "sf" value: its id when known, else (in a segment) its
// named stack, numbered when the text is written; neither: no stack.
struct StackRef {
  uint64_t id = 0;
  std::shared_ptr<const NamedStack> named;
};

// Writes trace events: each is built with a JsonWriter into a scratch
// string, then appended to out with the ",\n" that separates events (but
// before the first, when told which one is first). Stack ids not known yet
// become holes (report/export/export_segments.h) in *holes.
class ChromeWriter {
 public:
  // first: the next event is the output's first (no separator).
  ChromeWriter(OutputBuffer& out, uint64_t start, bool first,
               std::vector<ExportPass::Hole>* holes = nullptr)
      : out_(out), start_(start), first_(first), holes_(holes), json_(event_) {}

  // Starts the next event: the writer is positioned before its '{'.
  JsonWriter& begin_event() {
    event_.clear();
    json_.reset_top_level();
    return json_;
  }
  void end_event() {
    size_t base = out_.size();
    if (!first_) {
      out_.append(kChromeSeparator);
      base += kChromeSeparator.size();
    }
    first_ = false;
    for (auto& [offset, named] : pending_) {
      ExportPass::Hole hole;
      hole.kind = ExportPass::Hole::Kind::stack_id;
      hole.offset = base + offset;
      hole.stack = std::move(named);
      holes_->push_back(std::move(hole));
    }
    pending_.clear();
    out_.append(event_);
    out_.maybe_flush();
  }

  // "key":ID of a stack, if the event has one.
  void stack_field(const char* key, const StackRef& stack) {
    if (stack.id != 0) {
      json_.key(key).uint(stack.id);
    } else if (stack.named) {
      json_.key(key).number_text("");  // the number comes when the text is written
      pending_.emplace_back(event_.size(), stack.named);
    }
  }

  // Microseconds with three decimals: "1000.000".
  static std::string us_text(uint64_t ns) {
    std::string s = std::to_string(ns / 1000);
    char frac[4] = {static_cast<char>('0' + ns % 1000 / 100), static_cast<char>('0' + ns % 100 / 10),
                    static_cast<char>('0' + ns % 10), 0};
    return s + "." + frac;
  }
  std::string ts_text(uint64_t time) const { return us_text(time >= start_ ? time - start_ : 0); }

  static constexpr std::string_view kChromeSeparator = ",\n";

 private:
  OutputBuffer& out_;
  uint64_t start_;
  bool first_;
  std::vector<ExportPass::Hole>* holes_;
  std::vector<std::pair<size_t, std::shared_ptr<const NamedStack>>> pending_;  // in event_
  std::string event_;
  JsonWriter json_;
};

constexpr std::string_view kChromeHeader = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";

// Ends the traceEvents array and the document; stack_frames: the
// stackFrames object, if any.
void write_chrome_end(OutputBuffer& out, const std::string& stack_frames) {
  out.append("\n]");
  if (!stack_frames.empty()) {
    out.append(",\n\"stackFrames\":");
    out.append(stack_frames);
  }
  out.append("}\n");
  out.flush();
}

uint64_t chrome_id(uint32_t domain, uint32_t id) { return uint64_t{domain} * 10000000u + id; }

void write_ids(JsonWriter& j, uint64_t pid, uint64_t tid) { j.key("pid").uint(pid).key("tid").uint(tid); }

void write_instant(ChromeWriter& w, const ProbeCatalog& catalog, uint32_t site, uint32_t domain,
                   const format::Event& e, uint64_t time, const StackRef& sf) {
  const SiteInfo& info = catalog.site(site);
  JsonWriter& j = w.begin_event();
  j.begin_object().key("ph").string("i").key("s").string("t");
  j.key("name").string(catalog.probe_of_site(site).shown_name);
  j.key("cat").string(catalog.probe_of_site(site).provider);
  j.key("ts").number_text(w.ts_text(time));
  write_ids(j, chrome_id(domain, e.pid), chrome_id(domain, e.tid));
  w.stack_field("sf", sf);
  j.key("args").begin_object().key("cpu").uint(e.cpu);
  for (int i = 0; i < e.arg_count && i < format::kMaxArgs; ++i) {
    j.key(info.arg_label(static_cast<size_t>(i))).number_text(event_arg_text(e, i, arg_type_at(&info, i), true));
  }
  write_truncated_args(j, e);
  j.end_object().end_object();
  w.end_event();
}

// The args of a pair's slice: end probe, exact duration, the key's value.
void write_pair_args(JsonWriter& j, const ProbeCatalog& catalog, const LatencyPair& p, const KeySpec& key) {
  j.key("args").begin_object();
  j.key("end").string(catalog.probe_of_site(p.end_site).shown_name);
  j.key("duration_ns").uint(p.duration);
  j.key(key.text());
  if (p.key_type == ArgType::string) {
    j.string(p.key_text);
    if (p.key_truncated) j.key("key_truncated").boolean(true);
  } else if (key.kind == KeySpec::Kind::arg) {
    j.number_text(arg_text(p.key, p.key_type, true));
  } else {
    j.uint(p.key);
  }
  j.end_object();
}

// The async id of an argument-keyed pair: the key's raw value in hex.
std::string async_id(uint64_t key) {
  static const char kHex[] = "0123456789abcdef";
  std::string digits;
  do {
    digits.insert(digits.begin(), kHex[key & 15]);
    key >>= 4;
  } while (key != 0);
  return "0x" + digits;
}

// start_sf, end_sf: the stacks of the start and end events.
void write_pair(ChromeWriter& w, const ProbeCatalog& catalog, const LatencyPair& p,
                const KeySpec& key, const StackRef& start_sf, const StackRef& end_sf) {
  const std::string& name = catalog.probe_of_site(p.start_site).shown_name;
  const uint64_t pid = chrome_id(p.domain, p.pid);
  const uint64_t tid = chrome_id(p.domain, p.tid);
  if (key.kind != KeySpec::Kind::arg) {
    JsonWriter& j = w.begin_event();
    j.begin_object().key("ph").string("X").key("name").string(name).key("cat").string("latency");
    j.key("ts").number_text(w.ts_text(p.start_time)).key("dur").number_text(ChromeWriter::us_text(p.duration));
    write_ids(j, pid, tid);
    w.stack_field("sf", start_sf);
    w.stack_field("esf", end_sf);
    write_pair_args(j, catalog, p, key);
    j.end_object();
    w.end_event();
    return;
  }
  const std::string id = async_id(p.key);
  JsonWriter& b = w.begin_event();
  b.begin_object().key("ph").string("b").key("name").string(name).key("cat").string("latency").key("id").string(id);
  b.key("ts").number_text(w.ts_text(p.start_time));
  write_ids(b, pid, tid);
  w.stack_field("sf", start_sf);
  write_pair_args(b, catalog, p, key);
  b.end_object();
  w.end_event();
  JsonWriter& e = w.begin_event();
  e.begin_object().key("ph").string("e").key("name").string(name).key("cat").string("latency").key("id").string(id);
  e.key("ts").number_text(w.ts_text(p.end_time));
  write_ids(e, pid, tid);
  w.stack_field("sf", end_sf);
  e.end_object();
  w.end_event();
}

// The call stacks of one read, each distinct one (StackStore) named once.
class ReadStacks {
 public:
  explicit ReadStacks(StackSymbolizer* symbols) : symbols_(symbols) {}
  // e's stack, named (null when e has none), and its number here (0: none).
  std::shared_ptr<const NamedStack> of(uint32_t file, const format::Event& e, uint64_t* tag) {
    *tag = 0;
    if (e.stack_depth == 0 && !e.stack_truncated) return nullptr;
    *tag = store_.add(*symbols_, file, e);
    if (named_.size() <= *tag) named_.resize(*tag + 1);
    if (!named_[*tag])
      named_[*tag] = std::make_shared<NamedStack>(name_stack(*symbols_, store_.get(*tag)));
    return named_[*tag];
  }

 private:
  StackSymbolizer* symbols_;
  StackStore store_;
  std::vector<std::shared_ptr<const NamedStack>> named_;  // by number
};

// The Chrome export of records: instants, and with pairing the pairs as
// slices, with the "sf" of their stacks. frames numbers the stacks: during
// a serial read, and in the holes of segments' texts as they are written.
class ChromeExporter final : public SegmentExporter {
 public:
  ChromeExporter(const TraceInput& input, const EventFilter& filter, const KeySpec& key,
                 bool in_segments, ChromeStackFrames& frames)
      : catalog_(input.catalog()),
        filter_(filter),
        key_(key),
        domains_(file_domains(input)),
        start_(input.timeline_start()),
        in_segments_(in_segments),
        frames_(frames) {}

  bool wants_symbols() const override { return true; }

  void read(TraceInput& input, ProcessNames& names, StackSymbolizer* symbols, ExportPass& pass,
            OutputBuffer& out) override {
    // In segments every event has its separator; export_in_segments drops
    // the output's first. A serial read is the output's only part.
    ChromeWriter w(out, start_, !in_segments_, &pass.holes);
    ReadStacks stacks(symbols);
    std::vector<uint64_t> ids;  // serial: stack ids by number in `stacks`
    // A stack's "sf": numbered now in a serial read, else a hole.
    auto ref = [&](uint64_t tag, const std::shared_ptr<const NamedStack>& named) {
      if (in_segments_ || tag == 0) return StackRef{0, named};
      if (ids.size() <= tag) ids.resize(tag + 1, 0);
      if (ids[tag] == 0) ids[tag] = frames_.id_of(*named);
      return StackRef{ids[tag], nullptr};
    };
    Record r;
    while (input.next(r)) {
      if (r.kind == format::RecordKind::process) {
        names.on_process(domains_[r.file], *r.process);
        symbols->on_process(r.file, *r.process);
        continue;
      }
      if (r.kind != format::RecordKind::event) continue;
      const format::Event& e = *r.event;
      const uint32_t site = catalog_.global_site(r.file, e.site_id);
      if (!filter_.accepts(site, e, r.time)) continue;
      const uint32_t domain = domains_[r.file];
      uint64_t tag = 0;
      std::shared_ptr<const NamedStack> stack = stacks.of(r.file, e, &tag);
      if (pass.analyzer) {
        LatencyPair p;
        const uint64_t number = pass.book.next_number();
        switch (pass.analyzer->on_event(site, domain, e, r.time, &p, number)) {
          case LatencyAnalyzer::Outcome::started:  // written when paired or at the end
            pass.book.add(ExportStart{r.file, domain, site, r.time, std::nullopt, std::move(stack),
                                      tag, EventCopy(e)});
            continue;
          case LatencyAnalyzer::Outcome::paired: {
            std::optional<ExportStart> s = pass.book.take(p.start_tag);
            // The start's stack is numbered before the end's.
            const StackRef start_sf = s ? ref(s->stack_tag, s->stack) : StackRef{};
            const StackRef end_sf = ref(tag, stack);
            write_pair(w, catalog_, p, key_, start_sf, end_sf);
            ++pass.pairs;
            continue;
          }
          case LatencyAnalyzer::Outcome::kept_end: {  // its start may be in an earlier segment
            ExportPass::Hole hole;
            hole.offset = out.size();
            hole.end = std::make_unique<ExportPass::Hole::End>();
            hole.end->domain = domain;
            hole.end->site = site;
            hole.end->time = r.time;
            hole.end->event.assign(e);
            hole.stack = std::move(stack);
            pass.holes.push_back(std::move(hole));
            continue;
          }
          default:
            break;
        }
      }
      write_instant(w, catalog_, site, domain, e, r.time, ref(tag, stack));
      ++pass.events;
    }
  }

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
      write_pair(w, catalog_, *pair, key_, start_sf, end_sf);
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
  uint64_t id_of(const std::shared_ptr<const NamedStack>& stack) {
    if (!stack) return 0;
    auto [it, added] = pass_ids_.try_emplace(stack.get(), stack, 0);
    if (added) it->second.second = frames_.id_of(*stack);
    return it->second.second;
  }

  const ProbeCatalog& catalog_;
  const EventFilter& filter_;
  const KeySpec& key_;
  const std::vector<uint32_t> domains_;
  const uint64_t start_;
  const bool in_segments_;
  ChromeStackFrames& frames_;
  // The ids of the stacks of the pass being written, by address: each entry
  // keeps its NamedStack alive, so that no other stack can come to have the
  // address of one looked up before (a start's, freed once written).
  std::unordered_map<const NamedStack*, std::pair<std::shared_ptr<const NamedStack>, uint64_t>>
      pass_ids_;
};

}  // namespace

int run_export(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format.starts_with("clickhouse-")) return run_clickhouse_export(options, input, io);
  if (options.format != "chrome") {
    print_error(io.err,
                "export writes --format chrome, clickhouse-events or clickhouse-pairs (got '" +
                    options.format + "')");
    return 2;
  }
  const bool pairs = !options.start.empty() || !options.end.empty();
  int exit_code = 0;
  std::optional<ExportSetup> setup = prepare_export(options, input, pairs, io, &exit_code);
  if (!setup) return exit_code;
  OutputFile* file = &setup->file;
  std::FILE* out = file->get();
  ChromeStackFrames frames;
  ProcessNames names;
  ExportPass whole;
  std::fputs(kChromeHeader.data(), out);
  std::optional<bool> in_segments;
  {
    ChromeExporter exporter(input, setup->filter, options.key, true, frames);
    in_segments = export_in_segments(input, setup->filter, report_threads(options.jobs),
                                     setup->pairing, exporter, out, &whole, &names);
  }
  bool failed = false;
  {
    OutputBuffer buffer(out);
    ChromeExporter exporter(input, setup->filter, options.key, false, frames);
    bool first = true;
    if (in_segments) {
      failed = !*in_segments;
      first = !whole.wrote_text;
    } else {
      if (setup->pairing) whole.analyzer.emplace(*setup->pairing);
      StackSymbolizer symbols(input.files());
      exporter.read(input, names, &symbols, whole, buffer);
      first = whole.pairs + whole.events == 0;
    }
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
  if (int code = finish_export(*setup, failed, options, input, io); code != 0) return code;
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
