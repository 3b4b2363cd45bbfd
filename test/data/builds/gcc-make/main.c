#include <stdio.h>
int main(void) { puts("built by gcc"); return 0; }
