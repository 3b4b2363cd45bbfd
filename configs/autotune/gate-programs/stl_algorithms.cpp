// <algorithm> and <numeric>: sort / stable_sort (stability), nth_element,
// partial_sort, partition, unique, rotate, next_permutation, binary searches,
// merge / inplace_merge, heap operations, partial_sum <-> adjacent_difference,
// inner_product; each compared against a naive computation.
// clang 19 flags libstdc++ 12's own use of the deprecated get_temporary_buffer
// (in stable_sort, stable_partition, inplace_merge); silence it for the header.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <algorithm>
#pragma GCC diagnostic pop
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "stl_algorithms: line %d: %s\n", __LINE__, #c);             \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

static std::uint32_t rng_state = 777u;
static int rnd(int mod) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return static_cast<int>((rng_state >> 8) % static_cast<std::uint32_t>(mod));
}

int main() {
  std::vector<int> data(2000);
  for (auto &x : data) x = rnd(500) - 250;

  std::vector<int> sorted = data;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::is_sorted(sorted.begin(), sorted.end()));
  std::vector<int> counts(500, 0);
  for (int x : data) counts[static_cast<std::size_t>(x + 250)]++;
  for (int x : sorted) counts[static_cast<std::size_t>(x + 250)]--;
  CHECK(std::all_of(counts.begin(), counts.end(), [](int c) { return c == 0; })); // permutation

  // stable_sort keeps the original order of equal keys.
  std::vector<std::pair<int, int>> tagged;
  for (int i = 0; i < 500; i++) tagged.emplace_back(data[static_cast<std::size_t>(i)] / 50, i);
  std::stable_sort(tagged.begin(), tagged.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  bool stable = true;
  for (std::size_t i = 1; i < tagged.size(); i++)
    if (tagged[i - 1].first == tagged[i].first && tagged[i - 1].second > tagged[i].second) stable = false;
  CHECK(stable);

  for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{999}, std::size_t{1999}}) {
    std::vector<int> w = data;
    std::nth_element(w.begin(), w.begin() + static_cast<long>(k), w.end());
    bool ok = w[k] == sorted[k];
    for (std::size_t i = 0; i < k; i++) ok &= w[i] <= w[k];
    for (std::size_t i = k + 1; i < w.size(); i++) ok &= w[i] >= w[k];
    CHECK(ok);
  }
  std::vector<int> ps = data;
  std::partial_sort(ps.begin(), ps.begin() + 100, ps.end(), std::greater<int>());
  CHECK(std::equal(ps.begin(), ps.begin() + 100, sorted.rbegin()));

  std::vector<int> part = data;
  auto mid = std::stable_partition(part.begin(), part.end(), [](int x) { return x % 3 == 0; });
  std::vector<int> ref_part;
  for (int x : data) if (x % 3 == 0) ref_part.push_back(x);
  for (int x : data) if (x % 3 != 0) ref_part.push_back(x);
  CHECK(part == ref_part && mid - part.begin() == std::count_if(data.begin(), data.end(), [](int x) { return x % 3 == 0; }));

  std::vector<int> uniq = sorted;
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  std::vector<int> distinct_ref;
  for (int x : sorted) if (distinct_ref.empty() || distinct_ref.back() != x) distinct_ref.push_back(x);
  CHECK(uniq == distinct_ref);

  std::vector<int> rot{1, 2, 3, 4, 5, 6, 7};
  std::rotate(rot.begin(), rot.begin() + 3, rot.end());
  CHECK((rot == std::vector<int>{4, 5, 6, 7, 1, 2, 3}));
  std::reverse(rot.begin(), rot.end());
  CHECK(rot.front() == 3 && rot.back() == 4);

  std::string perm = "abcdefg";
  int nperm = 1;
  while (std::next_permutation(perm.begin(), perm.end())) nperm++;
  CHECK(nperm == 5040 && perm == "abcdefg");
  std::vector<int> multiset{1, 1, 2, 2, 2};
  int nms = 1;
  while (std::next_permutation(multiset.begin(), multiset.end())) nms++;
  CHECK(nms == 10); // 5! / (2! 3!)

  for (int key = -260; key <= 260; key += 13) {
    auto lb = std::lower_bound(sorted.begin(), sorted.end(), key);
    auto ub = std::upper_bound(sorted.begin(), sorted.end(), key);
    long below = std::count_if(sorted.begin(), sorted.end(), [key](int x) { return x < key; });
    long equal = std::count(sorted.begin(), sorted.end(), key);
    CHECK(lb - sorted.begin() == below && ub - lb == equal &&
          std::binary_search(sorted.begin(), sorted.end(), key) == (equal > 0));
  }

  std::vector<int> a(sorted.begin(), sorted.begin() + 700), b(sorted.begin() + 700, sorted.end());
  std::vector<int> merged;
  std::merge(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(merged));
  CHECK(merged == sorted);
  std::vector<int> halves = data;
  std::sort(halves.begin(), halves.begin() + 1234);
  std::sort(halves.begin() + 1234, halves.end());
  std::inplace_merge(halves.begin(), halves.begin() + 1234, halves.end());
  CHECK(halves == sorted);

  std::vector<int> heap = data;
  std::make_heap(heap.begin(), heap.end());
  CHECK(std::is_heap(heap.begin(), heap.end()) && heap.front() == sorted.back());
  heap.push_back(1000);
  std::push_heap(heap.begin(), heap.end());
  CHECK(heap.front() == 1000);
  std::pop_heap(heap.begin(), heap.end());
  heap.pop_back();
  std::sort_heap(heap.begin(), heap.end());
  CHECK(heap == sorted);

  std::vector<long> prefix(data.size()), diffs(data.size());
  std::partial_sum(data.begin(), data.end(), prefix.begin());
  std::adjacent_difference(prefix.begin(), prefix.end(), diffs.begin());
  CHECK(std::equal(diffs.begin(), diffs.end(), data.begin()) &&
        prefix.back() == std::accumulate(data.begin(), data.end(), 0L));
  long dot = std::inner_product(data.begin(), data.end(), sorted.begin(), 0L);
  long naive = 0;
  for (std::size_t i = 0; i < data.size(); i++) naive += static_cast<long>(data[i]) * sorted[i];
  CHECK(dot == naive);
  long self = std::inner_product(sorted.begin(), sorted.end(), sorted.begin(), 0L);
  CHECK(self >= dot); // rearrangement inequality: sorted x sorted is maximal

  auto [mn, mx] = std::minmax_element(data.begin(), data.end());
  CHECK(*mn == sorted.front() && *mx == sorted.back());
  CHECK(std::gcd(1071, 462) == 21 && std::lcm(4, 6) == 12);
  CHECK(std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end()));
  CHECK(std::includes(sorted.begin(), sorted.end(), uniq.begin(), uniq.end()));

  if (failures) {
    std::fprintf(stderr, "stl_algorithms: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
