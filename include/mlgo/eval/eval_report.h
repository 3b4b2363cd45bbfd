#pragma once
// Renders an EvalReport for people (a table) and for programs (JSON; the keys
// are documented in README.md and stable).
#include <string>

#include <nlohmann/json.hpp>

#include "mlgo/eval/evaluation.h"

namespace mlgo {

nlohmann::json evalReportToJson(const EvalReport &report, const std::string &corpusPath);
std::string evalReportToTable(const EvalReport &report);
/// Relative change (candidate - baseline) / baseline; 0 when both are 0.
double relativeChange(double candidate, double baseline);

}  // namespace mlgo
