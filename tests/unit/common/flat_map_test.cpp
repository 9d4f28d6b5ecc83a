// FlatMap, the hash map of the hot paths, against std::unordered_map.
#include <catch2/catch.hpp>
#include <random>
#include <unordered_map>

#include "common/flat_map.h"

using usdt::FlatMap;

TEST_CASE("FlatMap behaves like unordered_map under random inserts and erases", "[flat_map]") {
  std::mt19937_64 rng(7);
  FlatMap<uint64_t> m;
  std::unordered_map<uint64_t, uint64_t> ref;
  for (int i = 0; i < 200000; ++i) {
    uint64_t key = rng() % 5000;
    switch (rng() % 3) {
      case 0: m[key] += i; ref[key] += i; break;
      case 1: CHECK(m.erase(key) == (ref.erase(key) == 1)); break;
      case 2: {
        const uint64_t* v = m.find(key);
        auto it = ref.find(key);
        REQUIRE((v != nullptr) == (it != ref.end()));
        if (v != nullptr) REQUIRE(*v == it->second);
      }
    }
  }
  CHECK(m.size() == ref.size());
  size_t seen = 0;
  m.for_each([&](uint64_t k, uint64_t v) {
    ++seen;
    CHECK(ref.at(k) == v);
  });
  CHECK(seen == ref.size());
}
