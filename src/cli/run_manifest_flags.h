#pragma once
// The run manifest (mlgo/support/run_manifest.h) of a finished subcommand,
// from its parsed flags.
#include <CLI/CLI.hpp>

#include "commands.h"

namespace mlgo::cli {

/// Writes the manifest of the run `row` just finished, if the row names an
/// output flag and the run wrote that output. Only the leader of an mpirun
/// writes it. A manifest that cannot be written is a warning: the run's
/// results stand.
void writeManifestOfRun(const CLI::App &command, const Subcommand &row);

}  // namespace mlgo::cli
