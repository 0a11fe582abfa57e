// Per-call timing shared by the C++ peers of bench/compare.sh (pinocchio_aba.cpp,
// pinocchio_urdf.cpp): the same rule as udk-bench's `timing::ns_per_call`.
#pragma once

#include <algorithm>
#include <chrono>

// Nanoseconds per call of body(s) cycling through the states s = 0..count-1: the best of 7
// runs, each at least 50 ms long. `body` returns a number that is summed, so that the calls
// are not optimized away.
template <typename Body>
double ns_per_call(int count, Body body) {
  volatile double sink = 0.0;
  auto run = [&](long rounds) {
    const auto start = std::chrono::steady_clock::now();
    double sum = 0.0;
    for (long r = 0; r < rounds; ++r)
      for (int s = 0; s < count; ++s) sum += body(s);
    sink = sum;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  long rounds = 1;
  while (run(rounds) < 0.05) rounds *= 2;
  double best = 1e300;
  for (int r = 0; r < 7; ++r) best = std::min(best, run(rounds));
  (void)sink;
  return best * 1e9 / double(rounds * count);
}
