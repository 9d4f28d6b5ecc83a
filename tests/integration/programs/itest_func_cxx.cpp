// Usage: itest_func_cxx methods | throw
// Function probes on C++ functions, with counts the tests know exactly.
//
//   methods  ns::Server::handle(int) 2 times, ns::Server::handle(char const*)
//            3 times, ns::twice<int>(int) 4 times, ns::twice<double> once.
//   throw    ns::dive(3): dive recurses n = 3..0 and n = 0 throws; the
//            exception unwinds through all 4 calls to main's catch. Then
//            dive(-1) returns normally once (n < 0 does not recurse).
#include <cstdio>
#include <cstring>
#include <stdexcept>

#define PROBED __attribute__((noipa))

volatile int sink;

namespace ns {

class Server {
 public:
  PROBED int handle(int x) { return x + 1; }
  PROBED int handle(const char* s) { return static_cast<int>(std::strlen(s)); }
};

template <typename T>
PROBED T twice(T x) {
  return x + x;
}

PROBED int dive(int n) {
  if (n < 0) return -1;
  if (n == 0) throw std::runtime_error("bottom");
  int r = dive(n - 1);
  sink = sink + r;
  return r;
}

}  // namespace ns

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (std::strcmp(argv[1], "methods") == 0) {
    ns::Server server;
    for (int i = 0; i < 2; ++i) sink = sink + server.handle(i);
    for (int i = 0; i < 3; ++i) sink = sink + server.handle("abc");
    for (int i = 0; i < 4; ++i) sink = sink + ns::twice<int>(i);
    sink = sink + static_cast<int>(ns::twice<double>(1.5));
    return 0;
  }
  if (std::strcmp(argv[1], "throw") == 0) {
    try {
      sink = sink + ns::dive(3);
    } catch (const std::runtime_error&) {
      sink = sink + 100;
    }
    sink = sink + ns::dive(-1);
    std::printf("caught\n");
    return 0;
  }
  std::fprintf(stderr, "itest_func_cxx: unknown mode\n");
  return 2;
}
