// A correctness-gate program that only links when its inline member is
// inlined: `extern template` promises Box<int>'s instantiation elsewhere, so
// clang keeps get() available_externally and nothing defines it. -Oz inlines
// it; a pass list without an inliner leaves an undefined reference (a C++
// link failure, not a miscompile).
#include <cstdio>

template <class T>
struct Box {
  T value;
  T get() const { return value * 2; }
};
extern template struct Box<int>;

int main() {
  Box<int> box{21};
  std::printf("%d\n", box.get());
  return box.get() == 42 ? 0 : 1;
}
