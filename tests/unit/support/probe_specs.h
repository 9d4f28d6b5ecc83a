// Probe specs for tests, parsed as the command line parses them (a test
// that gives a bad one fails at once).
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/probe_spec.h"

inline std::vector<usdt::ProbeSpec> specs(std::initializer_list<std::string> texts) {
  std::vector<usdt::ProbeSpec> out;
  for (const std::string& t : texts) {
    usdt::Result<usdt::ProbeSpec> s = usdt::ProbeSpec::parse(t);
    if (!s) throw std::invalid_argument(s.error().message());
    out.push_back(std::move(*s));
  }
  return out;
}
