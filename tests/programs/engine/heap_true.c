/* expect: symexec=true cegar=true */
#include <stdlib.h>
void *malloc(unsigned long);
int main(void) { int *p = malloc(4); int *q = malloc(4); if (p && q) { *p = 1; *q = 2; if (*p != 1) { ERROR: ; } } return 0; }
