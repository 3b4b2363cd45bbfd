/* Global and static data: initialized arrays/structs/pointers to other
 * globals, a statically built circular list, static locals that persist
 * across calls, globals changed behind the caller's back by callees and
 * through pointers, and const lookup tables. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "globals_static: line %d: %s\n", __LINE__, #c);          \
      failures++;                                                              \
    }                                                                          \
  } while (0)

int primes[10] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};
int *prime_cursor = &primes[3];            /* pointer into another global */
const int *const last_prime = primes + 9;
static const char *const month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const uint8_t days_in_month[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

struct Ring { int value; struct Ring *next; };
static struct Ring ring_c;
static struct Ring ring_b = {20, &ring_c};
static struct Ring ring_a = {10, &ring_b};
static struct Ring ring_c = {30, &ring_a}; /* completes the cycle */

struct Config { const char *name; int level; double ratio; int flags[4]; };
static struct Config config = {.name = "default", .level = 3, .flags = {[2] = 7}};
static struct Config configs[] = {{"a", 1, 0.5, {1}}, {"b", 2, 0.25, {0, 2}}, [4] = {"e", 5, 2.0, {0}}};

int global_counter;        /* tentative definition, zero-initialized */
static long accumulator = -100;

static int next_id(void) {
  static int id = 1000; /* initialized once */
  return id++;
}
static int calls_so_far(int reset) {
  static int calls;
  if (reset) calls = 0;
  return ++calls;
}
static void bump(void) { global_counter += 5; accumulator *= -2; }
static void via_pointer(int *p) { *p += 1; }

static int day_of_year(int month, int day, int leap) {
  int total = day;
  for (int m = 0; m < month - 1; m++) total += days_in_month[m] + (m == 1 && leap);
  return total;
}

static int (*volatile hook)(void) = next_id; /* function pointer in a global */

int main(void) {
  CHECK(*prime_cursor == 7 && *last_prime == 29 && prime_cursor[2] == 13);
  prime_cursor++;
  *prime_cursor = 111; /* writes primes[4] */
  CHECK(primes[4] == 111);
  primes[4] = 11;

  int sum = 0;
  struct Ring *r = &ring_a;
  for (int i = 0; i < 7; i++, r = r->next) sum += r->value;
  CHECK(sum == 10 + 20 + 30 + 10 + 20 + 30 + 10 && r == &ring_b);
  ring_b.value = 25;
  CHECK(ring_a.next->value == 25 && ring_c.next->next == &ring_b);

  CHECK(strcmp(config.name, "default") == 0 && config.level == 3 && config.ratio == 0.0);
  CHECK(config.flags[0] == 0 && config.flags[2] == 7 && config.flags[3] == 0);
  CHECK(sizeof configs / sizeof configs[0] == 5);
  CHECK(configs[1].flags[1] == 2 && configs[2].name == NULL && configs[4].ratio == 2.0);

  CHECK(global_counter == 0 && accumulator == -100);
  for (int i = 0; i < 3; i++) bump();
  CHECK(global_counter == 15 && accumulator == 800);
  int before = global_counter;
  via_pointer(&global_counter);
  CHECK(global_counter == before + 1);

  CHECK(next_id() == 1000 && next_id() == 1001 && hook() == 1002 && next_id() == 1003);
  CHECK(calls_so_far(0) == 1 && calls_so_far(0) == 2 && calls_so_far(1) == 1 && calls_so_far(0) == 2);

  int total_days = 0;
  for (int m = 0; m < 12; m++) total_days += days_in_month[m];
  CHECK(total_days == 365);
  CHECK(day_of_year(3, 1, 0) == 60 && day_of_year(3, 1, 1) == 61 && day_of_year(12, 31, 1) == 366);
  size_t name_chars = 0;
  for (int m = 0; m < 12; m++) name_chars += strlen(month_names[m]);
  CHECK(name_chars == 36 && month_names[8][0] == 'S');

  if (failures) {
    fprintf(stderr, "globals_static: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
