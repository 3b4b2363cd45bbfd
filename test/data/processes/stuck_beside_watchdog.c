// A process whose main thread waits forever while a second thread wakes
// every 50 ms and computes for a millisecond or so: how mlgo's compile worker
// looks when its compile is deadlocked and its watchdog thread
// (crash_guard.cpp) still runs.
// With "spin", the second thread computes without pause instead.
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static void *watchdog(void *spin) {
  for (;;) {
    if (!spin) {
      struct timespec pause = {0, 50 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
    for (unsigned long i = 0; i < 1000000; ++i) sink += i;
  }
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t thread;
  const int spin = argc > 1 && strcmp(argv[1], "spin") == 0;
  pthread_create(&thread, NULL, watchdog, spin ? &thread : NULL);
  for (;;) pause();
}
