// An open-addressing hash map from 64-bit keys to small values, for the
// per-event hot paths (events per pid, open latency starts per key) where
// std::unordered_map's node allocation per insert costs more than the work.
// Linear probing with backward-shift deletion, so erase leaves no tombstones
// and memory follows the live keys, not the keys ever seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace usdt {

template <typename V>
class FlatMap {
 public:
  FlatMap() { rehash(16); }

  // The value of key, or nullptr.
  V* find(uint64_t key) {
    size_t i = slot_of(key);
    while (used_[i]) {
      if (keys_[i] == key) return &values_[i];
      i = (i + 1) & mask_;
    }
    return nullptr;
  }
  const V* find(uint64_t key) const { return const_cast<FlatMap*>(this)->find(key); }

  // The value of key, inserted value-initialized when absent.
  V& operator[](uint64_t key) {
    size_t i = slot_of(key);
    while (used_[i]) {
      if (keys_[i] == key) return values_[i];
      i = (i + 1) & mask_;
    }
    if ((size_ + 1) * 4 > keys_.size() * 3) {
      rehash(keys_.size() * 2);
      return (*this)[key];
    }
    used_[i] = 1;
    keys_[i] = key;
    values_[i] = V{};
    ++size_;
    return values_[i];
  }

  // Removes key if present; returns whether it was.
  bool erase(uint64_t key) {
    size_t i = slot_of(key);
    while (used_[i]) {
      if (keys_[i] == key) break;
      i = (i + 1) & mask_;
    }
    if (!used_[i]) return false;
    // Backward shift: move later members of the probe run into the hole.
    size_t hole = i;
    size_t j = i;
    while (true) {
      j = (j + 1) & mask_;
      if (!used_[j]) break;
      size_t home = slot_of(keys_[j]);
      bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        keys_[hole] = keys_[j];
        values_[hole] = std::move(values_[j]);
        hole = j;
      }
    }
    used_[hole] = 0;
    values_[hole] = V{};
    --size_;
    return true;
  }

  size_t size() const { return size_; }

  // Calls f(key, value) for every entry, in no particular order.
  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (used_[i]) f(keys_[i], values_[i]);
    }
  }

 private:
  size_t slot_of(uint64_t key) const {
    // Fibonacci hashing: one multiply, the top bits spread sequential pids
    // and request ids over the table.
    key ^= key >> 32;  // let the domain half (pid/tid keys) count too
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
  }

  void rehash(size_t capacity) {
    std::vector<uint64_t> old_keys = std::move(keys_);
    std::vector<V> old_values = std::move(values_);
    std::vector<uint8_t> old_used = std::move(used_);
    keys_.assign(capacity, 0);
    values_.assign(capacity, V{});
    used_.assign(capacity, 0);
    mask_ = capacity - 1;
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
    size_ = 0;
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (old_used[i]) (*this)[old_keys[i]] = std::move(old_values[i]);
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<V> values_;
  std::vector<uint8_t> used_;
  size_t mask_ = 0;
  unsigned shift_ = 60;
  size_t size_ = 0;
};

}  // namespace usdt
