#pragma once
// `mlgo cc --log FILE`: one JSON line per translation unit (source, object,
// module, what was applied, sizes, and the fallback with its reason). Every
// compile of a parallel build appends to the same file, so each line is
// written whole under an exclusive lock.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "mlgo/launcher/compile_plan.h"
#include "mlgo/launcher/translation_unit.h"

namespace mlgo::launcher {

/// The log line of one translation unit.
nlohmann::json logRecord(const CompilePlan &plan, const Application &application,
                         const TranslationUnitOutcome &outcome);

/// The log line of a unit the real compiler compiles (`unapplied`: what of
/// the application did not reach it, and why; "" when all of it did).
nlohmann::json planRecord(const CompilePlan &plan, const Application &application, const std::string &unapplied);

/// Throws UsageError naming the log when it cannot take lines (a directory,
/// a named pipe, a link, a device, no permission): checked before a compile
/// writes anything.
void checkLogWritable(const std::filesystem::path &log);

/// Appends `record` as one line. Throws std::runtime_error naming the file
/// when it cannot.
void appendLogLine(const std::filesystem::path &log, const nlohmann::json &record);

}  // namespace mlgo::launcher
