/* Minimal assertion helpers for the C tests of the C API: every failure is printed and counted, the test goes
 * on, and main returns non-zero when anything failed. */
#ifndef ZETA_TEST_CHECK_H
#define ZETA_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

#include "zeta.h"

static int g_failures = 0;

#define CHECK(cond)                                                                                                   \
  do {                                                                                                                \
    if (!(cond)) {                                                                                                    \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: \"%s\"\n", __FILE__, __LINE__, #cond, zeta_last_error()); \
      ++g_failures;                                                                                                   \
    }                                                                                                                 \
  } while (0)

#define EXPECT_OK(call)                                                                               \
  do {                                                                                                \
    zeta_status s_ = (call);                                                                          \
    if (s_ != ZETA_OK) {                                                                              \
      fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call, zeta_status_name(s_), \
              zeta_last_error());                                                                     \
      ++g_failures;                                                                                   \
    } else if (zeta_last_error()[0] != '\0') {                                                        \
      fprintf(stderr, "%s:%d: %s succeeded but left last error \"%s\"\n", __FILE__, __LINE__, #call,  \
              zeta_last_error());                                                                     \
      ++g_failures;                                                                                   \
    }                                                                                                 \
  } while (0)

/* The call must fail with `expected`, with a message containing `needle` (the argument's name). */
#define EXPECT_ERR(expected, needle, call)                                                                \
  do {                                                                                                    \
    zeta_status s_ = (call);                                                                              \
    const char *m_ = zeta_last_error();                                                                   \
    if (s_ != (expected)) {                                                                               \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (message \"%s\")\n", __FILE__, __LINE__, #call, \
              zeta_status_name(s_), zeta_status_name(expected), m_);                                      \
      ++g_failures;                                                                                       \
    } else if (m_ == NULL || m_[0] == '\0' || strstr(m_, (needle)) == NULL) {                             \
      fprintf(stderr, "%s:%d: %s: message \"%s\" does not mention \"%s\"\n", __FILE__, __LINE__, #call,   \
              m_ ? m_ : "(null)", (needle));                                                              \
      ++g_failures;                                                                                       \
    }                                                                                                     \
  } while (0)

#define TEST_SUMMARY(name)                                        \
  (g_failures == 0 ? (printf("%s: all checks passed\n", name), 0) \
                   : (fprintf(stderr, "%s: %d check(s) failed\n", name, g_failures), 1))

#endif
