/* Compiled WITHOUT -fembed-bitcode: extract-ir must skip it with a reason. */
int plain(int x) { return x + 1; }
