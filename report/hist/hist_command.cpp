// usdt-report hist: the distribution of one argument of one probe (or of
// the probes a pattern selects), optionally per pid, tid or the value of an
// argument (--by argN: a number, or a string argument's text).
#include <atomic>
#include <optional>
#include <string>

#include "report/output/arg_format.h"
#include "report/hist/arg_histogram.h"
#include "report/commands.h"
#include "report/output/histogram_text.h"
#include "report/output/json_text.h"
#include "report/output/json_writer.h"
#include "report/input/segments.h"

namespace usdt::report {

namespace {

// The fields of one argument's statistics, into the object w has open.
void write_arg_stats_fields(JsonWriter& w, const ArgStats& s) {
  w.key("count").uint(s.count()).key("missing").uint(s.missing());
  w.key("min").number_text(s.min_text()).key("mean").number_text(s.mean_text()).key("max").number_text(s.max_text());
  w.key("histogram").begin_array();
  for (const HistogramBucket& b : trim_empty_ends(s.buckets())) {
    w.begin_object();
    w.key("low").number_text(b.has_low ? int128_to_string(b.low) : "null");
    w.key("high").number_text(b.has_high ? int128_to_string(b.high) : "null");
    w.key("count").uint(b.count).end_object();
  }
  w.end_array();
}

std::string arg_stats_text(const ArgStats& s) {
  std::string t = "  count " + std::to_string(s.count()) + ", missing " + std::to_string(s.missing());
  if (s.count() > 0) t += ", min " + s.min_text() + ", mean " + s.mean_text() + ", max " + s.max_text();
  t += "\n";
  std::string bars = render_histogram_text(trim_empty_ends(s.buckets()));
  size_t pos = 0;
  while (pos < bars.size()) {
    size_t nl = bars.find('\n', pos);
    t += "  " + bars.substr(pos, nl - pos + 1);
    pos = nl + 1;
  }
  return t;
}

}  // namespace

int run_hist(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format != "text" && options.format != "json") {
    print_error(io.err, "hist cannot write format '" + options.format + "' (text or json)");
    return 2;
  }
  if (options.filter.probes.empty() || !options.arg) {
    print_error(io.err, "hist needs --probe PROBE and --arg N");
    return 2;
  }
  Result<EventFilter> filter = make_filter(options, input);
  if (!filter) {
    print_error(io.err, filter.error().message());
    return 1;
  }
  const ProbeCatalog& catalog = input.catalog();
  ArgHistogramConfig config;
  config.arg = *options.arg;
  config.by = options.by;
  for (const TraceFileInfo& f : input.files()) config.hosts.push_back(f.metadata.hostname);
  config.linear = options.linear;
  std::vector<uint32_t> selected;
  for (uint32_t s = 0; s < catalog.site_count(); ++s) {
    config.selected.push_back(filter->site_selected(s) ? 1 : 0);
    config.sites.push_back(&catalog.site(s));
    if (filter->site_selected(s)) selected.push_back(s);
    // A histogram needs numbers: a string argument has no place on an axis.
    const int i = options.arg->at(&catalog.site(s));
    if (filter->site_selected(s) && i >= 0 && arg_type_at(&catalog.site(s), i) == ArgType::string) {
      print_error(io.err, "argument " + (options.arg->name.empty() ? std::to_string(i) : options.arg->name) + " of " +
                              catalog.probe_of_site(s).full_name +
                              " is a string: a histogram needs numbers");
      std::fputs(
          "hint: 'usdt-report latency --by argN' groups durations by a string; 'usdt-report dump' "
          "prints the strings\n",
          io.err);
      return 1;
    }
  }
  std::vector<std::pair<const ArgRef*, const char*>> named = {{&*options.arg, "--arg"}};
  if (options.by && options.by->kind == KeySpec::Kind::arg) named.emplace_back(&options.by->arg, "--by");
  for (auto [arg, option] : named) {
    if (Status named = check_arg_name(*arg, catalog, selected, option); !named) {
      print_error(io.err, named.error().message());
      return 1;
    }
  }
  std::vector<uint32_t> domains = file_domains(input);
  // stop: a parallel read's (report/input/segments.h), checked now and then; set
  // when the groups reach their limit (the parts can then not be merged).
  auto read = [&](TraceInput& in, ArgHistogramAnalyzer& analyzer, std::atomic<bool>* stop) {
    Record r;
    for (uint64_t n = 0; in.next(r); ++n) {
      if (pass_must_stop(stop, n, analyzer.events_outside_groups() > 0)) return;
      if (r.kind != format::RecordKind::event) continue;
      uint32_t site = catalog.global_site(r.file, r.event->site_id);
      if (!filter->accepts(site, *r.event, r.time)) continue;
      analyzer.on_event(site, domains[r.file], *r.event);
    }
  };
  // Split by time on several threads (report/input/segments.h); read in one pass
  // when the parts cannot be merged exactly (ArgHistogramAnalyzer::merge).
  std::optional<ArgHistogramAnalyzer> whole = read_in_segments<ArgHistogramAnalyzer>(
      input, report_threads(options.jobs),
      [&](size_t, TraceInput& in, std::atomic<bool>& stop) {
        ArgHistogramAnalyzer part(config);
        read(in, part, &stop);
        return part;
      },
      [](ArgHistogramAnalyzer& earlier, const ArgHistogramAnalyzer& later) {
        return earlier.merge(later);
      });
  if (!whole) {
    whole.emplace(std::move(config));
    read(input, *whole, nullptr);
  }
  const ArgHistogramAnalyzer& analyzer = *whole;
  report_read_problems(input, io.err);

  // pid and tid groups of different hosts are different groups: say which.
  const bool by_host = options.by && options.by->kind != KeySpec::Kind::arg &&
                       options.by->kind != KeySpec::Kind::host && input.hosts_differ();
  std::string probe_text;
  for (const std::string& p : options.filter.probes) {
    if (!probe_text.empty()) probe_text += ',';
    probe_text += p;
  }
  if (options.format == "json") {
    std::string j;
    JsonWriter w(j);
    w.begin_object().key("probe").string(probe_text).key("arg");
    if (options.arg->name.empty()) {
      w.sint(options.arg->index);
    } else {
      w.string(options.arg->name);
    }
    write_arg_stats_fields(w, analyzer.overall());
    if (options.by) {
      w.key("by").string(options.by->text()).key("groups").begin_array();
      for (const ArgGroup* g : analyzer.groups()) {
        w.begin_object().key("key").number_text(group_key_text(g->key, true));
        if (g->key.truncated) w.key("key_truncated").boolean(true);
        if (by_host) w.key("host").string(input.files()[g->key.domain].metadata.hostname);
        write_arg_stats_fields(w, g->stats);
        w.end_object();
      }
      w.end_array();
    }
    w.end_object();
    j += '\n';
    std::fputs(j.c_str(), io.out);
    return 0;
  }
  std::string t = probe_text + " " + options.arg->text() + ":\n" + arg_stats_text(analyzer.overall());
  if (options.by) {
    for (const ArgGroup* g : analyzer.groups()) {
      t += "\n" + options.by->text() + " " + group_key_text(g->key, false);
      if (by_host) t += " on " + input.files()[g->key.domain].metadata.hostname;
      t += ":\n" + arg_stats_text(g->stats);
    }
  }
  std::fputs(t.c_str(), io.out);
  return 0;
}

}  // namespace usdt::report
