#include "record/output/flight_report.h"

#include <cstdio>

namespace usdt::record {
namespace {

// "+1.234 s" from the start of the recording.
std::string at_text(uint64_t ns, uint64_t enabled_ns) {
  char buf[32];
  const double s = ns >= enabled_ns ? static_cast<double>(ns - enabled_ns) / 1e9 : 0.0;
  std::snprintf(buf, sizeof buf, "+%.3f s", s);
  return buf;
}

std::string snapshot_line(const SnapshotDone& d, uint64_t enabled_ns) {
  if (d.error) return "snapshot " + d.path + " failed: " + d.error->message();
  std::string line = "snapshot " + d.path + " (" + d.trigger + "): ";
  if (d.window_end_ns < d.window_begin_ns) {
    line += "empty: the memory no longer held its window";
  } else {
    line += std::to_string(d.events) + " events from " + at_text(d.window_begin_ns, enabled_ns) +
            " to " + at_text(d.window_end_ns, enabled_ns);
  }
  if (d.deleted) line += ", deleted since (--max-files)";
  return line;
}

std::string trigger_line(const FlightFigures& f, size_t t) {
  const OutputPolicy& p = *f.policy;
  std::string line = "trigger '" + p.triggers[t].text + "' fired " + std::to_string((*f.fired)[t]) +
                     " times: " + std::to_string((*f.taken)[t]) + " snapshots";
  const uint64_t limit = (*f.suppressed_limit)[t], busy = (*f.suppressed_busy)[t];
  if (limit + busy != 0) {
    line += ", " + std::to_string(limit + busy) + " suppressed (" + std::to_string(limit) +
            " by --max-snapshots " + std::to_string(p.max_snapshots) + "/" +
            std::to_string(p.snapshot_period_ns / 60000000000ull) + ", " + std::to_string(busy) +
            " while a snapshot's window was open)";
  }
  return line;
}

}  // namespace

std::string size_text(uint64_t bytes) {
  static const char* kUnits[] = {"G", "M", "K"};
  for (int i = 0; i < 3; ++i) {
    const uint64_t unit = 1ull << (30 - 10 * i);
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + kUnits[i];
  }
  return std::to_string(bytes) + " bytes";
}

std::string duration_text(uint64_t ns) {
  char buf[32];
  if (ns % 1000000000ull == 0) return std::to_string(ns / 1000000000ull) + "s";
  if (ns >= 1000000000ull) {
    std::snprintf(buf, sizeof buf, "%.3fs", static_cast<double>(ns) / 1e9);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.3gms", static_cast<double>(ns) / 1e6);
  return buf;
}

OutputReport flight_report(const FlightFigures& f) {
  OutputReport r;
  const FlightRing& ring = *f.ring;
  uint32_t kept = 0;
  for (const SnapshotDone& d : *f.done) {
    r.events_in_files += d.events;
    if (!d.error && !d.deleted) {
      r.bytes += d.bytes;
      ++kept;
    }
  }
  r.description = "to " + std::to_string(kept) + " snapshot" + (kept == 1 ? "" : "s") + " (" +
                  f.naming->pattern() + ")";
  const FlightRecorder& flight = f.policy->flight;
  std::string held =
      "flight recorder (" +
      (flight.ns != 0 ? "the last " + duration_text(flight.ns) + ", at most " : std::string()) +
      size_text(flight.bytes) + "): it held " + std::to_string(ring.events()) + " events in " +
      std::to_string(ring.bytes()) + " bytes at the end";
  if (ring.oldest_ns() != 0) held += ", from " + at_text(ring.oldest_ns(), f.enabled_ns);
  r.lines.push_back(held);
  std::string over =
      "flight recorder: " + std::to_string(ring.overwritten_full() + ring.overwritten_old()) +
      " events overwritten before any snapshot saved them (" +
      std::to_string(ring.overwritten_full()) + " when the ring was full";
  if (flight.ns != 0) {
    over +=
        ", " + std::to_string(ring.overwritten_old()) + " older than " + duration_text(flight.ns);
  }
  over += "), " + std::to_string(ring.released_saved()) + " after a snapshot saved them";
  if (ring.released_partly_saved() != 0) {
    over += ", " + std::to_string(ring.released_partly_saved()) +
            " in chunks a snapshot's window cut (some of them in the snapshot)";
  }
  r.lines.push_back(over);
  for (const SnapshotDone& d : *f.done) r.lines.push_back(snapshot_line(d, f.enabled_ns));
  for (size_t t = 0; t < f.policy->triggers.size(); ++t) r.lines.push_back(trigger_line(f, t));
  for (const std::string& text : f.unmatched) {
    r.lines.push_back("trigger '" + text + "' never matched a probe site of the recording");
  }
  return r;
}

}  // namespace usdt::record
