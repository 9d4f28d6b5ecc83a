// -O0, frame pointers: see unwind_chain.h.
#define UNWIND_CHAIN_NS unwind_chain_fp
#include "tests/unit/record/stacks/unwind_chain_impl.inc"
