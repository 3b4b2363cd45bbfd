/* A file of the ThinLTO test program that nothing calls: the link finds its
 * only function unused and drops it, so the backend gets a module with no
 * function to compile. */
int unused_entry(int x) { return x * 7 + 3; }
