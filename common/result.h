// Errors as values. Expected failures (missing files, malformed notes, dead
// PIDs, truncated traces) travel up as Error inside Result<T> or Status; each
// layer adds context so that the final line says what, where and why.
// std::expected is C++23, so this is a small stand-in with the same spirit.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace usdt {

// A failure: a human message (lower-case start, no final period) and, after a
// failed syscall, its errno (0 otherwise).
class Error {
 public:
  explicit Error(std::string message, int err = 0) : message_(std::move(message)), errno_(err) {}

  // The message, followed by strerror(errno) when there is one.
  std::string message() const;
  int errno_value() const { return errno_; }

  // Prefixes context: Error("note 3 is truncated").context("cannot read 'x'")
  // gives "cannot read 'x': note 3 is truncated".
  Error context(const std::string& what) const& {
    return Error(what + ": " + message_, errno_);
  }

 private:
  std::string message_;
  int errno_;
};

// Builds an Error from the current errno, for syscall failures.
Error errno_error(std::string message);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}     // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Success or an Error, for operations without a value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  static Status success() { return Status(); }
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_{""};
  bool ok_ = true;
};

}  // namespace usdt
