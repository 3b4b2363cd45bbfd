// The BLAS routines LibTorch calls for mlgo's networks, computed in one fixed
// order so that a seed trains the same policy on every CPU (see
// deterministic_torch.h). libmlgo_training.so exports them under their
// Fortran names; LibTorch's calls bind to these before the system BLAS, which
// comes later in the loader's search order (a dependency of LibTorch's own).
//
// Products and sums run in plain float/double arithmetic; the build turns
// floating-point contraction off (-ffp-contract=off), so no fused
// multiply-add changes a rounding on a CPU that has one. Each output element
// accumulates its terms in ascending index order; vectors only ever hold
// independent outputs, so their width (a clone per CPU) changes no
// element's order. The cost per gradient step is in BENCHMARKS.md.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdint>
#include <vector>

#include "mlgo/training/shared/deterministic_torch.h"

namespace mlgo {

namespace {

std::atomic<uint64_t> blasCalls{0};

bool transposed(const char *trans) { return *trans != 'N' && *trans != 'n'; }

/// Element i of a BLAS vector of n elements with increment inc (a negative
/// increment walks the storage backwards, as BLAS defines it).
template <class T>
T &element(T *x, int n, int inc, int i) {
  return inc >= 0 ? x[int64_t(i) * inc] : x[int64_t(n - 1 - i) * -inc];
}

/// Register blocks of C: kRows rows (a vector register's lanes, several
/// times over) by kColumns columns stay in registers while k runs.
constexpr int kRows = 16, kColumns = 4;

/// C[i0.., j0..] += sum over l of scale(l, j) op(A)(i, l), l ascending, for
/// a block of `rows` x `columns`: each element takes its products and sums in
/// that order, whatever the vector width (the build never fuses a multiply
/// and an add). `scales` holds alpha op(B)(l, j0 + jj) at [l kColumns + jj].
template <class T>
void accumulateBlock(const T *opA, int64_t opLda, int k, const T *scales, T *c, int64_t ldc, int rows,
                     int columns) {
  for (int jj = 0; jj < columns; ++jj)
    for (int l = 0; l < k; ++l) {
      const T scale = scales[l * kColumns + jj];
      const T *aColumn = opA + l * opLda;
      for (int ii = 0; ii < rows; ++ii) c[jj * ldc + ii] += scale * aColumn[ii];
    }
}

/// kRows floats as one value: GCC's vector extension, lowered to the clone's
/// registers (one zmm, two ymm or four xmm), so that the block's
/// accumulators stay in registers; each lane is a plain float multiply and
/// add.
typedef float FloatRows __attribute__((vector_size(kRows * sizeof(float))));
// Passing FloatRows by value would change the ABI between clones; these
// helpers are always inlined, so no call passes one.
#pragma GCC diagnostic ignored "-Wpsabi"

__attribute__((always_inline)) inline FloatRows loadRows(const float *p) {
  FloatRows rows;
  std::memcpy(&rows, p, sizeof rows);
  return rows;
}

__attribute__((always_inline)) inline void fullFloatBlock(const float *opA, int64_t opLda, int k,
                                                          const float *scales, float *c, int64_t ldc) {
  static_assert(kColumns == 4, "four accumulators below");
  FloatRows acc0 = loadRows(c), acc1 = loadRows(c + ldc), acc2 = loadRows(c + 2 * ldc), acc3 = loadRows(c + 3 * ldc);
  for (int l = 0; l < k; ++l) {
    const FloatRows a = loadRows(opA + l * opLda);
    const float *s = scales + l * kColumns;
    acc0 += s[0] * a;
    acc1 += s[1] * a;
    acc2 += s[2] * a;
    acc3 += s[3] * a;
  }
  std::memcpy(c, &acc0, sizeof acc0);
  std::memcpy(c + ldc, &acc1, sizeof acc1);
  std::memcpy(c + 2 * ldc, &acc2, sizeof acc2);
  std::memcpy(c + 3 * ldc, &acc3, sizeof acc3);
}

/// The blocks of C, in a clone for each vector width (the dynamic loader
/// picks one for the CPU; all compute the same bits). `opA` holds op(A) with
/// its rows padded with zeros to a multiple of kRows (leading dimension
/// `paddedRows`), and `scales` has zeros past column n: a block at an edge
/// of C runs whole on a copy, and only C's own elements are copied back.
__attribute__((target_clones("avx512f", "avx2", "default"))) void floatBlocks(
    const float *opA, int64_t paddedRows, int m, int n, int k, const float *scales, float *c, int64_t ldc) {
  for (int j0 = 0; j0 < n; j0 += kColumns) {
    const int columns = std::min(kColumns, n - j0);
    const float *blockScales = scales + int64_t(j0) * k;
    for (int i0 = 0; i0 < m; i0 += kRows) {
      const int rows = std::min(kRows, m - i0);
      float *block = c + int64_t(j0) * ldc + i0;
      if (rows == kRows && columns == kColumns) {
        fullFloatBlock(opA + i0, paddedRows, k, blockScales, block, ldc);
        continue;
      }
      float edge[kColumns][kRows] = {};
      for (int jj = 0; jj < columns; ++jj)
        for (int ii = 0; ii < rows; ++ii) edge[jj][ii] = block[jj * ldc + ii];
      fullFloatBlock(opA + i0, paddedRows, k, blockScales, &edge[0][0], kRows);
      for (int jj = 0; jj < columns; ++jj)
        for (int ii = 0; ii < rows; ++ii) block[jj * ldc + ii] = edge[jj][ii];
    }
  }
}

/// Doubles (LibTorch's products of double tensors, which mlgo's networks do
/// not use) without vector registers.
template <class T>
void blocks(const T *opA, int64_t opLda, int m, int n, int k, const T *scales, T *c, int64_t ldc) {
  for (int j0 = 0; j0 < n; j0 += kColumns) {
    const int columns = std::min(kColumns, n - j0);
    for (int i0 = 0; i0 < m; i0 += kRows)
      accumulateBlock(opA + i0, opLda, k, scales + int64_t(j0) * k, c + int64_t(j0) * ldc + i0, ldc,
                      std::min(kRows, m - i0), columns);
  }
}
template <>
void blocks<float>(const float *opA, int64_t opLda, int m, int n, int k, const float *scales, float *c,
                   int64_t ldc) {
  floatBlocks(opA, opLda, m, n, k, scales, c, ldc);
}

/// C = alpha op(A) op(B) + beta C, column-major, as xGEMM defines it
/// (beta = 0 sets C without reading it). Every element of C is
/// beta C (or 0), then + (alpha op(B)(l, j)) op(A)(i, l) for l = 0, 1, ...
template <class T>
void gemm(const char *transa, const char *transb, int m, int n, int k, T alpha, const T *a, int lda, const T *b,
          int ldb, T beta, T *c, int ldc) {
  if (m <= 0 || n <= 0) return;
  for (int j = 0; j < n; ++j) {
    T *column = c + int64_t(j) * ldc;
    if (beta == T(0))
      for (int i = 0; i < m; ++i) column[i] = T(0);
    else if (beta != T(1))
      for (int i = 0; i < m; ++i) column[i] = beta * column[i];
  }
  if (alpha == T(0) || k <= 0) return;
  // op(A) as a column-major block with its rows padded with zeros to whole
  // register blocks, so that the inner loops run down a column of C and of
  // op(A).
  thread_local std::vector<T> packed, scales;
  const int paddedRows = (m + kRows - 1) / kRows * kRows;
  packed.assign(size_t(paddedRows) * size_t(k), T(0));
  const bool transA = transposed(transa);
  for (int l = 0; l < k; ++l)
    for (int i = 0; i < m; ++i)
      packed[size_t(l) * paddedRows + i] = transA ? a[int64_t(i) * lda + l] : a[int64_t(l) * lda + i];
  // alpha op(B)(l, j), per block of kColumns columns: [j0 k + l kColumns + jj].
  const bool transB = transposed(transb);
  scales.assign(size_t(n + kColumns) * size_t(k), T(0));
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < k; ++l) {
      const T bValue = transB ? b[int64_t(l) * ldb + j] : b[int64_t(j) * ldb + l];
      scales[size_t(j - j % kColumns) * k + size_t(l) * kColumns + j % kColumns] = alpha * bValue;
    }
  blocks(packed.data(), paddedRows, m, n, k, scales.data(), c, ldc);
}

/// y = alpha op(A) x + beta y, A m x n column-major, as xGEMV defines it.
template <class T>
void gemv(const char *trans, int m, int n, T alpha, const T *a, int lda, const T *x, int incx, T beta, T *y,
          int incy) {
  if (m <= 0 || n <= 0) return;
  const bool transA = transposed(trans);
  const int xLength = transA ? m : n, yLength = transA ? n : m;
  for (int i = 0; i < yLength; ++i) {
    T &value = element(y, yLength, incy, i);
    value = beta == T(0) ? T(0) : beta == T(1) ? value : beta * value;
  }
  if (alpha == T(0)) return;
  if (!transA) {
    for (int j = 0; j < n; ++j) {
      const T scale = alpha * element(x, xLength, incx, j);
      const T *column = a + int64_t(j) * lda;
      for (int i = 0; i < m; ++i) element(y, yLength, incy, i) += scale * column[i];
    }
    return;
  }
  for (int j = 0; j < n; ++j) {
    const T *column = a + int64_t(j) * lda;
    T sum = 0;
    for (int i = 0; i < m; ++i) sum += column[i] * element(x, xLength, incx, i);
    element(y, yLength, incy, j) += alpha * sum;
  }
}

template <class T>
T dot(int n, const T *x, int incx, const T *y, int incy) {
  T sum = 0;
  for (int i = 0; i < n; ++i) sum += element(x, n, incx, i) * element(y, n, incy, i);
  return sum;
}

template <class T>
void axpy(int n, T alpha, const T *x, int incx, T *y, int incy) {
  for (int i = 0; i < n; ++i) element(y, n, incy, i) += alpha * element(x, n, incx, i);
}

}  // namespace

