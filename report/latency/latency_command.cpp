// usdt-report latency: durations between a start and an end probe, paired
// on a key (see LatencyAnalyzer), with exact count/min/mean/max,
// percentiles within LogLinearHistogram::kRelativeError, and histograms.
// String keys and groups (--key/--by argN on a string argument): the text
// output labels a group with the escaped string cut to kGroupLabelChars
// characters ("SELECT ..."...); JSON gives the whole string, and
// "key_truncated":true when the recorder cut it.
#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report/output/arg_format.h"
#include "report/commands.h"
#include "report/stats/duration.h"
#include "report/output/histogram_text.h"
#include "report/output/json_text.h"
#include "report/output/json_writer.h"
#include "report/pairing/latency_analyzer.h"
#include "report/pairing/latency_setup.h"
#include "report/input/process_history.h"
#include "report/input/segments.h"
#include "report/symbols/stack_store.h"
#include "report/output/stack_text.h"
#include "report/output/string_text.h"

namespace usdt::report {

namespace {

struct Percentile {
  const char* name;
  const char* json_key;
  unsigned permille;
};
constexpr Percentile kPercentiles[] = {
    {"p50", "p50_ns", 500}, {"p90", "p90_ns", 900}, {"p99", "p99_ns", 990}, {"p99.9", "p999_ns", 999}};

std::vector<HistogramBucket> stats_buckets(const DurationStats& s) {
  if (s.linear() != nullptr) return trim_empty_ends(s.linear()->buckets());
  return trim_empty_ends(log2_buckets(s.histogram().log2_counts()));
}

// The fields of one set of durations, into the object w has open.
void write_stats_fields(JsonWriter& w, const DurationStats& s) {
  bool any = s.count() > 0;
  w.key("count").uint(s.count());
  w.key("min_ns").uint_or_null(any, s.min());
  w.key("mean_ns").number_text(s.mean_text());
  for (const Percentile& p : kPercentiles) w.key(p.json_key).uint_or_null(any, any ? s.percentile(p.permille) : 0);
  w.key("max_ns").uint_or_null(any, s.max());
  w.key("relative_error").number(LogLinearHistogram::kRelativeError);
  w.key("histogram").begin_array();
  for (const HistogramBucket& b : stats_buckets(s)) {
    w.begin_object();
    w.key("low_ns").number_text(b.has_low ? int128_to_string(b.low) : "null");
    w.key("high_ns").number_text(b.has_high ? int128_to_string(b.high) : "null");
    w.key("count").uint(b.count).end_object();
  }
  w.end_array();
}

std::string stats_text(const DurationStats& s) {
  if (s.count() == 0) return "  no start/end pair matched\n";
  std::string t;
  auto line = [&](const std::string& name, const std::string& value) {
    t += "  " + name + std::string(name.size() < 8 ? 8 - name.size() : 0, ' ') + value + "\n";
  };
  line("count", std::to_string(s.count()));
  line("min", std::to_string(s.min()) + " ns");
  line("mean", s.mean_text() + " ns");
  for (const Percentile& p : kPercentiles) line(p.name, std::to_string(s.percentile(p.permille)) + " ns");
  line("max", std::to_string(s.max()) + " ns");
  t += "\n  histogram (ns):\n";
  std::string bars = render_histogram_text(stats_buckets(s));
  size_t pos = 0;
  while (pos < bars.size()) {
    size_t nl = bars.find('\n', pos);
    t += "  " + bars.substr(pos, nl - pos + 1);
    pos = nl + 1;
  }
  return t;
}

constexpr size_t kTopKeyChars = 40;  // string keys in the --top table

std::string pair_key_text(const LatencyPair& p, const KeySpec& key, bool json) {
  if (p.key_type == ArgType::string)
    return json ? json_string(p.key_text) : text_label(p.key_text, p.key_truncated, kTopKeyChars);
  if (key.kind == KeySpec::Kind::arg) return arg_text(p.key, p.key_type, json);
  return std::to_string(p.key);
}

// The first n of the slowest pairs the analyzer kept (it keeps as many as
// the larger of --top and --slowest).
std::vector<LatencyPair> top_pairs(const LatencyAnalyzer& analyzer, size_t n) {
  std::vector<LatencyPair> top = analyzer.top();
  if (top.size() > n) top.resize(n);
  return top;
}

// The stack of a tag, named by its own symbolizer (StackStore::Stack).
void append_tagged_stack_text(std::string& t, const StackStore& stacks, uint64_t tag) {
  if (tag == 0) {
    t += "        (no stack)\n";
    return;
  }
  const StackStore::Stack& s = stacks.get(tag);
  append_stack_text(t, *s.symbols, s.mappings.get(), s.frames.data(), s.frames.size(), s.truncated,
                    "        ");
}

void write_tagged_stack_json(JsonWriter& w, const StackStore& stacks, uint64_t tag) {
  if (tag == 0) {
    w.key("stack").begin_array().end_array();
    return;
  }
  const StackStore::Stack& s = stacks.get(tag);
  write_stack_json(w, *s.symbols, s.mappings.get(), s.frames.data(), s.frames.size(), s.truncated);
}

}  // namespace

int run_latency(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "latency cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  Result<EventFilter> filter = make_filter(options, input);
  if (!filter) {
    print_error(io.err, filter.error().message());
    return 1;
  }
  Result<LatencyConfig> config = make_latency_config(options, input.catalog());
  if (!config) {
    print_error(io.err, config.error().message());
    return 1;
  }
  std::vector<uint8_t> wanted;
  for (SiteRole role : config->roles) wanted.push_back(role != SiteRole::none ? 1 : 0);
  // Pairs on a thread or process and grouped by one (or by host) read no
  // argument: the readers leave them undecoded (function probes' frames
  // still come).
  const bool arg_key = config->key.kind == KeySpec::Kind::arg;
  const bool arg_groups = config->by && config->by->kind == KeySpec::Kind::arg;
  filter->set_reads_arguments(arg_key || arg_groups);
  narrow_read_filter(*filter, wanted, input);
  for (const TraceFileInfo& f : input.files()) config->hosts.push_back(f.metadata.hostname);
  const ProbeCatalog& catalog = input.catalog();
  std::vector<uint32_t> domains = file_domains(input);
  // --slowest: each start and end event is tagged with the number of its
  // stack in the store, and the slowest pairs come back with their tags.
  const bool want_stacks = options.slowest > 0;
  // Events the kernel lost among those paired (of their sites, or of no
  // known site): a lost start or end leaves its partner unmatched or, on
  // a key that repeats, paired with the wrong one.
  // stop: a parallel read's (report/input/segments.h), checked now and then; set
  // when the groups reach their limit (the parts can then not be merged).
  const EventFilter& events = *filter;
  const bool filtered = events.restricts_anything();
  struct Pass {
    LatencyAnalyzer analyzer;
    uint64_t lost = 0;
    // --slowest: the stacks of the tags, named against the mappings of
    // their time (a segment's symbols start from the process records before it).
    std::unique_ptr<StackSymbolizer> symbols;
    std::unique_ptr<StackStore> stacks;
    // The symbolizers of the parts merged into this one, which name the
    // stacks adopted from their stores.
    std::vector<std::unique_ptr<StackSymbolizer>> merged_symbols;
  };
  auto read = [&](TraceInput& in, Pass& pass, std::atomic<bool>* stop) {
    LatencyAnalyzer& analyzer = pass.analyzer;
    StackSymbolizer* symbols = pass.symbols.get();
    StackStore* stacks = pass.stacks.get();
    // Copies the loop keeps in registers (the captured ones are read through
    // the closure, again after each store the compiler cannot see past).
    const bool check_filter = filtered;
    const bool tag_stacks = want_stacks;
    auto on_event = [&](ProbeCatalog::FileSites sites, uint32_t file, uint32_t domain,
                        const format::Event& e, uint64_t time) {
      const uint32_t site = sites.at(e.site_id);
      if (check_filter && !events.accepts(site, e, time)) return;
      const uint64_t tag = tag_stacks ? stacks->add(*symbols, file, e) : 0;
      analyzer.on_event(site, domain, e, time, nullptr, tag);
    };
    Record r;
    for (uint64_t n = 0; in.next(r); ++n) {
      if (pass_must_stop(stop, n, analyzer.pairs_outside_groups() > 0)) return;
      if (r.kind == format::RecordKind::event) {  // the common case first
        on_event(catalog.sites_of(r.file), r.file, domains[r.file], *r.event, r.time);
        // The events of a run that follow, all of one file, in one loop.
        const format::Event* run = nullptr;
        uint32_t file = 0;
        uint32_t k = in.take_rest_of_run(&run, &file);
        if (k == 0) continue;
        // The file's site table and domain once per run: each event's
        // start-or-end branch, often mispredicted, waits on its site lookup,
        // and the per-event global_site() and domains[file] took 0.36 s of
        // CPU on 10 M events where this takes 0.31 s.
        const ProbeCatalog::FileSites sites = catalog.sites_of(file);
        const uint32_t domain = domains[file];
        for (; k != 0; --k, ++run) on_event(sites, file, domain, *run, run->time_ns);
      } else if (r.kind == format::RecordKind::process) {
        if (want_stacks) symbols->on_process(r.file, *r.process);
      } else if (r.kind == format::RecordKind::lost) {
        const bool known = r.lost->site_id != format::kNoSite;
        const uint32_t site = known ? catalog.global_site(r.file, r.lost->site_id) : 0;
        const bool paired = !known || (site < wanted.size() && wanted[site] != 0);
        if (paired && events.in_time_window(r.time)) pass.lost += r.lost->count;
      }
    }
  };
  // symbols: where the pass's symbolizer starts (a segment's), else afresh.
  auto new_pass = [&](LatencyConfig c, const StackSymbolizer* symbols = nullptr) {
    Pass p{LatencyAnalyzer(std::move(c)), 0, nullptr, nullptr, {}};
    if (want_stacks) {
      p.symbols = symbols != nullptr ? std::make_unique<StackSymbolizer>(*symbols)
                                     : std::make_unique<StackSymbolizer>(input.files());
      p.stacks = std::make_unique<StackStore>();
    }
    return p;
  };
  // Split by time on several threads. --top keeps the same pairs whatever
  // order they come in (LatencyAnalyzer::top); with --slowest each segment's
  // symbols start from the mappings of its time (ProcessHistory) and its
  // stacks join the first segment's store as it is merged. With --by, a
  // merge that reaches the group limit gives up, and the trace is read in
  // one pass.
  std::optional<Pass> whole;
  const unsigned threads = report_threads(options.jobs);
  std::optional<ProcessHistory> history;
  if (want_stacks && threads > 1) history = ProcessHistory::open(input, events);
  // A pass keeps its symbolizer (its stacks are named after the merge), so
  // each thread carries one of the history alone and copies it.
  std::optional<CarriedStates<StackSymbolizer>> carried;
  if (history) {
    carried.emplace(*history, [&] { return std::make_unique<StackSymbolizer>(input.files()); });
  }
  if (!want_stacks || history) {
    whole = read_in_segments<Pass>(
        input, threads,
        [&](size_t k, TraceInput& in, std::atomic<bool>& stop) {
          LatencyConfig c = *config;
          c.later_segment = k > 0;
          const StackSymbolizer* start = nullptr;
          if (carried) {
            start = &carried->take(in.segment_begin());
            carried->finished(in.segment_begin());
          }
          Pass p = new_pass(std::move(c), start);
          read(in, p, &stop);
          return p;
        },
        [](Pass& earlier, Pass& later) {
          earlier.lost += later.lost;
          if (later.stacks) {
            later.analyzer.retag(
                [&](uint64_t tag) { return earlier.stacks->adopt(*later.stacks, tag); });
            earlier.merged_symbols.push_back(std::move(later.symbols));
            for (auto& s : later.merged_symbols) earlier.merged_symbols.push_back(std::move(s));
          }
          return earlier.analyzer.merge(later.analyzer);
        });
  }
  if (!whole) {
    whole.emplace(new_pass(std::move(*config)));
    read(input, *whole, nullptr);
  }
  const StackStore* stacks = whole->stacks.get();
  LatencyAnalyzer& analyzer = whole->analyzer;
  const uint64_t lost = whole->lost;
  report_read_problems(input, io.err);
  std::vector<LatencyPair> slowest;
  if (want_stacks) {
    slowest = analyzer.top();
    if (slowest.size() > options.slowest) slowest.resize(options.slowest);
  }

  const DurationStats& all = analyzer.overall();
  const uint64_t start = input.timeline_start();
  if (options.format == "json") {
    std::string j;
    JsonWriter w(j);
    w.begin_object();
    w.key("start").string(options.start).key("end").string(options.end);
    w.key("key").string(options.key.text());
    write_stats_fields(w, all);
    w.key("unmatched_starts").uint(analyzer.unmatched_starts());
    w.key("unmatched_ends").uint(analyzer.unmatched_ends());
    w.key("missing_key_starts").uint(analyzer.missing_key_starts());
    w.key("missing_key_ends").uint(analyzer.missing_key_ends());
    w.key("lost_events").uint(lost);
    if (options.by) {
      w.key("by").string(options.by->text()).key("groups").begin_array();
      for (const LatencyGroup* g : analyzer.groups()) {
        w.begin_object().key("key").number_text(group_key_text(g->key, true));
        if (g->key.truncated) w.key("key_truncated").boolean(true);
        if (input.hosts_differ() && options.by->kind != KeySpec::Kind::arg &&
            options.by->kind != KeySpec::Kind::host) {
          w.key("host").string(input.files()[g->key.domain].metadata.hostname);
        }
        write_stats_fields(w, g->stats);
        w.end_object();
      }
      w.end_array();
      w.key("pairs_outside_groups").uint(analyzer.pairs_outside_groups());
    }
    if (options.top > 0) {
      w.key("top").begin_array();
      for (const LatencyPair& p : top_pairs(analyzer, options.top)) {
        w.begin_object().key("duration_ns").uint(p.duration).key("start_ns").uint(p.start_time);
        w.key("start_offset_ns").uint(p.start_time - start);
        w.key("pid").uint(p.pid).key("tid").uint(p.tid);
        w.key("key").number_text(pair_key_text(p, options.key, true));
        if (p.key_truncated) w.key("key_truncated").boolean(true);
        w.end_object();
      }
      w.end_array();
    }
    if (want_stacks) {
      w.key("slowest").begin_array();
      for (const LatencyPair& p : slowest) {
        w.begin_object().key("duration_ns").uint(p.duration).key("start_ns").uint(p.start_time);
        w.key("start_offset_ns").uint(p.start_time - start);
        w.key("pid").uint(p.pid).key("tid").uint(p.tid);
        w.key("key").number_text(pair_key_text(p, options.key, true));
        if (p.key_truncated) w.key("key_truncated").boolean(true);
        w.key("start_event")
            .begin_object()
            .key("probe")
            .string(catalog.probe_of_site(p.start_site).shown_name);
        write_tagged_stack_json(w, *stacks, p.start_tag);
        w.end_object();
        if (p.end_tag != 0) {
          w.key("end_event")
              .begin_object()
              .key("probe")
              .string(catalog.probe_of_site(p.end_site).shown_name);
          write_tagged_stack_json(w, *stacks, p.end_tag);
          w.end_object();
        }
        w.end_object();
      }
      w.end_array();
    }
    w.end_object();
    j += '\n';
    std::fputs(j.c_str(), io.out);
    return 0;
  }

  std::string t = "latency " + options.start + " -> " + options.end + ", paired on " + options.key.text() + "\n";
  t += "  unmatched starts: " + std::to_string(analyzer.unmatched_starts()) +
       ", unmatched ends: " + std::to_string(analyzer.unmatched_ends());
  if (analyzer.missing_key_starts() + analyzer.missing_key_ends() > 0) {
    t += ", without " + options.key.text() + ": " + std::to_string(analyzer.missing_key_starts()) + " starts, " +
         std::to_string(analyzer.missing_key_ends()) + " ends";
  }
  t += "\n";
  if (lost > 0) {
    t += "  events lost while recording: " + std::to_string(lost) +
         " (the kernel's ring buffer was full): pairs around them may be missing or wrong\n";
  }
  t += "  percentiles within " + json_double(LogLinearHistogram::kRelativeError * 100) +
       "% of the true value (relative_error " + json_double(LogLinearHistogram::kRelativeError) +
       "); count, min, mean and max are exact\n\n";
  t += stats_text(all);
  if (options.by) {
    for (const LatencyGroup* g : analyzer.groups()) {
      t += "\n" + options.by->text() + " " + group_key_text(g->key, false);
      if (input.hosts_differ() && options.by->kind != KeySpec::Kind::arg &&
            options.by->kind != KeySpec::Kind::host) {
        t += " on " + input.files()[g->key.domain].metadata.hostname;
      }
      t += ":\n" + stats_text(g->stats);
    }
    if (analyzer.pairs_outside_groups() > 0) {
      t += "\n(" + std::to_string(analyzer.pairs_outside_groups()) +
           " pairs beyond the first 1000 groups are only in the totals)\n";
    }
  }
  if (options.top > 0) {
    std::vector<LatencyPair> top = top_pairs(analyzer, options.top);
    t += "\nslowest " + std::to_string(top.size()) + " pair" + (top.size() == 1 ? "" : "s") + ":\n";
    t += "  " + std::string("duration_ns") + "  start (s)         pid/tid          " + options.key.text() + "\n";
    for (const LatencyPair& p : top) {
      std::string d = std::to_string(p.duration);
      std::string s = "+" + format_seconds(p.start_time - start);
      std::string pt = std::to_string(p.pid) + "/" + std::to_string(p.tid);
      std::string k = pair_key_text(p, options.key, false);
      t += "  " + std::string(d.size() < 11 ? 11 - d.size() : 0, ' ') + d + "  " + s +
           std::string(s.size() < 18 ? 18 - s.size() : 1, ' ') + pt +
           std::string(pt.size() < 17 ? 17 - pt.size() : 1, ' ') + k + "\n";
    }
  }
  if (want_stacks) {
    t += "\nslowest " + std::to_string(slowest.size()) + " pair" +
         (slowest.size() == 1 ? "" : "s") + " with their stacks:\n";
    for (const LatencyPair& p : slowest) {
      t += "\n  " + std::to_string(p.duration) + " ns at +" + format_seconds(p.start_time - start) +
           " pid/tid " + std::to_string(p.pid) + "/" + std::to_string(p.tid) + ", " +
           options.key.text() + " " + pair_key_text(p, options.key, false) + "\n";
      t += "    start " + catalog.probe_of_site(p.start_site).shown_name + ":\n";
      append_tagged_stack_text(t, *stacks, p.start_tag);
      if (p.end_tag != 0) {
        t += "    end " + catalog.probe_of_site(p.end_site).shown_name + ":\n";
        append_tagged_stack_text(t, *stacks, p.end_tag);
      }
    }
  }
  std::fputs(t.c_str(), io.out);
  return 0;
}

}  // namespace usdt::report
