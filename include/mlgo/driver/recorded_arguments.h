#pragma once
#include <string>
#include <vector>

namespace mlgo {

/// The cc1 arguments that compile `bitcodePath` as its recorded command line
/// says: the recorded ones without "-cc1", output, input language and inputs,
/// followed by "-x ir <bitcodePath>". The in-process driver parses exactly
/// these; `clang -cc1 <these> -o out.o` is the subprocess it must match.
std::vector<std::string> argumentsForBitcode(const std::vector<std::string> &recorded,
                                             const std::string &bitcodePath);

}  // namespace mlgo
