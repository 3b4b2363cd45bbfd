#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "mlgo/support/varint.h"
#include "mlgo/training/es/distributed_es.h"

using namespace mlgo;
using Catch::Matchers::Contains;

TEST_CASE("distributed ES: a measure request survives the trip to the ranks bit for bit", "[mpi][es]") {
  MeasureRequest request;
  request.iteration = 41;
  request.modules = {6, 0, 3};
  request.candidates = {{0.5f, -1.25f, 1e-30f, std::numeric_limits<float>::denorm_min()},
                        {-0.0f, 3.0e38f, -7.0f, 0.1f}};
  const MeasureRequest back = decodeMeasureRequest(encodeMeasureRequest(request), 7);
  CHECK(back.iteration == 41);
  CHECK(back.modules == request.modules);
  REQUIRE(back.candidates.size() == 2);
  for (size_t c = 0; c < 2; ++c)
    for (size_t i = 0; i < 4; ++i) {
      CHECK(back.candidates[c][i] == request.candidates[c][i]);
      CHECK(std::signbit(back.candidates[c][i]) == std::signbit(request.candidates[c][i]));
    }

  // A module beyond this rank's corpus, and a cut message, are refused.
  CHECK_THROWS_WITH(decodeMeasureRequest(encodeMeasureRequest(request), 5),
                    Contains("module 6 of a corpus of 5") && Contains("same corpus"));
  const std::string bytes = encodeMeasureRequest(request);
  CHECK_THROWS_AS(decodeMeasureRequest(bytes.substr(0, bytes.size() - 3), 7), ByteReader::DecodeError);
  CHECK_THROWS_AS(decodeMeasureRequest(bytes + "x", 7), ByteReader::DecodeError);
}
