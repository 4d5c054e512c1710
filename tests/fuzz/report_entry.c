/* report_entry.c - cudalens-report's main() as cudalens_report_main(), for
 * the in-process fuzzer (fuzz_report.c), which runs it in forked children:
 * the report itself, unchanged, without an exec per input. */
#define main cudalens_report_main
int cudalens_report_main(int argc, char **argv);
#include "analyzer/report_main.c"
