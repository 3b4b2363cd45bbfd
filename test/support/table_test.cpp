#include <catch2/catch.hpp>

#include "mlgo/support/table.h"

TEST_CASE("table: columns line up and numbers align right", "[support]") {
  mlgo::TextTable table({"module", "size"});
  table.addRow({"a.o", "5"});
  table.addRow({"longer.o", "12345"});
  table.addRule();
  table.addRow({"total", "12350"});
  const std::string text = table.render();
  CHECK(text ==
        "module     size\n"
        "---------------\n"
        "a.o           5\n"
        "longer.o  12345\n"
        "---------------\n"
        "total     12350\n");
}

TEST_CASE("percent change: sign, two decimals, zero base", "[support]") {
  CHECK(mlgo::formatPercentChange(110, 100) == "+10.00%");
  CHECK(mlgo::formatPercentChange(95, 100) == "-5.00%");
  CHECK(mlgo::formatPercentChange(0, 0) == "0.00%");
  CHECK(mlgo::formatPercentChange(3, 0) == "n/a");
}
