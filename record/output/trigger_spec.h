// A snapshot trigger, as --snapshot-on writes it (docs/CLI.md):
//
//   latency PROBE_START PROBE_END > 500ms [--key tid|pid|argN|NAME]
//       a start/end pair (paired as `usdt-report latency` pairs them:
//       pairing/pair_matcher.h) that lasted longer than the threshold
//       (">=" takes one that lasted exactly as long too);
//   probe PROBE [if ARG OP VALUE]
//       any event of PROBE, or one whose argument ARG (argN or a name)
//       compares to VALUE: OP is ==, !=, <, <=, > or >=; VALUE an integer
//       (decimal, negative, 0x hexadecimal) or, for == and != on a string
//       argument, a "quoted string".
//
// PROBE is a probe spec in -e's syntax (PROVIDER:NAME, wildcards allowed),
// matched against the recording's probe sites. Parsing checks the words
// only; the session matches the probes and names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/probe_spec.h"
#include "common/result.h"

namespace usdt::record {

// An argument by position (argN) or by name (a DWARF parameter, a
// tracepoint field), whose position may differ from site to site.
struct TriggerArg {
  int index = -1;    // argN
  std::string name;  // when index is -1
  std::string text() const { return index >= 0 ? "arg" + std::to_string(index) : name; }
};

enum class CompareOp : uint8_t { eq, ne, lt, le, gt, ge };

struct TriggerCondition {
  TriggerArg arg;
  CompareOp op = CompareOp::eq;
  bool is_string = false;    // VALUE was a quoted string (eq and ne only)
  bool is_negative = false;  // VALUE was written with a minus: compare as signed
  uint64_t value = 0;        // the integer's 64-bit pattern
  std::string text;          // the string's bytes
};

struct TriggerSpec {
  enum class Kind : uint8_t { latency, probe } kind = Kind::latency;
  std::string text;  // as written: the snapshots' metadata names it
  // latency
  ProbeSpec start;
  ProbeSpec end;
  uint64_t threshold_ns = 0;
  bool or_equal = false;  // ">=": a pair that lasted exactly the threshold fires too
  enum class Key : uint8_t { tid, pid, arg } key = Key::tid;
  TriggerArg key_arg;  // Key::arg
  // probe
  ProbeSpec probe;
  std::optional<TriggerCondition> condition;
};

// Parses one --snapshot-on text; the error says what was expected where.
Result<TriggerSpec> parse_trigger(const std::string& text);

// Whether a number compares to the condition's value (signed when the
// value was negative or the argument is signed).
bool compare_number(const TriggerCondition& c, uint64_t value, bool is_signed);

}  // namespace usdt::record
