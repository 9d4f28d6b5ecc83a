/* Many probe sites, each reading a global through memory, so that a
 * recording of them all (usdt:PATH:many:*) defines one tracefs event per
 * site and leaves its detacher 64 of them to remove: the tests of a
 * recording that starts while another is being cleaned up. It never fires
 * them; it waits for stdin to end. */
#include <stdio.h>
#include <sys/sdt.h>

volatile long many_value[64];

int main(int argc, char** argv) {
  (void)argv;
  if (argc > 99) {
    DTRACE_PROBE1(many, p0, many_value[0]);
    DTRACE_PROBE1(many, p1, many_value[1]);
    DTRACE_PROBE1(many, p2, many_value[2]);
    DTRACE_PROBE1(many, p3, many_value[3]);
    DTRACE_PROBE1(many, p4, many_value[4]);
    DTRACE_PROBE1(many, p5, many_value[5]);
    DTRACE_PROBE1(many, p6, many_value[6]);
    DTRACE_PROBE1(many, p7, many_value[7]);
    DTRACE_PROBE1(many, p8, many_value[8]);
    DTRACE_PROBE1(many, p9, many_value[9]);
    DTRACE_PROBE1(many, p10, many_value[10]);
    DTRACE_PROBE1(many, p11, many_value[11]);
    DTRACE_PROBE1(many, p12, many_value[12]);
    DTRACE_PROBE1(many, p13, many_value[13]);
    DTRACE_PROBE1(many, p14, many_value[14]);
    DTRACE_PROBE1(many, p15, many_value[15]);
    DTRACE_PROBE1(many, p16, many_value[16]);
    DTRACE_PROBE1(many, p17, many_value[17]);
    DTRACE_PROBE1(many, p18, many_value[18]);
    DTRACE_PROBE1(many, p19, many_value[19]);
    DTRACE_PROBE1(many, p20, many_value[20]);
    DTRACE_PROBE1(many, p21, many_value[21]);
    DTRACE_PROBE1(many, p22, many_value[22]);
    DTRACE_PROBE1(many, p23, many_value[23]);
    DTRACE_PROBE1(many, p24, many_value[24]);
    DTRACE_PROBE1(many, p25, many_value[25]);
    DTRACE_PROBE1(many, p26, many_value[26]);
    DTRACE_PROBE1(many, p27, many_value[27]);
    DTRACE_PROBE1(many, p28, many_value[28]);
    DTRACE_PROBE1(many, p29, many_value[29]);
    DTRACE_PROBE1(many, p30, many_value[30]);
    DTRACE_PROBE1(many, p31, many_value[31]);
    DTRACE_PROBE1(many, p32, many_value[32]);
    DTRACE_PROBE1(many, p33, many_value[33]);
    DTRACE_PROBE1(many, p34, many_value[34]);
    DTRACE_PROBE1(many, p35, many_value[35]);
    DTRACE_PROBE1(many, p36, many_value[36]);
    DTRACE_PROBE1(many, p37, many_value[37]);
    DTRACE_PROBE1(many, p38, many_value[38]);
    DTRACE_PROBE1(many, p39, many_value[39]);
    DTRACE_PROBE1(many, p40, many_value[40]);
    DTRACE_PROBE1(many, p41, many_value[41]);
    DTRACE_PROBE1(many, p42, many_value[42]);
    DTRACE_PROBE1(many, p43, many_value[43]);
    DTRACE_PROBE1(many, p44, many_value[44]);
    DTRACE_PROBE1(many, p45, many_value[45]);
    DTRACE_PROBE1(many, p46, many_value[46]);
    DTRACE_PROBE1(many, p47, many_value[47]);
    DTRACE_PROBE1(many, p48, many_value[48]);
    DTRACE_PROBE1(many, p49, many_value[49]);
    DTRACE_PROBE1(many, p50, many_value[50]);
    DTRACE_PROBE1(many, p51, many_value[51]);
    DTRACE_PROBE1(many, p52, many_value[52]);
    DTRACE_PROBE1(many, p53, many_value[53]);
    DTRACE_PROBE1(many, p54, many_value[54]);
    DTRACE_PROBE1(many, p55, many_value[55]);
    DTRACE_PROBE1(many, p56, many_value[56]);
    DTRACE_PROBE1(many, p57, many_value[57]);
    DTRACE_PROBE1(many, p58, many_value[58]);
    DTRACE_PROBE1(many, p59, many_value[59]);
    DTRACE_PROBE1(many, p60, many_value[60]);
    DTRACE_PROBE1(many, p61, many_value[61]);
    DTRACE_PROBE1(many, p62, many_value[62]);
    DTRACE_PROBE1(many, p63, many_value[63]);
  }
  char line[16];
  while (fgets(line, sizeof line, stdin) != NULL) {
  }
  return 0;
}
