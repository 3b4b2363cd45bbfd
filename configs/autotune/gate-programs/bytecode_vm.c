/* A stack-based bytecode VM with two dispatchers (a dense switch and a table
 * of handler function pointers) runs programs with loops, calls and
 * recursion; results must agree with each other and with native C code. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum Op {
  PUSH, POP, DUP, SWAP, OVER, ADD, SUB, MUL, DIV, MOD, NEG, AND, OR, XOR, SHL,
  SHR, LT, EQ, NOT, JMP, JZ, JNZ, CALL, RET, LOAD, STORE, HALT, NUM_OPS
};

typedef struct {
  int32_t stack[256];
  int sp;
  int32_t frames[64];
  int fp;
  int32_t mem[16];
  int pc;
  int halted;
  int error;
  long steps;
} Vm;

static int32_t pop(Vm *vm) {
  if (vm->sp <= 0) { vm->error = 1; return 0; }
  return vm->stack[--vm->sp];
}
static void push(Vm *vm, int32_t v) {
  if (vm->sp >= 256) { vm->error = 2; return; }
  vm->stack[vm->sp++] = v;
}
/* Wrapping arithmetic without signed overflow. */
static int32_t wrap(uint32_t v) { return v <= INT32_MAX ? (int32_t)v : (int32_t)(v - 2147483648u) - INT32_MAX - 1; }

static void step_switch(Vm *vm, const int32_t *code) {
  int32_t op = code[vm->pc++], a, b;
  switch (op) {
  case PUSH: push(vm, code[vm->pc++]); break;
  case POP: pop(vm); break;
  case DUP: a = pop(vm); push(vm, a); push(vm, a); break;
  case SWAP: b = pop(vm); a = pop(vm); push(vm, b); push(vm, a); break;
  case OVER: b = pop(vm); a = pop(vm); push(vm, a); push(vm, b); push(vm, a); break;
  case ADD: b = pop(vm); a = pop(vm); push(vm, wrap((uint32_t)a + (uint32_t)b)); break;
  case SUB: b = pop(vm); a = pop(vm); push(vm, wrap((uint32_t)a - (uint32_t)b)); break;
  case MUL: b = pop(vm); a = pop(vm); push(vm, wrap((uint32_t)a * (uint32_t)b)); break;
  case DIV: b = pop(vm); a = pop(vm);
    if (b == 0 || (a == INT32_MIN && b == -1)) vm->error = 3; else push(vm, a / b);
    break;
  case MOD: b = pop(vm); a = pop(vm);
    if (b == 0 || (a == INT32_MIN && b == -1)) vm->error = 3; else push(vm, a % b);
    break;
  case NEG: a = pop(vm); push(vm, wrap(0u - (uint32_t)a)); break;
  case AND: b = pop(vm); a = pop(vm); push(vm, a & b); break;
  case OR: b = pop(vm); a = pop(vm); push(vm, a | b); break;
  case XOR: b = pop(vm); a = pop(vm); push(vm, a ^ b); break;
  case SHL: b = pop(vm); a = pop(vm); push(vm, wrap((uint32_t)a << (b & 31))); break;
  case SHR: b = pop(vm); a = pop(vm); push(vm, (int32_t)((uint32_t)a >> (b & 31))); break;
  case LT: b = pop(vm); a = pop(vm); push(vm, a < b); break;
  case EQ: b = pop(vm); a = pop(vm); push(vm, a == b); break;
  case NOT: a = pop(vm); push(vm, !a); break;
  case JMP: vm->pc = code[vm->pc]; break;
  case JZ: a = pop(vm); vm->pc = a == 0 ? code[vm->pc] : vm->pc + 1; break;
  case JNZ: a = pop(vm); vm->pc = a != 0 ? code[vm->pc] : vm->pc + 1; break;
  case CALL:
    if (vm->fp >= 64) { vm->error = 4; break; }
    vm->frames[vm->fp++] = vm->pc + 1;
    vm->pc = code[vm->pc];
    break;
  case RET:
    if (vm->fp == 0) { vm->error = 5; break; }
    vm->pc = vm->frames[--vm->fp];
    break;
  case LOAD: a = code[vm->pc++]; push(vm, vm->mem[a & 15]); break;
  case STORE: a = code[vm->pc++]; vm->mem[a & 15] = pop(vm); break;
  case HALT: vm->halted = 1; break;
  default: vm->error = 6; break;
  }
}

