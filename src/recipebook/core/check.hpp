// RB_CHECK: an always-on invariant check for programming errors (never for user input, which goes
// through Result or Diagnostics). It aborts with file and line.
#pragma once

#include <cstdio>
#include <cstdlib>

#define RB_CHECK(cond)                                                                   \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: internal error: check failed: %s\n", __FILE__, __LINE__, \
                   #cond);                                                               \
      std::abort();                                                                      \
    }                                                                                    \
  } while (false)
