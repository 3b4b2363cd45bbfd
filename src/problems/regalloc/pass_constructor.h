#pragma once
// How the register-allocation seams reach LLVM's legacy pass manager: clang's
// code generation builds it inside EmitBackendOutput, which takes no
// callbacks, and it creates the advisor analyses through LLVM's pass
// registry. Swapping a registry entry's constructor, once per process, lets a
// seam build mlgo's pass on a thread where its hook is active and LLVM's own
// elsewhere.
#include <llvm/PassInfo.h>
#include <llvm/PassRegistry.h>

namespace mlgo::regalloc {

/// Swaps the registry's constructor of the pass `id` for `replacement`;
/// returns the stock one.
inline llvm::PassInfo::NormalCtor_t replacePassConstructor(const void *id,
                                                           llvm::PassInfo::NormalCtor_t replacement) {
  auto *info = const_cast<llvm::PassInfo *>(llvm::PassRegistry::getPassRegistry()->getPassInfo(id));
  const llvm::PassInfo::NormalCtor_t stock = info->getNormalCtor();
  info->setNormalCtor(replacement);
  return stock;
}

}  // namespace mlgo::regalloc
