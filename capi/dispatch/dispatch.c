/* The libzeta.so of a portable build (-DZETA_PORTABLE=ON): when it loads, it chooses the flavour of the C API for
 * this CPU (cpu_choice.c), loads that flavour (libzeta_x86_64_v3.so, ...) from its own directory, and points
 * every exported function at the flavour's (the forwarding stubs and the table are generated from zeta.exports by
 * cmake/gen_dispatch.cmake). When no flavour can run — a CPU below every path, a refused ZETA_CPU, a missing or
 * mismatched flavour file — nothing crashes: every function returning zeta_status fails with ZETA_ERR_UNSUPPORTED
 * and zeta_last_error() says why, the others return what their contract allows, and the reason is printed to
 * stderr once, at the first failed call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cpu_choice.h"
#include "status_name.h"
#include "zeta.h"

#define ZETA_DISPATCH_HIDDEN __attribute__((visibility("hidden")))
#define ZETA_STRINGIFY2(x) #x
#define ZETA_STRINGIFY(x) ZETA_STRINGIFY2(x)
#define ZETA_VERSION_TEXT \
  ZETA_STRINGIFY(ZETA_VERSION_MAJOR) "." ZETA_STRINGIFY(ZETA_VERSION_MINOR) "." ZETA_STRINGIFY(ZETA_VERSION_PATCH)

typedef void (*zeta_dispatch_fn)(void);

/* Why no flavour runs ("" once one is loaded), and the texts derived from it; written only while loading. */
static char g_reason[512];
static char g_cpu_path[600];
static char g_build_info[700];
static int g_reported;
static __thread char t_last_error[700];

ZETA_DISPATCH_HIDDEN zeta_status zeta_dispatch_unavailable(int index);
ZETA_DISPATCH_HIDDEN void zeta_dispatch_nothing(void);

static const char *fallback_zeta_version(void) { return ZETA_VERSION_TEXT; }
static int32_t fallback_zeta_abi_version(void) { return ZETA_ABI_VERSION; }
static const char *fallback_zeta_last_error(void) { return t_last_error; }
static const char *fallback_zeta_status_name(int32_t status) { return zeta_status_text(status); }
static const char *fallback_zeta_build_info(void) { return g_build_info; }
static const char *fallback_zeta_cpu_path(void) { return g_cpu_path; }
static int32_t fallback_zeta_options_count(void) { return 0; }
static const char *fallback_zeta_options_key(int32_t index) {
  (void)index;
  return NULL;
}

#include "dispatch_table.h"

zeta_status zeta_dispatch_unavailable(int index) {
  snprintf(t_last_error, sizeof t_last_error, "%s: %s", zeta_dispatch_names[index], g_reason);
  if (!__atomic_exchange_n(&g_reported, 1, __ATOMIC_RELAXED))
    fprintf(stderr, "zeta: %s; every call fails with ZETA_ERR_UNSUPPORTED\n", g_reason);
  return ZETA_ERR_UNSUPPORTED;
}

void zeta_dispatch_nothing(void) {}

/* Loads the flavour of path from dir into a temporary table, or returns 0 with g_reason set. */
static int load_flavour(int path, const char *dir, zeta_dispatch_fn *functions) {
  char file[64], location[4096];
  zeta_cpu_flavour_file(path, "libzeta_", ".so", file, sizeof file);
  if (snprintf(location, sizeof location, "%s/%s", dir, file) >= (int)sizeof location) {
    snprintf(g_reason, sizeof g_reason, "the directory of libzeta.so is too long a path");
    return 0;
  }
  void *flavour = dlopen(location, RTLD_NOW | RTLD_LOCAL);
  if (flavour == NULL) {
    snprintf(g_reason, sizeof g_reason, "cannot load the %s flavour of libzeta: %s", zeta_cpu_path_names[path],
             dlerror());
    return 0;
  }
  for (int i = 0; i < ZETA_DISPATCH_COUNT; ++i) {
    void *symbol = dlsym(flavour, zeta_dispatch_names[i]);
    if (symbol == NULL) {
      snprintf(g_reason, sizeof g_reason, "%.400s lacks %s", location, zeta_dispatch_names[i]);
      dlclose(flavour);
      return 0;
    }
    memcpy(&functions[i], &symbol, sizeof symbol);
  }
  /* A flavour left behind by another version of zeta would break the calls' contract. */
  const char *(*version)(void);
  void *symbol = dlsym(flavour, "zeta_version");
  memcpy(&version, &symbol, sizeof symbol);
  if (strcmp(version(), ZETA_VERSION_TEXT) != 0) {
    snprintf(g_reason, sizeof g_reason, "%.400s is zeta %.20s, libzeta.so is zeta %s", location, version(),
             ZETA_VERSION_TEXT);
    dlclose(flavour);
    return 0;
  }
  return 1;
}

__attribute__((constructor)) static void zeta_dispatch_load(void) {
  zeta_dispatch_fn functions[ZETA_DISPATCH_COUNT];
  const int path = zeta_cpu_choose(g_reason, sizeof g_reason);
  int loaded = 0;
  if (path >= 0) {
    Dl_info self;
    if (dladdr((const void *)zeta_dispatch_table, &self) == 0 || self.dli_fname == NULL) {
      snprintf(g_reason, sizeof g_reason, "libzeta.so cannot find its own file");
    } else {
      char dir[4096];
      snprintf(dir, sizeof dir, "%s", self.dli_fname);
      char *slash = strrchr(dir, '/');
      if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
      else
        *slash = '\0';
      loaded = load_flavour(path, dir, functions);
    }
  }
  if (loaded) {
    g_reason[0] = '\0';
    memcpy(zeta_dispatch_table, functions, sizeof functions);
    return;
  }
  snprintf(g_cpu_path, sizeof g_cpu_path, "none (%s)", g_reason);
  snprintf(g_build_info, sizeof g_build_info, "zeta %s\nCPU path: %s", ZETA_VERSION_TEXT, g_cpu_path);
}
