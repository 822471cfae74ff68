// Summaries of repeated measurements, shared by the benchmark clients:
// figures are medians, printed with their [min..max] spread.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

inline double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline double min_of(const std::vector<double> &v) {
  return v.empty() ? std::nan("") : *std::min_element(v.begin(), v.end());
}

inline double max_of(const std::vector<double> &v) {
  return v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end());
}

// "median [min..max]" with the given printf precision.
inline std::string spread(const std::vector<double> &v, int prec) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.*f [%.*f..%.*f]", prec, median(v), prec, min_of(v), prec,
                max_of(v));
  return buf;
}
