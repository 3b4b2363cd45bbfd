#include <catch2/catch.hpp>

#include "mlgo/support/sampling.h"

using namespace mlgo;

TEST_CASE("sampling: deterministic, seeded, close to the rate", "[trace]") {
  size_t picked = 0, changed = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string name = "module" + std::to_string(i) + ".o";
    const bool first = isSampled(name, 0.25, 7);
    CHECK(first == isSampled(name, 0.25, 7));
    picked += first;
    changed += first != isSampled(name, 0.25, 8);
  }
  CHECK(picked > 900);
  CHECK(picked < 1100);
  CHECK(changed > 1000);  // another seed, another sample
  CHECK(isSampled("any", 1.0, 1));
  CHECK_FALSE(isSampled("any", 0.0, 1));
}

TEST_CASE("sampling: uniform numbers stay between 0 and 1", "[trace]") {
  double low = 1, high = 0;
  for (uint64_t key = 0; key < 10000; ++key) {
    const double u = uniformFromKey(key, 3);
    low = std::min(low, u);
    high = std::max(high, u);
  }
  CHECK(low >= 0);
  CHECK(low < 0.01);
  CHECK(high < 1);
  CHECK(high > 0.99);
}