/* The same semantics as handler functions dispatched through a table. */
typedef void (*Handler)(Vm *, const int32_t *);
static void h_push(Vm *vm, const int32_t *c) { push(vm, c[vm->pc++]); }
static void h_pop(Vm *vm, const int32_t *c) { (void)c; pop(vm); }
static void h_generic(Vm *vm, const int32_t *c) { vm->pc--; step_switch(vm, c); }
static void h_add(Vm *vm, const int32_t *c) {
  (void)c;
  int32_t b = pop(vm), a = pop(vm);
  push(vm, wrap((uint32_t)a + (uint32_t)b));
}
static void h_jz(Vm *vm, const int32_t *c) {
  int32_t a = pop(vm);
  vm->pc = a == 0 ? c[vm->pc] : vm->pc + 1;
}
static void h_load(Vm *vm, const int32_t *c) { int32_t a = c[vm->pc++]; push(vm, vm->mem[a & 15]); }
static void h_store(Vm *vm, const int32_t *c) { int32_t a = c[vm->pc++]; vm->mem[a & 15] = pop(vm); }

static Handler table[NUM_OPS];

static int32_t run(const int32_t *code, int use_table, long *steps) {
  Vm vm;
  memset(&vm, 0, sizeof vm);
  while (!vm.halted && !vm.error && vm.steps < 2000000) {
    vm.steps++;
    if (use_table) {
      int32_t op = code[vm.pc++];
      if (op < 0 || op >= NUM_OPS) { vm.error = 6; break; }
      table[op](&vm, code);
    } else {
      step_switch(&vm, code);
    }
  }
  *steps = vm.steps;
  if (vm.error || !vm.halted || vm.sp != 1) return INT32_MIN;
  return vm.stack[0];
}

/* mem[0]=n, mem[1]=a, mem[2]=b: iterative fib(n) */
static const int32_t prog_fib[] = {
    PUSH, 30, STORE, 0, PUSH, 0, STORE, 1, PUSH, 1, STORE, 2,
    /* 12 */ LOAD, 0, JZ, 32,
    LOAD, 1, LOAD, 2, DUP, STORE, 1, ADD, STORE, 2,
    LOAD, 0, PUSH, -1, ADD, STORE, 0, JMP, 12,
    /* the JZ target (index 15) is patched to point just past this array */
};
/* Assembled at run time because jump targets depend on the layout. */
static int32_t fib_code[64];

/* gcd(a, b) by the Euclidean algorithm, subroutine called twice. */
static const int32_t prog_gcd[] = {
    PUSH, 1071, PUSH, 462, CALL, 13,   /* gcd(1071,462)=21 */
    PUSH, 7, MUL,                      /* 147 */
    HALT,
    0, 0, 0,                           /* padding: 10..12 */
    /* 13: gcd: stack a b */
    DUP, JZ, 21,                       /* if b==0 goto done */
    SWAP, OVER, MOD,                   /* b, a%b */
    JMP, 13,
    /* 21: */ POP, RET,
};

/* Recursive fib(n) via CALL/RET: fib(n) = n<2 ? n : fib(n-1)+fib(n-2) */
static const int32_t prog_rfib[] = {
    PUSH, 18, CALL, 5, HALT,
    /* 5: */ DUP, PUSH, 2, LT, JNZ, 25,
    DUP, PUSH, 1, SUB, CALL, 5,          /* n fib(n-1) */
    SWAP, PUSH, 2, SUB, CALL, 5,         /* fib(n-1) fib(n-2) */
    ADD, RET,
    /* the JNZ target (index 10) is patched to a RET appended here */
};
static int32_t rfib_code[32];

/* Count primes below 2000 by trial division; mem[0]=n, mem[1]=count, mem[2]=d */
static int32_t primes_code[96];

static int native_fib(int n) { return n < 2 ? n : native_fib(n - 1) + native_fib(n - 2); }

