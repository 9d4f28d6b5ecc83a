/* main() of the itest_operands builds whose probes are in a shared object. */
int itest_operands_main(int argc, char** argv);

int main(int argc, char** argv) { return itest_operands_main(argc, argv); }
