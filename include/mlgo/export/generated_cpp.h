#pragma once
// What every `mlgo export --format llvm-aot` generator shares: C++ source
// text for a class LLVM's ReleaseModeModelRunner<T> runs (a header and a
// source named after the class), exact float literals, weight arrays, the
// dense layer every network runs, and writing the two files as one
// directory.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "mlgo/policy/dense_network.h"

namespace mlgo {

struct GeneratedSources {
  std::string className;  ///< in namespace llvm; the files are CLASS.h and CLASS.cpp
  std::string header;
  std::string source;
  std::string headerName() const { return className + ".h"; }
  std::string sourceName() const { return className + ".cpp"; }
};

/// Writes the header and the source into `directory`, atomically: a
/// complete directory or none. Throws UsageError when it exists and
/// `replace` is false.
void writeGeneratedSources(const GeneratedSources &sources, const std::filesystem::path &directory, bool replace);

namespace generated_cpp {

/// Hexadecimal floating-point literals: exact, so the compiled model
/// computes with bit for bit the values the policy holds.
std::string literal(double value);
std::string literal(float value);

/// `alignas(16) const TYPE NAME[N] = {...};`
template <typename T>
void writeArray(std::ostringstream &out, const char *type, const std::string &name, const std::vector<T> &values) {
  out << "alignas(16) const " << type << " " << name << "[" << values.size() << "] = {";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i % 6 == 0) out << "\n    ";
    out << literal(values[i]) << (i + 1 < values.size() ? ", " : "");
  }
  out << "};\n";
}

/// The source's preamble after its own #include: standard headers, no
/// contraction of products and sums (mlgo rounds each), namespace llvm.
extern const char *const kSourcePreamble;
/// `dense<Inputs, Outputs>(weights, bias, x, y)`, y = bias + x W with W
/// transposed as DenseNetwork runs it (accumulated input by input, so the
/// sums are mlgo's to the bit). Inside the generated anonymous namespace.
extern const char *const kDenseFunction;

/// The network's widest layer: the size of the two scratch buffers
/// (`front_`, `back_`) the generated class holds.
size_t widestLayer(const DenseNetwork &network);
/// kWeights<l> and kBias<l> of every layer (at namespace scope).
void writeNetworkArrays(std::ostringstream &out, const DenseNetwork &network);
/// Statements (in a member function) that run the network from the floats
/// at `input` into the floats at `output`, through front_ and back_, as
/// DenseNetwork::forward does.
void writeNetworkCalls(std::ostringstream &out, const DenseNetwork &network, const std::string &input,
                       const std::string &output, const std::string &indent);

}  // namespace generated_cpp

}  // namespace mlgo