int main(void) {
  int failures = 0;
  for (int i = 0; i < NUM_OPS; i++) table[i] = h_generic;
  table[PUSH] = h_push; table[POP] = h_pop; table[ADD] = h_add;
  table[JZ] = h_jz; table[LOAD] = h_load; table[STORE] = h_store;

  /* fib: patch the exit jump to the end, then append the epilogue. */
  size_t n = sizeof prog_fib / sizeof prog_fib[0];
  memcpy(fib_code, prog_fib, sizeof prog_fib);
  fib_code[15] = (int32_t)n;
  fib_code[n] = LOAD; fib_code[n + 1] = 1; fib_code[n + 2] = HALT;

  memcpy(rfib_code, prog_rfib, sizeof prog_rfib);
  n = sizeof prog_rfib / sizeof prog_rfib[0];
  rfib_code[10] = (int32_t)n;
  rfib_code[n] = RET;

  {
    int32_t *c = primes_code;
    int k = 0, loop_n, loop_d, composite, next_n, done;
    c[k++] = PUSH; c[k++] = 2; c[k++] = STORE; c[k++] = 0;
    c[k++] = PUSH; c[k++] = 0; c[k++] = STORE; c[k++] = 1;
    loop_n = k;
    c[k++] = LOAD; c[k++] = 0; c[k++] = PUSH; c[k++] = 2000; c[k++] = LT;
    c[k++] = JZ; done = k; c[k++] = 0;
    c[k++] = PUSH; c[k++] = 2; c[k++] = STORE; c[k++] = 2;
    loop_d = k; /* while d*d <= n */
    c[k++] = LOAD; c[k++] = 0; c[k++] = LOAD; c[k++] = 2; c[k++] = DUP; c[k++] = MUL;
    c[k++] = LT; c[k++] = JNZ; int prime_exit = k; c[k++] = 0;
    c[k++] = LOAD; c[k++] = 0; c[k++] = LOAD; c[k++] = 2; c[k++] = MOD;
    c[k++] = JZ; composite = k; c[k++] = 0;
    c[k++] = LOAD; c[k++] = 2; c[k++] = PUSH; c[k++] = 1; c[k++] = ADD; c[k++] = STORE; c[k++] = 2;
    c[k++] = JMP; c[k++] = loop_d;
    c[prime_exit] = k; /* prime: count++ */
    c[k++] = LOAD; c[k++] = 1; c[k++] = PUSH; c[k++] = 1; c[k++] = ADD; c[k++] = STORE; c[k++] = 1;
    c[composite] = k;
    next_n = k;
    c[k++] = LOAD; c[k++] = 0; c[k++] = PUSH; c[k++] = 1; c[k++] = ADD; c[k++] = STORE; c[k++] = 0;
    c[k++] = JMP; c[k++] = loop_n;
    c[done] = k;
    c[k++] = LOAD; c[k++] = 1; c[k++] = HALT;
    (void)next_n;
  }

  /* Arithmetic edge cases: wrap-around, shifts, signed division. */
  static const int32_t prog_edge[] = {
      PUSH, 2147483647, PUSH, 1, ADD,          /* INT_MIN */
      PUSH, -1, MUL,                           /* INT_MIN again (wraps) */
      PUSH, 31, SHR,                           /* 1 */
      PUSH, -7, PUSH, 2, DIV, ADD,             /* 1 + -3 = -2 */
      PUSH, -7, PUSH, 2, MOD, ADD,             /* -2 + -1 = -3 */
      PUSH, 5, SHL,                            /* -96 */
      PUSH, 0x0f0f, XOR, PUSH, 0xff, AND,     /* (-96 ^ 0x0f0f) & 0xff */
      NEG, NOT, NOT, PUSH, 3, EQ,              /* (nonzero)->1, 1==3 -> 0 */
      PUSH, 40, OR, HALT,                      /* 40 */
  };

  struct { const char *name; const int32_t *code; int32_t want; } tests[] = {
      {"fib", fib_code, 832040},
      {"gcd", prog_gcd, 147},
      {"rfib", rfib_code, 0},
      {"primes", primes_code, 303},
      {"edge", prog_edge, 40},
  };
  tests[2].want = native_fib(18);
  if (tests[2].want != 2584) { fprintf(stderr, "bytecode_vm: native fib wrong\n"); failures++; }

  for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++) {
    long s1, s2;
    int32_t r1 = run(tests[t].code, 0, &s1);
    int32_t r2 = run(tests[t].code, 1, &s2);
    if (r1 != tests[t].want || r2 != tests[t].want || s1 != s2) {
      fprintf(stderr, "bytecode_vm: %s: switch=%d (%ld steps) table=%d (%ld steps) want %d\n",
              tests[t].name, r1, s1, r2, s2, tests[t].want);
      failures++;
    }
  }
  /* A faulting program must be reported, not crash: pop from empty stack. */
  static const int32_t bad[] = {POP, HALT};
  long s;
  if (run(bad, 0, &s) != INT32_MIN || run(bad, 1, &s) != INT32_MIN) {
    fprintf(stderr, "bytecode_vm: stack underflow not detected\n");
    failures++;
  }
  static const int32_t divzero[] = {PUSH, 1, PUSH, 0, DIV, HALT};
  if (run(divzero, 0, &s) != INT32_MIN) {
    fprintf(stderr, "bytecode_vm: division by zero not detected\n");
    failures++;
  }
  return failures ? 1 : 0;
}
