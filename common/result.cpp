#include "common/result.h"

#include <cerrno>
#include <cstring>

namespace usdt {

std::string Error::message() const {
  if (errno_ == 0) return message_;
  return message_ + ": " + std::strerror(errno_);
}

Error errno_error(std::string message) { return Error(std::move(message), errno); }

}  // namespace usdt
