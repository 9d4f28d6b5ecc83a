// A thread's numbers in its PID namespace, from /proc's status lines.
#include "record/resolve/pid_namespace.h"

#include <unistd.h>

#include <catch2/catch.hpp>

using namespace usdt::record;

TEST_CASE("the innermost id of an NSpid line", "[pid_namespace]") {
  const std::string status =
      "Name:\tapp\nTgid:\t4242\nNgid:\t0\nPid:\t4243\nPPid:\t4200\n"
      "NStgid:\t4242\t1\nNSpid:\t4243\t7\nNSpgid:\t4242\t1\n";
  CHECK(innermost_id(status, "NStgid:") == 1);
  CHECK(innermost_id(status, "NSpid:") == 7);  // not "NSpgid:", nor "Pid:"
  CHECK(innermost_id("NSpid:\t99\n", "NSpid:") == 99);  // no namespace but the host's
  CHECK(innermost_id("Pid:\t5\n", "NSpid:") == 0);      // no such line
  CHECK(innermost_id("NSpid:\t12x\n", "NSpid:") == 0);  // not a number
  CHECK(innermost_id("XNSpid:\t3\n", "NSpid:") == 0);   // not at a line's start
  CHECK(innermost_id("NSpid:\t5 \t\n", "NSpid:") == 5);  // trailing blanks
}

TEST_CASE("this process is in its own namespace; a gone one is unknown", "[pid_namespace]") {
  const uint64_t own = pid_namespace_of("self");
  REQUIRE(own != 0);
  CHECK_FALSE(thread_namespace(getpid(), getpid(), own));
  // Seen from another namespace (an inode not ours), it is in its own.
  std::optional<ThreadNamespace> other = thread_namespace(getpid(), getpid(), own + 1);
  REQUIRE(other);
  CHECK(other->pid_namespace == own);
  CHECK(other->ns_pid == static_cast<uint32_t>(getpid()));
  CHECK(other->ns_tid == static_cast<uint32_t>(getpid()));
  std::optional<ThreadNamespace> gone = thread_namespace(0x7ffffff0, 0x7ffffff0, own);
  REQUIRE(gone);
  CHECK(gone->pid_namespace == 0);
  CHECK(gone->ns_pid == 0);
  CHECK(gone->ns_tid == 0);
}
