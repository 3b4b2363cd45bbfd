// Standard containers: vector (growth, insert/erase in the middle), deque,
// list splicing, map/multimap ordering and lower_bound, unordered_map
// word counts and rehashing, set algebra, string operations, priority_queue;
// results checked against hand-computed values and plain-array references.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <list>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "stl_containers: line %d: %s\n", __LINE__, #c);             \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

int main() {
  // vector: growth keeps contents, middle insert/erase shifts correctly.
  std::vector<int> v;
  for (int i = 0; i < 1000; i++) v.push_back(i * 3);
  CHECK(v.size() == 1000 && v.capacity() >= 1000 && v[999] == 2997);
  v.insert(v.begin() + 500, {-1, -2, -3});
  CHECK(v.size() == 1003 && v[499] == 1497 && v[500] == -1 && v[503] == 1500);
  v.erase(v.begin() + 10, v.begin() + 20);
  CHECK(v.size() == 993 && v[10] == 60);
  v.erase(std::remove_if(v.begin(), v.end(), [](int x) { return x < 0 || x % 2; }), v.end());
  long s = std::accumulate(v.begin(), v.end(), 0L);
  long ref = 0;
  for (int i = 0; i < 1000; i++) if ((i < 10 || i >= 20) && (i * 3) % 2 == 0) ref += i * 3;
  CHECK(s == ref);
  v.resize(5);
  v.shrink_to_fit();
  CHECK(v.size() == 5 && v.back() == 24); // 0 6 12 18 24

  // deque as a sliding window maximum (monotonic queue) vs brute force.
  std::vector<int> data(300);
  std::uint32_t st = 5;
  for (auto &x : data) { st = st * 1103515245u + 12345u; x = static_cast<int>((st >> 16) % 1000); }
  std::deque<int> dq;
  const int k = 17;
  bool window_ok = true;
  for (int i = 0; i < 300; i++) {
    while (!dq.empty() && data[dq.back()] <= data[i]) dq.pop_back();
    dq.push_back(i);
    if (dq.front() <= i - k) dq.pop_front();
    if (i >= k - 1) {
      int brute = *std::max_element(data.begin() + (i - k + 1), data.begin() + i + 1);
      window_ok &= data[dq.front()] == brute;
    }
  }
  CHECK(window_ok);

  // list: splice, sort, unique, reverse.
  std::list<int> a{5, 1, 4}, b{9, 2, 2, 7};
  a.splice(std::next(a.begin()), b);
  CHECK(b.empty() && a.size() == 7);
  CHECK((std::vector<int>(a.begin(), a.end()) == std::vector<int>{5, 9, 2, 2, 7, 1, 4}));
  a.sort();
  a.unique();
  a.reverse();
  CHECK((std::vector<int>(a.begin(), a.end()) == std::vector<int>{9, 7, 5, 4, 2, 1}));

  // map / multimap ordering.
  std::map<std::string, int> ages{{"carol", 35}, {"alice", 30}, {"bob", 25}};
  ages["dave"] = 40;
  ages["alice"] += 1;
  std::string order;
  for (const auto &[name, age] : ages) order += name.substr(0, 1) + std::to_string(age);
  CHECK(order == "a31b25c35d40");
  auto it = ages.lower_bound("bz");
  CHECK(it != ages.end() && it->first == "carol");
  CHECK(ages.erase("bob") == 1 && ages.count("bob") == 0 && ages.size() == 3);
  std::multimap<int, char> mm{{2, 'b'}, {1, 'a'}, {2, 'c'}, {3, 'd'}, {2, 'e'}};
  auto range = mm.equal_range(2);
  std::string twos;
  for (auto i = range.first; i != range.second; ++i) twos += i->second;
  CHECK(twos == "bce"); // insertion order preserved among equal keys

  // unordered_map: word frequencies, survives rehashing.
  const std::string text = "one two three two three three four four four four";
  std::unordered_map<std::string, int> freq;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    freq[text.substr(pos, end - pos)]++;
    pos = end + 1;
  }
  CHECK(freq.size() == 4 && freq["one"] == 1 && freq["two"] == 2 && freq["three"] == 3 && freq["four"] == 4);
  std::unordered_map<int, int> big;
  for (int i = 0; i < 5000; i++) big[i * 7919 % 10007] = i;
  big.rehash(100000);
  bool all_found = true;
  for (int i = 0; i < 5000; i++) all_found &= big.at(i * 7919 % 10007) == i;
  CHECK(all_found && big.size() == 5000 && big.count(10006) + big.count(3) <= 2);

  // set algebra.
  std::set<int> m3, m5;
  for (int i = 0; i < 100; i += 3) m3.insert(i);
  for (int i = 0; i < 100; i += 5) m5.insert(i);
  std::vector<int> inter, uni, diff;
  std::set_intersection(m3.begin(), m3.end(), m5.begin(), m5.end(), std::back_inserter(inter));
  std::set_union(m3.begin(), m3.end(), m5.begin(), m5.end(), std::back_inserter(uni));
  std::set_difference(m3.begin(), m3.end(), m5.begin(), m5.end(), std::back_inserter(diff));
  CHECK(inter == (std::vector<int>{0, 15, 30, 45, 60, 75, 90}));
  CHECK(uni.size() == 34 + 20 - 7 && diff.size() == 34 - 7);
  std::unordered_set<std::string> seen;
  int dups = 0;
  for (const char *w : {"a", "b", "a", "c", "b", "a"}) dups += !seen.insert(w).second;
  CHECK(dups == 3 && seen.size() == 3);

  // strings.
  std::string str = "Hello, World";
  str.replace(7, 5, "There");
  str += '!';
  CHECK(str == "Hello, There!" && str.find("There") == 7 && str.rfind('l') == 3);
  CHECK(str.substr(0, 5) == "Hello" && str.compare("Hello") > 0 && std::string("abc") < std::string("abd"));
  std::string up = str;
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c); });
  CHECK(up == "HELLO, THERE!");
  std::string num = std::to_string(-12345);
  CHECK(num == "-12345" && std::stoi(num) == -12345 && std::stol("7fffffff", nullptr, 16) == 2147483647L);

  // priority_queue with a custom comparator (min-heap of pairs).
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> pq;
  for (int i = 0; i < 50; i++) pq.emplace((i * 37) % 50, i);
  int prev = -1;
  bool heap_ok = true;
  while (!pq.empty()) {
    heap_ok &= pq.top().first >= prev;
    prev = pq.top().first;
    pq.pop();
  }
  CHECK(heap_ok && prev == 49);

  if (failures) {
    std::fprintf(stderr, "stl_containers: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
