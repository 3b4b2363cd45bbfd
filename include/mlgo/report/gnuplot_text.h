#pragma once
// Text from a user's files (labels, way names) inside a gnuplot script the
// report runs: it must stay text, never become a command.
#include <string>

namespace mlgo {

/// A gnuplot single-quoted string of `text`: quotes doubled, and control
/// characters (a newline would end the string and the command, and start
/// another, e.g. `!shell command`) shown as spaces.
std::string gnuplotString(const std::string &text);

}  // namespace mlgo
