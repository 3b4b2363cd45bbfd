#include <catch2/catch.hpp>

#include <fstream>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/policy/vocab_files.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;

TEST_CASE("vocab files: one float per line, read back exactly", "[vocab]") {
  test::ScratchDirectory dir;
  const std::vector<double> boundaries{-15045.0, -35.0, 1e-5, 0.1, 2.5, 175.0, 1e300};
  writeBuckets(dir.path(), "cost_estimate", boundaries);
  // Line by line, every line a float, as ml-compiler-opt reads it.
  std::ifstream in(dir / "cost_estimate.buckets");
  std::string line;
  std::vector<double> parsed;
  while (std::getline(in, line)) parsed.push_back(std::stod(line));
  CHECK(parsed == boundaries);
  CHECK(readBuckets(dir / "cost_estimate.buckets") == boundaries);
  CHECK(readFile(dir / "cost_estimate.buckets").substr(0, 21) == "-15045.0\n-35.0\n1e-05\n");
}

TEST_CASE("vocab files: bad content names the file and line", "[vocab][errors]") {
  test::ScratchDirectory dir;
  writeFileAtomically(dir / "a.buckets", "1.0\n2.0\nthree\n");
  CHECK_THROWS_WITH(readBuckets(dir / "a.buckets"), Contains("a.buckets") && Contains("line 3") && Contains("three"));
  writeFileAtomically(dir / "b.buckets", "2.0\n1.0\n");
  CHECK_THROWS_WITH(readBuckets(dir / "b.buckets"), Contains("line 2") && Contains("ascending"));
  writeFileAtomically(dir / "c.buckets", "\n");
  CHECK_THROWS_AS(readBuckets(dir / "c.buckets"), InputError);
  CHECK_THROWS_WITH(readVocab(dir.path(), {"a", "missing_feature"}), Contains("line 3"));
  CHECK_THROWS_WITH(readVocab(dir.path(), {"missing_feature"}), Contains("missing_feature.buckets"));
}

TEST_CASE("vocab files: floats print like Python", "[vocab]") {
  CHECK(formatFloat(3) == "3.0");
  CHECK(formatFloat(-35) == "-35.0");
  CHECK(formatFloat(2.5) == "2.5");
  CHECK(formatFloat(0.1) == "0.1");
}
