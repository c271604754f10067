/* Runs a program compiled for one CPU path of a portable build (a flavour of a test, test_gemm_x86_64_v3) when this
 * CPU has that path, by the test libzeta.so makes (cpu_choice.c), and exits 77 (CTest's SKIP_RETURN_CODE) naming the
 * missing extension when it has not, instead of letting the program die of an illegal instruction.
 *   run_on_path PATH PROGRAM [ARGUMENTS...] */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu_choice.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: run_on_path PATH PROGRAM [ARGUMENTS...]\n");
    return 2;
  }
  int path = 0;
  while (path < ZETA_CPU_PATH_COUNT && strcmp(argv[1], zeta_cpu_path_names[path]) != 0) ++path;
  if (path == ZETA_CPU_PATH_COUNT) {
    fprintf(stderr, "run_on_path: %s names no CPU path of zeta\n", argv[1]);
    return 2;
  }
  const char *missing = zeta_cpu_missing_extension(path);
  if (missing != NULL) {
    printf("skipped: this CPU lacks %s, which the %s path needs\n", missing, argv[1]);
    return 77;
  }
  execv(argv[2], argv + 2);
  fprintf(stderr, "run_on_path: cannot run %s: %s\n", argv[2], strerror(errno));
  return 2;
}
