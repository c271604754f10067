/* The zeta command of a portable build (cmake/ZetaPortable.cmake): runs the flavour of the tool for this CPU
 * (zeta_x86_64, zeta_x86_64_v3 or zeta_x86_64_v4, chosen as libzeta.so chooses, ZETA_CPU included) with the same
 * arguments. Installed, the flavours are in ZETA_CLI_LIBEXEC relative to the launcher; in the build tree, beside it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu_choice.h"

int main(int argc, char **argv) {
  (void)argc;
  char why[512];
  const int path = zeta_cpu_choose(why, sizeof why);
  if (path < 0) {
    fprintf(stderr, "zeta: %s\n", why);
    return 1;
  }
  char dir[4096];
  const ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (n <= 0) {
    fprintf(stderr, "zeta: cannot find the launcher's own file: %s\n", strerror(errno));
    return 1;
  }
  dir[n] = '\0';
  *strrchr(dir, '/') = '\0'; /* /proc/self/exe is an absolute path */
  char file[64];
  zeta_cpu_flavour_file(path, "zeta_", "", file, sizeof file);
  const char *const places[] = {ZETA_CLI_LIBEXEC, "."};
  char tried[2][4200];
  for (int i = 0; i < 2; ++i) {
    snprintf(tried[i], sizeof tried[i], "%s/%s/%s", dir, places[i], file);
    execv(tried[i], argv);
    if (errno != ENOENT) {
      fprintf(stderr, "zeta: cannot run %s: %s\n", tried[i], strerror(errno));
      return 1;
    }
  }
  fprintf(stderr, "zeta: the %s flavour of zeta is missing: neither %s nor %s exists\n", zeta_cpu_path_names[path],
          tried[0], tried[1]);
  return 1;
}
