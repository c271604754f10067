/* Which flavour of a portable build to run on this CPU: the widest path it supports, or the one the environment
 * variable ZETA_CPU forces. Shared by the dispatching libzeta.so (dispatch.c) and the zeta launcher
 * (cli/launcher.c). */
#ifndef ZETA_CPU_CHOICE_H
#define ZETA_CPU_CHOICE_H

#include <stddef.h>

/* The paths, lowest first, as -march and ZETA_CPU spell them; flavour files are named with '_' for '-'
 * (libzeta_x86_64_v3.so, zeta_x86_64_v3). cmake/ZetaPortable.cmake builds one flavour per entry. */
#define ZETA_CPU_PATH_COUNT 3
extern const char *const zeta_cpu_path_names[ZETA_CPU_PATH_COUNT];

/* The first extension of path (an index into zeta_cpu_path_names) that this CPU lacks, or NULL when it has them
 * all. */
const char *zeta_cpu_missing_extension(int path);

/* The index of the path to run, or -1 with the reason in why (a CPU below every path, an unknown ZETA_CPU value,
 * a forced path this CPU lacks an extension of). */
int zeta_cpu_choose(char *why, size_t why_size);

/* The flavour's file name: prefix + path with '_' for '-' + suffix ("libzeta_" "x86-64-v3" ".so"). */
void zeta_cpu_flavour_file(int path, const char *prefix, const char *suffix, char *out, size_t out_size);

#endif /* ZETA_CPU_CHOICE_H */
