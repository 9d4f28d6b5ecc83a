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

// Skips (exit 77) or, under CI=true with InCi::fail, fails the current case.
inline void skip_case(const std::string& reason, InCi in_ci = InCi::fail) {
  const char* ci = std::getenv("CI");
  if (in_ci == InCi::fail && ci != nullptr && std::string(ci) == "true") {
    FAIL("cannot run under CI=true: " << reason);
  }
  std::cerr << "skipped: " << reason << std::endl;
  std::exit(77);
}

}  // namespace usdt::test
