// Benchmark and check of an exported llvm::InlinerSizeModel. Compiled
// together with the generated InlinerSizeModel.cpp (tools/bench/aot-run.sh
// does it; so does the export test):
//   aot_model_bench FEATURES_FILE [REPEAT]
// FEATURES_FILE comes from `mlgo_bench_policy ... --dump-features FILE`:
// recorded decisions' features and the policy's own decisions on them.
// Prints one JSON line: decisions, runs, ns_per_run, mismatches (decisions
// that differ from the policy's) and allocations made inside Run(). Exits 1
// when there are mismatches or allocations.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "InlinerSizeModel.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<uint64_t> allocations{0};
}  // namespace

// Every allocation of the process goes through these; those made while
// counting is on happened inside Run().
void *operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *memory = std::malloc(size ? size : 1)) return memory;
  throw std::bad_alloc();
}
void *operator new[](std::size_t size) { return operator new(size); }
void operator delete(void *memory) noexcept { std::free(memory); }
void operator delete[](void *memory) noexcept { std::free(memory); }
void operator delete(void *memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void *memory, std::size_t) noexcept { std::free(memory); }

namespace {

template <typename T>
T readValue(std::ifstream &in) {
  T value{};
  in.read(reinterpret_cast<char *>(&value), sizeof value);
  return value;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FEATURES_FILE [REPEAT]\n", argv[0]);
    return 2;
  }
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 20;
  std::ifstream in(argv[1], std::ios::binary);
  std::string magic(8, '\0');
  in.read(&magic[0], 8);
  if (!in || magic != "MLGOFEAT") {
    std::fprintf(stderr, "%s: not a features file\n", argv[1]);
    return 2;
  }
  const uint64_t decisions = readValue<uint64_t>(in);
  const uint64_t width = readValue<uint64_t>(in);
  std::vector<std::string> names(width);
  for (std::string &name : names) {
    name.resize(readValue<uint64_t>(in));
    in.read(&name[0], static_cast<std::streamsize>(name.size()));
  }
  std::vector<int64_t> features(decisions * width);
  in.read(reinterpret_cast<char *>(features.data()), static_cast<std::streamsize>(features.size() * 8));
  std::vector<uint8_t> expected(decisions);
  in.read(reinterpret_cast<char *>(expected.data()), static_cast<std::streamsize>(decisions));
  if (!in) {
    std::fprintf(stderr, "%s: truncated\n", argv[1]);
    return 2;
  }

  // As ReleaseModeModelRunner does: look the buffers up once, then only Run().
  llvm::InlinerSizeModel model;
  std::vector<int64_t *> inputs(width, nullptr);
  for (uint64_t f = 0; f < width; ++f) {
    const int index = model.LookupArgIndex("feed_" + names[f]);
    if (index >= 0) inputs[f] = static_cast<int64_t *>(model.arg_data(index));
  }
  const int result = model.LookupResultIndex("fetch_inlining_decision");
  if (result < 0) {
    std::fprintf(stderr, "the model has no fetch_inlining_decision output\n");
    return 2;
  }
  const int64_t *decision = static_cast<const int64_t *>(model.result_data(result));

  uint64_t mismatches = 0;
  counting = true;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r) {
    for (uint64_t d = 0; d < decisions; ++d) {
      const int64_t *row = features.data() + d * width;
      for (uint64_t f = 0; f < width; ++f)
        if (inputs[f]) *inputs[f] = row[f];
      model.Run();
      if (r == 0) mismatches += (*decision != 0) != (expected[d] != 0);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  counting = false;
  const double runs = double(decisions) * repeat;
  std::printf(
      "{\"decisions\": %llu, \"runs\": %.0f, \"ns_per_run\": %.1f, \"mismatches\": %llu, \"allocations\": %llu}\n",
      (unsigned long long)decisions, runs, runs > 0 ? 1e9 * seconds / runs : 0.0, (unsigned long long)mismatches,
      (unsigned long long)allocations.load());
  return mismatches == 0 && allocations.load() == 0 ? 0 : 1;
}
