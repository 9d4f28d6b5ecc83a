// -O2 without frame pointers: see unwind_chain.h.
#define UNWIND_CHAIN_NS unwind_chain_nofp
#include "tests/unit/record/stacks/unwind_chain_impl.inc"
