#pragma once
#include <string>
#include <string_view>

#include "mlgo/driver/compile_result.h"

namespace mlgo {

/// Classifies the sections of an object file held in memory (see
/// SectionSizes). Returns false and sets `error` when it is not an object.
bool measureObjectSizes(std::string_view objectBytes, SectionSizes &sizes, std::string &error);

}  // namespace mlgo
