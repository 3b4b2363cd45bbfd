#include <catch2/catch.hpp>

#include "mlgo/support/shell_words.h"

using mlgo::splitShellWords;
using Words = std::vector<std::string>;

TEST_CASE("shell words: plain words split on any whitespace", "[support]") {
  CHECK(*splitShellWords("clang  -c\ta.c\n-o a.o") == Words{"clang", "-c", "a.c", "-o", "a.o"});
  CHECK(splitShellWords("   ")->empty());
}

TEST_CASE("shell words: quotes and escapes keep spaces inside a word", "[support]") {
  CHECK(*splitShellWords("cc -DNAME='\"a b\"' \"dir with space/x.c\" a\\ b") ==
        Words{"cc", "-DNAME=\"a b\"", "dir with space/x.c", "a b"});
  CHECK(*splitShellWords("cc \"esc\\\"aped\" ''") == Words{"cc", "esc\"aped", ""});
}

TEST_CASE("shell words: an open quote is an error, not a guess", "[support]") {
  CHECK_FALSE(splitShellWords("cc 'unterminated").has_value());
  CHECK_FALSE(splitShellWords("cc \"unterminated").has_value());
}
