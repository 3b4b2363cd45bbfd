#pragma once
// Exit codes of every mlgo subcommand. Scripts rely on them: never renumber.
namespace mlgo::exit_code {
constexpr int kSuccess = 0;         ///< Everything asked for was done.
constexpr int kFailure = 1;         ///< The run produced nothing usable.
constexpr int kUsage = 2;           ///< Bad flags or flag values.
constexpr int kBadInput = 3;        ///< An input file is missing or malformed.
constexpr int kPartialFailure = 4;  ///< Results written, but some modules failed.
constexpr int kStopped = 5;         ///< A long run stopped early (too many failures); its last state is saved.
constexpr int kRankLost = 6;        ///< Under mpirun: a rank died or went silent; train-ppo's last state is saved.
constexpr int kOutputInUse = 7;     ///< Another mlgo process is writing the output directory (it is named).
constexpr int kRunsDiffer = 8;      ///< compare-runs: the two runs differ (the first difference is named).
}  // namespace mlgo::exit_code
