// The one source of usdt_catch_pch, the target that builds Catch2's
// precompiled header for every test program (tests/unit/CMakeLists.txt):
// CMake needs a source to compile the header with; this file adds nothing.
