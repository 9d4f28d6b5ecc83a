/* A .note.stapsdt probe written by hand, for operand forms that GCC does not
 * emit through <sys/sdt.h>. ITEST_NOTE expands to assembler text for an
 * extended asm statement: a one-byte nop (the probe site) and its note, laid
 * out as sys/sdt.h's _SDT_NOTE does (name "stapsdt", type 3; pc, base,
 * semaphore 0, provider, name, argument string). `args` is extended-asm text:
 * write %% for a literal %, %N or %[name] for an operand GCC prints.
 * Several ITEST_NOTEs may share one asm statement (the local label 990 is
 * found backwards). The program must contain at least one <sys/sdt.h> probe,
 * which defines _.stapsdt.base (ITEST_BASE_ANCHOR does). */
#ifndef ITEST_NOTE_H
#define ITEST_NOTE_H

#include <sys/sdt.h>

#define ITEST_NOTE(provider, name, args)          \
  "990: nop\n"                                    \
  ".pushsection .note.stapsdt,\"?\",\"note\"\n"   \
  ".balign 4\n"                                   \
  ".4byte 992f-991f, 994f-993f, 3\n"              \
  "991: .asciz \"stapsdt\"\n"                     \
  "992: .balign 4\n"                              \
  "993: .8byte 990b\n"                            \
  ".8byte _.stapsdt.base\n"                       \
  ".8byte 0\n"                                    \
  ".asciz \"" #provider "\"\n"                    \
  ".asciz \"" #name "\"\n"                        \
  ".asciz \"" args "\"\n"                         \
  "994: .balign 4\n"                              \
  ".popsection\n"

#define ITEST_BASE_ANCHOR(provider) \
  void itest_base_anchor(void) { DTRACE_PROBE(provider, anchor); }

#endif
