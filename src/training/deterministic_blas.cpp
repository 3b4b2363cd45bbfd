// The BLAS routines LibTorch calls for mlgo's networks, computed in one fixed
// order so that a seed trains the same policy on every CPU (see
// deterministic_torch.h). libmlgo_training.so exports them under their
// Fortran names; LibTorch's calls bind to these before the system BLAS, which
// comes later in the loader's search order (a dependency of LibTorch's own).
//
// Products and sums run in plain float/double arithmetic; the build turns
// floating-point contraction off (-ffp-contract=off), so no fused
// multiply-add changes a rounding on a CPU that has one. Each output element
// accumulates its terms in ascending index order; the inner loops run over
// independent outputs, so the compiler may vectorize them without changing
// any element's order. These networks are small (tens of inputs and units):
// the cost per gradient step is in BENCHMARKS.md.
#include <atomic>
#include <cstdint>
#include <vector>

#include "mlgo/training/deterministic_torch.h"

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

/// C = alpha op(A) op(B) + beta C, column-major, as xGEMM defines it
/// (beta = 0 sets C without reading it).
template <class T>
void gemm(const char *transa, const char *transb, int m, int n, int k, T alpha, const T *a, int lda, const T *b,
          int ldb, T beta, T *c, int ldc) {
  if (m <= 0 || n <= 0) return;
  // op(A) as a contiguous m x k column-major block, so that the inner loop
  // below runs down a column of C and of op(A).
  thread_local std::vector<T> packed;
  const T *opA = a;
  int64_t opLda = lda;
  if (transposed(transa) && k > 0) {
    packed.resize(size_t(m) * size_t(k));
    for (int l = 0; l < k; ++l)
      for (int i = 0; i < m; ++i) packed[size_t(l) * m + i] = a[int64_t(i) * lda + l];
    opA = packed.data();
    opLda = m;
  }
  const bool transB = transposed(transb);
  for (int j = 0; j < n; ++j) {
    T *column = c + int64_t(j) * ldc;
    if (beta == T(0))
      for (int i = 0; i < m; ++i) column[i] = T(0);
    else if (beta != T(1))
      for (int i = 0; i < m; ++i) column[i] = beta * column[i];
    if (alpha == T(0)) continue;
    for (int l = 0; l < k; ++l) {
      const T bValue = transB ? b[int64_t(l) * ldb + j] : b[int64_t(j) * ldb + l];
      const T scale = alpha * bValue;
      const T *aColumn = opA + int64_t(l) * opLda;
      for (int i = 0; i < m; ++i) column[i] += scale * aColumn[i];
    }
  }
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
