#include "record/output/output_options.h"

#include <charconv>

namespace usdt::record {
namespace po = boost::program_options;

void add_output_options(po::options_description& desc, OutputTexts* t) {
  // One option a paragraph, as record_options.cpp lists them.
  // clang-format off
  desc.add_options()
      ("max-size", po::value<std::string>(&t->max_size)->value_name("SIZE"),
       "stop the recording cleanly when the trace file would pass SIZE (100M, 2G), its end "
       "written within it; the events that did not fit are counted as dropped")
      ("switch-output", po::value<std::string>(&t->switch_output)->value_name("SIZE|TIME|signal"),
       "write a series of complete trace files NAME.0001.trace, NAME.0002.trace, ... (NAME: -o "
       "without .trace), the next one when the current reaches SIZE (100M), has been open "
       "TIME (10m, 1h), or on SIGUSR2 (signal; SIGUSR2 switches with the others too); each "
       "reads alone, and usdt-report reads them together as one recording")
      ("max-files", po::value<std::string>(&t->max_files)->value_name("N"),
       "with --switch-output or --flight-recorder: keep the newest N files, deleting older "
       "ones this recording wrote")
      ("flight-recorder", po::value<std::string>(&t->flight_recorder)->value_name("SIZE|DURATION"),
       "keep the last SIZE (64M) of compressed events, or the last DURATION (30s) of them, in "
       "memory, and write them as a complete trace file NAME.0001.trace, ... only when asked: "
       "on SIGUSR2, through --control, on a --snapshot-on trigger, and at the end")
      ("no-exit-snapshot", "with --flight-recorder: write no snapshot when the recording ends")
      ("control", po::value<std::string>(&t->control)->value_name("fifo:PATH[,ACK]"),
       "read commands from the FIFO PATH (made if missing): 'snapshot' takes a flight-recorder "
       "snapshot, or switches to the next file of a series; 'ack' is written to ACK once done")
      ("snapshot-on", po::value<std::vector<std::string>>(&t->triggers)->composing()
           ->value_name("TRIGGER"),
       "with --flight-recorder: take a snapshot when 'latency START END > 500ms [--key KEY]' "
       "(a start/end pair paired as usdt-report latency does lasted longer) or 'probe PROBE [if "
       "ARG OP VALUE]' fires (repeatable)")
      ("before", po::value<std::string>(&t->before)->value_name("DURATION"),
       "a trigger's snapshot begins DURATION before the trigger (for latency, before the "
       "pair's start; default: all the flight recorder holds)")
      ("after", po::value<std::string>(&t->after)->value_name("DURATION"),
       "a trigger's snapshot ends DURATION after the trigger (default 0)")
      ("max-snapshots", po::value<std::string>(&t->max_snapshots)->value_name("N[/MINUTES]"),
       "at most N trigger snapshots in any MINUTES minutes (default 1/1); triggers beyond "
       "are counted as suppressed");
  // clang-format on
}

const std::vector<std::string>& output_value_options() {
  static const std::vector<std::string> options = {
      "--max-size",    "--switch-output", "--max-files", "--flight-recorder", "--control",
      "--snapshot-on", "--before",        "--after",     "--max-snapshots"};
  return options;
}

Result<OutputPolicy> read_output_options(const po::variables_map& vm, const OutputTexts& t) {
  OutputPolicy p;
  if (vm.count("max-size") != 0) {
    Result<uint64_t> size = parse_size(t.max_size, "--max-size");
    if (!size) return size.error();
    p.max_size = *size;
  }
  if (vm.count("switch-output") != 0) {
    Result<SwitchOutput> sw = parse_switch_output(t.switch_output);
    if (!sw) return sw.error();
    p.switch_output = *sw;
  }
  if (vm.count("max-files") != 0) {
    uint32_t n = 0;
    auto [ptr, ec] =
        std::from_chars(t.max_files.data(), t.max_files.data() + t.max_files.size(), n);
    if (t.max_files.empty() || ec != std::errc() ||
        ptr != t.max_files.data() + t.max_files.size() || n == 0 || n > 1000000) {
      return Error("--max-files must be a whole number from 1 to 1000000, not '" + t.max_files +
                   "'");
    }
    p.max_files = n;
  }
  if (vm.count("flight-recorder") != 0) {
    Result<FlightRecorder> flight = parse_flight_recorder(t.flight_recorder);
    if (!flight) return flight.error();
    p.flight = *flight;
  }
  if (vm.count("no-exit-snapshot") != 0) {
    if (!p.flight.enabled) return Error("--no-exit-snapshot needs --flight-recorder");
    p.flight.exit_snapshot = false;
  }
  if (vm.count("control") != 0) {
    Result<ControlSpec> control = parse_control(t.control);
    if (!control) return control.error();
    p.control = *control;
  }
  for (const std::string& text : t.triggers) {
    Result<TriggerSpec> trigger = parse_trigger(text);
    if (!trigger) return trigger.error();
    p.triggers.push_back(std::move(*trigger));
  }
  if (vm.count("before") != 0) {
    Result<uint64_t> ns = parse_duration_ns(t.before, "--before", true);
    if (!ns) return ns.error();
    p.before_ns = *ns;
  }
  if (vm.count("after") != 0) {
    Result<uint64_t> ns = parse_duration_ns(t.after, "--after", true);
    if (!ns) return ns.error();
    p.after_ns = *ns;
  }
  if (vm.count("max-snapshots") != 0) {
    if (Status s = parse_max_snapshots(t.max_snapshots, p); !s) return s.error();
  }
  return p;
}

}  // namespace usdt::record
