#include "cpu_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const zeta_cpu_path_names[ZETA_CPU_PATH_COUNT] = {"x86-64", "x86-64-v3", "x86-64-v4"};

/* GCC's __builtin_cpu_supports takes only string literals, hence a macro. libgcc reports AVX and AVX-512 only when
 * the operating system saves their registers (XCR0), as a program needs. */
#define ZETA_NEED(extension) \
  if (!__builtin_cpu_supports(extension)) return extension

/* The extensions are those of the x86-64 psABI level of the path's name, which -march of that name lets the
 * compiler use. */
const char *zeta_cpu_missing_extension(int path) {
  __builtin_cpu_init();
  ZETA_NEED("cmov");
  ZETA_NEED("mmx");
  ZETA_NEED("sse");
  ZETA_NEED("sse2");
  if (path >= 1) {
    /* x86-64-v2, then v3 */
    ZETA_NEED("sse3");
    ZETA_NEED("ssse3");
    ZETA_NEED("sse4.1");
    ZETA_NEED("sse4.2");
    ZETA_NEED("popcnt");
    ZETA_NEED("avx");
    ZETA_NEED("avx2");
    ZETA_NEED("bmi");
    ZETA_NEED("bmi2");
    ZETA_NEED("f16c");
    ZETA_NEED("fma");
    ZETA_NEED("lzcnt");
    ZETA_NEED("movbe");
    ZETA_NEED("osxsave");
    /* The rest of the level (cmpxchg16b, lahf/sahf), which libgcc does not name one by one. */
    if (!__builtin_cpu_supports("x86-64-v3")) return "x86-64-v3";
  }
  if (path >= 2) {
    ZETA_NEED("avx512f");
    ZETA_NEED("avx512bw");
    ZETA_NEED("avx512cd");
    ZETA_NEED("avx512dq");
    ZETA_NEED("avx512vl");
    if (!__builtin_cpu_supports("x86-64-v4")) return "x86-64-v4";
  }
  return NULL;
}

int zeta_cpu_choose(char *why, size_t why_size) {
  const char *forced = getenv("ZETA_CPU");
  if (forced != NULL && forced[0] != '\0') {
    for (int path = 0; path < ZETA_CPU_PATH_COUNT; ++path) {
      if (strcmp(forced, zeta_cpu_path_names[path]) != 0) continue;
      const char *missing = zeta_cpu_missing_extension(path);
      if (missing == NULL) return path;
      snprintf(why, why_size, "ZETA_CPU=%s is refused: this CPU lacks %s, which the %s path needs", forced, missing,
               forced);
      return -1;
    }
    snprintf(why, why_size, "ZETA_CPU=%s names no CPU path of zeta (x86-64, x86-64-v3 or x86-64-v4)", forced);
    return -1;
  }
  for (int path = ZETA_CPU_PATH_COUNT - 1; path >= 0; --path)
    if (zeta_cpu_missing_extension(path) == NULL) return path;
  snprintf(why, why_size, "this CPU lacks %s, which every path of zeta needs (x86-64: SSE2)",
           zeta_cpu_missing_extension(0));
  return -1;
}

void zeta_cpu_flavour_file(int path, const char *prefix, const char *suffix, char *out, size_t out_size) {
  int n = snprintf(out, out_size, "%s%s%s", prefix, zeta_cpu_path_names[path], suffix);
  if (n < 0) return;
  for (size_t i = strlen(prefix), end = i + strlen(zeta_cpu_path_names[path]); i < end && i < out_size; ++i)
    if (out[i] == '-') out[i] = '_';
}
