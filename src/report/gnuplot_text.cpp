#include "mlgo/report/gnuplot_text.h"

namespace mlgo {

std::string gnuplotString(const std::string &text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "''";
    else if ((unsigned char)c < 0x20 || c == 0x7f)
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

}  // namespace mlgo