uint64_t deterministicBlasCalls() { return blasCalls.load(); }

}  // namespace mlgo

// The Fortran BLAS interface (arguments by address; the hidden lengths of the
// character arguments that some callers pass are not read). Only routines
// whose result depends on the order of a sum or on fused multiply-adds are
// here: xSCAL and xCOPY round the same in any kernel.
extern "C" {

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc) {
  ++mlgo::blasCalls;
  mlgo::gemm(transa, transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc) {
  ++mlgo::blasCalls;
  mlgo::gemm(transa, transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            const float *x, const int *incx, const float *beta, float *y, const int *incy) {
  ++mlgo::blasCalls;
  mlgo::gemv(trans, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy);
}

void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy) {
  ++mlgo::blasCalls;
  mlgo::gemv(trans, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy);
}

float sdot_(const int *n, const float *x, const int *incx, const float *y, const int *incy) {
  ++mlgo::blasCalls;
  return mlgo::dot(*n, x, *incx, y, *incy);
}

double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy) {
  ++mlgo::blasCalls;
  return mlgo::dot(*n, x, *incx, y, *incy);
}

void saxpy_(const int *n, const float *alpha, const float *x, const int *incx, float *y, const int *incy) {
  ++mlgo::blasCalls;
  mlgo::axpy(*n, *alpha, x, *incx, y, *incy);
}

void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y, const int *incy) {
  ++mlgo::blasCalls;
  mlgo::axpy(*n, *alpha, x, *incx, y, *incy);
}

}  // extern "C"
