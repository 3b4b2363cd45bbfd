/* setjmp/longjmp: error recovery out of a deeply recursive expression parser,
 * nested handlers, longjmp values (including 0 -> 1), and volatile locals
 * modified between setjmp and longjmp keeping their latest values. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf *current_handler;
static int error_code;
static const char *cursor;
static int depth_reached;

_Noreturn static void raise_error(int code) {
  error_code = code;
  longjmp(*current_handler, code);
}

static long parse_expr(int depth);

static long parse_atom(int depth) {
  if (depth > depth_reached) depth_reached = depth;
  if (depth > 200) raise_error(3); /* nesting too deep */
  if (*cursor == '(') {
    cursor++;
    long v = parse_expr(depth + 1);
    if (*cursor != ')') raise_error(2);
    cursor++;
    return v;
  }
  if (*cursor == '-') {
    cursor++;
    return -parse_atom(depth + 1);
  }
  if (*cursor < '0' || *cursor > '9') raise_error(1);
  long v = 0;
  while (*cursor >= '0' && *cursor <= '9') v = v * 10 + (*cursor++ - '0');
  return v;
}

static long parse_term(int depth) {
  long v = parse_atom(depth);
  while (*cursor == '*' || *cursor == '/') {
    char op = *cursor++;
    long r = parse_atom(depth);
    if (op == '*') v *= r;
    else {
      if (r == 0) raise_error(4);
      v /= r;
    }
  }
  return v;
}

static long parse_expr(int depth) {
  long v = parse_term(depth);
  while (*cursor == '+' || *cursor == '-') {
    char op = *cursor++;
    long r = parse_term(depth);
    v = op == '+' ? v + r : v - r;
  }
  return v;
}

/* Returns 0 and stores the value, or the error code. */
static int evaluate(const char *text, long *out) {
  jmp_buf env;
  jmp_buf *saved = current_handler;
  current_handler = &env;
  int code;
  switch (setjmp(env)) {
  case 0: {
    cursor = text;
    long v = parse_expr(0);
    if (*cursor != '\0') raise_error(5);
    *out = v;
    code = 0;
    break;
  }
  default:
    code = error_code;
    break;
  }
  current_handler = saved;
  return code;
}

static jmp_buf outer;
static int cleanup_log[8];
static int cleanup_count;

static void inner_work(int n) {
  jmp_buf env;
  jmp_buf *saved = current_handler;
  current_handler = &env;
  if (setjmp(env) != 0) {
    /* Local handler: record, then propagate to the outer handler. */
    cleanup_log[cleanup_count++] = n;
    current_handler = saved;
    longjmp(outer, 100 + n);
  }
  if (n == 0) {
    if (error_code >= 0) raise_error(7);
    return;
  }
  inner_work(n - 1);
  current_handler = saved;
}

static int failures; /* static: updated around setjmp/longjmp */

int main(void) {
  static const struct { const char *text; int code; long value; } cases[] = {
      {"1+2*3", 0, 7},
      {"(1+2)*3", 0, 9},
      {"100/7/2", 0, 7},
      {"-(-(-5))*4-3", 0, -23},
      {"2*(3+(4*(5+6)))-1", 0, 93},
      {"1+", 1, 0},
      {"(1+2", 2, 0},
      {"8/(4-4)", 4, 0},
      {"12 ", 5, 0},
      {"x", 1, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    long v = -999;
    int code = evaluate(cases[i].text, &v);
    if (code != cases[i].code || (code == 0 && v != cases[i].value)) {
      fprintf(stderr, "setjmp: '%s' gave code %d value %ld\n", cases[i].text, code, v);
      failures++;
    }
  }

  /* Nesting 300 deep triggers the depth limit from 200 frames down. */
  char deep[700];
  memset(deep, '(', 300);
  deep[300] = '1';
  memset(deep + 301, ')', 300);
  deep[601] = 0;
  long v;
  depth_reached = 0;
  if (evaluate(deep, &v) != 3 || depth_reached != 201) {
    fprintf(stderr, "setjmp: deep nesting: depth %d\n", depth_reached);
    failures++;
  }
  memset(deep, '(', 150);
  deep[150] = '7';
  memset(deep + 151, ')', 150);
  deep[301] = 0;
  if (evaluate(deep, &v) != 0 || v != 7) {
    fprintf(stderr, "setjmp: 150-deep nesting failed\n");
    failures++;
  }

  /* Volatile locals keep values assigned after setjmp. */
  volatile int counter = 0;
  volatile long acc = 1;
  jmp_buf loop_env;
  setjmp(loop_env);
  counter++;
  acc *= 3;
  if (counter < 6) longjmp(loop_env, counter);
  if (counter != 6 || acc != 729) {
    fprintf(stderr, "setjmp: volatile loop counter=%d acc=%ld\n", counter, acc);
    failures++;
  }

  /* longjmp(env, 0) must make setjmp return 1. */
  jmp_buf zero_env;
  volatile int times = 0;
  if (setjmp(zero_env) == 0) {
    times++;
    longjmp(zero_env, 0);
  } else {
    times += 10;
  }
  if (times != 11) { fprintf(stderr, "setjmp: longjmp(0) times=%d\n", times); failures++; }

  /* Nested handlers: innermost catches, records and re-throws outward. */
  jmp_buf *saved = current_handler;
  switch (setjmp(outer)) {
  case 0:
    inner_work(4);
    fprintf(stderr, "setjmp: inner_work returned normally\n");
    failures++;
    break;
  case 100:
    if (cleanup_count != 1 || cleanup_log[0] != 0) {
      fprintf(stderr, "setjmp: nested handler count %d\n", cleanup_count);
      failures++;
    }
    break;
  default:
    fprintf(stderr, "setjmp: nested handler: wrong longjmp value\n");
    failures++;
    break;
  }
  current_handler = saved;
  if (error_code != 7) { fprintf(stderr, "setjmp: error_code %d\n", error_code); failures++; }

  return failures ? 1 : 0;
}
