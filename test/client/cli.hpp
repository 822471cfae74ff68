// Command-line helpers shared by the client programs.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>

// The integer value of option --name, at least min; otherwise a message
// naming the program and the option, and exit status 2 (a usage error).
inline long parse_long_option(const char *program, const char *name, const char *s, long min) {
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < min) {
    std::fprintf(stderr, "%s: bad value for --%s: '%s' (need integer >= %ld)\n", program, name,
                 s, min);
    std::exit(2);
  }
  return v;
}
