// Ends a test case that cannot run here because a program or tool is missing.
// Catch2 2 has no SKIP: the process exits 77, which CTest reports as skipped
// (SKIP_RETURN_CODE). So only cases that CTest runs one per process may call
// it: hidden cases with an entry of their own (tests/tag_tests.cmake).
// Under CI=true, what scripts/install-deps.sh installs (PostgreSQL,
// python3.11, libstdc++) must be there: a missing one fails the case instead.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <string>

namespace usdt::test {

enum class InCi { fail, skip };

// Whether the tests run under CI=true, where what a case needs must be there.
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// Skips (exit 77) or, under CI=true with InCi::fail, fails the current case.
inline void skip_case(const std::string& reason, InCi when_ci = InCi::fail) {
  if (when_ci == InCi::fail && in_ci()) {
    FAIL("cannot run under CI=true: " << reason);
  }
  std::cerr << "skipped: " << reason << std::endl;
  std::exit(77);
}

}  // namespace usdt::test
